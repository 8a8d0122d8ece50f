"""Self-describing model files that load without unpickling arbitrary objects.

A model file is a ``torch.save`` archive holding only tensors, lists and one JSON string:
the JSON has the model config, featurizer settings, target names/units, both scalers,
the training settings, history and metrics, the conformal calibration and the domain, and
the scoremol version. A blended CatBoost model rides along as a byte tensor in CatBoost's
own binary format, the domain's training embeddings as a float16 tensor. It is loaded with
``torch.load(weights_only=True)``, so a malicious file cannot execute code. Writes go to
a temporary file renamed into place, so an interrupted training never leaves half a model.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import torch

from scoremol.calibration import Calibration, Domain
from scoremol.calibration.probability import ClassCalibration
from scoremol.data.atomic import atomic_write
from scoremol.data.scaling import DescriptorScaler, TargetScaler
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizerSettings
from scoremol.models.catboost import TreeBlend
from scoremol.models.metadata import FORMAT_NAME, FORMAT_VERSION, REGRESSION_FORMAT_VERSION
from scoremol.models.trained import Member, TrainedModel
from scoremol.nn import ModelConfig
from scoremol.version import __version__


def save_model(model: TrainedModel, path: str | Path) -> None:
    """Write ``model`` atomically to ``path`` (one file)."""
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION if any(model.classify) else REGRESSION_FORMAT_VERSION,
        "scoremol_version": __version__,
        "torch_version": torch.__version__,
        "model_config": model.model_config.to_dict(),
        "featurizer": model.featurizer.to_dict(),
        "targets": model.target_names,
        "units": model.target_units,
        "target_kinds": model.target_kinds,
        "target_classes": model.target_classes,
        "target_scaler": model.target_scaler.to_dict(),
        "descriptor_scaler": None if model.descriptor_scaler is None else model.descriptor_scaler.to_dict(),
        "train_config": model.train_config,
        "metrics": model.metrics,
        "members": [
            {
                "seed": m.seed,
                "best_epoch": m.best_epoch,
                "best_val_rmse": m.best_val_rmse,
                "epochs_run": m.epochs_run,
                "seconds": m.seconds,
                "history": m.history,
            }
            for m in model.members
        ],
        "descriptor_columns": model.descriptor_columns,
        "tree": None
        if model.tree is None
        else {
            "kind": "catboost",
            "weights": list(model.tree.weights),
            "best_iterations": model.tree.best_iterations,
            "present": [b is not None for b in model.tree.blobs],
            # a damaged tree is refused before CatBoost reads it (it can crash on bad bytes)
            "sha256": [None if b is None else hashlib.sha256(b).hexdigest() for b in model.tree.blobs],
        },
        "calibration": None if model.calibration is None else [c.to_dict() for c in model.calibration],
        "domain": None if model.domain is None else model.domain.to_meta(),
    }
    payload = {
        "meta": json.dumps(meta, allow_nan=True),
        "weights": [{k: v.detach().cpu().contiguous() for k, v in m.state_dict.items()} for m in model.members],
    }
    if model.tree is not None:
        payload["trees"] = [torch.frombuffer(bytearray(b or b"\0"), dtype=torch.uint8) for b in model.tree.blobs]
    if model.domain is not None:
        payload["domain_reference"] = model.domain.reference.half().contiguous()
        if model.domain.smiles is not None and model.domain.labels is not None:
            # the training molecules, for the nearest-neighbour panel of reports (plain tensors)
            text = "\n".join(model.domain.smiles).encode()
            payload["domain_smiles"] = torch.frombuffer(bytearray(text or b"\0"), dtype=torch.uint8)
            payload["domain_labels"] = torch.from_numpy(np.asarray(model.domain.labels, dtype=np.float32))
    with atomic_write(path, "wb") as handle:
        torch.save(payload, handle)


def _load_tree(spec: dict | None, payload: dict) -> TreeBlend | None:
    """The blended trees described by ``spec``, their bytes in ``payload`` (uint8 tensors:
    ``trees``, one per target, or a single ``tree`` in files from before multi-task blends)."""
    if spec is None:
        return None
    blobs = payload.get("trees", [payload.get("tree")])
    present = spec.get("present", [True] * len(blobs))
    if spec.get("kind") != "catboost" or len(present) != len(blobs):
        raise ValueError("blended tree missing or of an unknown kind")
    if any(p and not (isinstance(b, torch.Tensor) and b.dtype == torch.uint8) for p, b in zip(present, blobs)):
        raise ValueError("blended tree missing or of an unknown kind")
    best = spec.get("best_iterations", [int(spec.get("best_iteration", 0))])
    kept = [bytes(b.numpy().tobytes()) if p else None for p, b in zip(present, blobs)]
    for blob, digest in zip(kept, spec.get("sha256") or [None] * len(kept)):
        if blob is not None and digest is not None and hashlib.sha256(blob).hexdigest() != digest:
            raise DamagedTree("its checksum does not match")
    weights = spec["weights"] if "weights" in spec else [spec["weight"]] * len(kept)  # one weight: older files
    if len(weights) != len(kept):
        raise ValueError("blended tree weights do not match its targets")
    return TreeBlend(kept, [float(w) for w in weights], [int(i) for i in best])


class DamagedTree(Exception):
    """A blended tree whose bytes are not the ones saved."""


def _current_calibration(meta: dict) -> bool:
    """Whether the model's domain lives in the embedding space this code measures (files
    from before the readout space held the head's last layer: they load without intervals
    and domain, which a retrain restores)."""
    return meta.get("domain") is not None and meta["domain"].get("space") == Domain.SPACE


def _load_calibration(meta: dict) -> list[Calibration] | None:
    if meta.get("calibration") is None or not _current_calibration(meta):
        return None
    return [
        ClassCalibration.from_dict(c) if c.get("kind") == "classification" else Calibration.from_dict(c)
        for c in meta["calibration"]
    ]


def _training_examples(payload: dict) -> tuple[list[str] | None, np.ndarray | None]:
    """The training SMILES and labels stored beside the domain (None, None when absent)."""
    if "domain_smiles" not in payload or "domain_labels" not in payload:
        return None, None
    smiles = bytes(payload["domain_smiles"].numpy()).decode().split("\n")
    return smiles, payload["domain_labels"].numpy().astype(np.float64)


def _load_domain(meta: dict, reference, payload: dict | None = None) -> Domain | None:
    """The applicability domain described by ``meta``, with its reference embeddings."""
    if not _current_calibration(meta):
        return None
    if not isinstance(reference, torch.Tensor):
        raise ValueError("domain reference embeddings missing")
    return Domain.from_meta(meta["domain"], reference, *_training_examples(payload or {}))


def load_model(path: str | Path) -> TrainedModel:
    """Read a model file; any problem is a one-line :class:`ScoremolError` naming it."""
    p = Path(path)
    if p.is_dir():
        raise ScoremolError(f"{path} is a folder, not a model file")
    if not p.is_file():
        raise ScoremolError(f"model file not found: {path}")
    return _load(p, path)


def load_model_bytes(data: bytes, name: str = "model") -> TrainedModel:
    """A model from the bytes of a model file (as sent to the workers of a cluster); the
    same checks as :func:`load_model`, messages naming ``name``."""
    return _load(io.BytesIO(data), name)


def _tasks_match(model: TrainedModel) -> bool:
    """Whether every target has a known kind, a yes/no target two class names, and a
    calibration of its kind."""
    n = len(model.target_names)
    if len(model.target_kinds) != n or len(model.target_classes) != n:
        return False
    for t, (kind, classes) in enumerate(zip(model.target_kinds, model.target_classes)):
        if kind not in ("regression", "classification") or (kind == "classification") != (classes is not None):
            return False
        if classes is not None and len(classes) != 2:
            return False
        if model.calibration is not None and isinstance(model.calibration[t], ClassCalibration) != (
            kind == "classification"
        ):
            return False
    return True


def _load(source: Path | io.BytesIO, path: str | Path) -> TrainedModel:
    if not zipfile.is_zipfile(source):
        raise ScoremolError(f"{path} is not a readable scoremol model (corrupt, truncated or another kind of file)")
    if isinstance(source, io.BytesIO):
        source.seek(0)
    try:
        payload = torch.load(source, map_location="cpu", weights_only=True)
    except Exception as exc:  # weights_only refuses pickled objects: never one of ours
        raise ScoremolError(f"{path} is not a scoremol model ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("meta"), str):
        raise ScoremolError(f"{path} is not a scoremol model")
    try:
        meta = json.loads(payload["meta"])
    except json.JSONDecodeError:
        raise ScoremolError(f"{path} is not a scoremol model (unreadable metadata)") from None
    if meta.get("format") != FORMAT_NAME:
        raise ScoremolError(f"{path} is not a scoremol model (format {meta.get('format')!r})")
    if int(meta.get("format_version", 0)) > FORMAT_VERSION:
        raise ScoremolError(
            f"{path} was written by scoremol {meta.get('scoremol_version', '?')} (model format "
            f"{meta['format_version']}); this is scoremol {__version__}: upgrade to load it"
        )
    try:
        featurizer = FeaturizerSettings.from_dict(meta["featurizer"])
        config = ModelConfig.from_dict(meta["model_config"])
        weights = payload["weights"]
        members = [
            Member(
                state_dict=w,
                seed=m["seed"],
                best_epoch=m["best_epoch"],
                best_val_rmse=m["best_val_rmse"],
                epochs_run=m["epochs_run"],
                seconds=m["seconds"],
                history=m.get("history", []),
            )
            for w, m in zip(weights, meta["members"], strict=True)
        ]
        model = TrainedModel(
            model_config=config,
            featurizer=featurizer,
            target_names=list(meta["targets"]),
            target_units=list(meta.get("units") or [""] * len(meta["targets"])),
            target_scaler=TargetScaler.from_dict(meta["target_scaler"]),
            descriptor_scaler=None
            if meta["descriptor_scaler"] is None
            else DescriptorScaler.from_dict(meta["descriptor_scaler"]),
            members=members,
            train_config=meta.get("train_config", {}),
            metrics=meta.get("metrics", {}),
            descriptor_columns=meta.get("descriptor_columns"),
            tree=_load_tree(meta.get("tree"), payload),  # DamagedTree: reported below
            calibration=_load_calibration(meta),
            domain=_load_domain(meta, payload.get("domain_reference"), payload),
            target_kinds=[str(k) for k in meta.get("target_kinds") or []],
            target_classes=[None if c is None else [str(n) for n in c] for c in meta.get("target_classes") or []],
        )
    except DamagedTree as exc:
        raise ScoremolError(f"{path}: its blended CatBoost model is unreadable ({exc})") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ScoremolError(
            f"{path} is an incomplete or incompatible scoremol model ({type(exc).__name__}: {exc})".splitlines()[0]
        ) from None
    if not featurizer.compatible_with_code():
        raise ScoremolError(
            f"{path} was trained with a different featurizer (fingerprint {featurizer.fingerprint}); retrain it"
        )
    if not members and model.tree is None:
        raise ScoremolError(f"{path} holds no trained weights")
    if not model.target_names or len(model.target_scaler.mean) != len(model.target_names):
        raise ScoremolError(f"{path} is an incomplete scoremol model (its targets and their scaler do not match)")
    if model.target_kinds and not _tasks_match(model):
        raise ScoremolError(f"{path} is an incomplete scoremol model (its targets' kinds and classes do not match)")
    if members and model.domain is not None and model.domain.reference.shape[1] != config.hidden:
        raise ScoremolError(f"{path}: its domain's embeddings do not match its networks (width {config.hidden})")
    if model.tree is not None:
        try:
            model.tree.boosters()  # read once: a broken tree is reported here, not mid-prediction
        except Exception as exc:
            raise ScoremolError(f"{path}: its blended CatBoost model is unreadable ({type(exc).__name__})") from None
    try:
        model.modules()  # build once: a shape mismatch is reported here, not mid-prediction
    except RuntimeError as exc:
        raise ScoremolError(
            f"{path}: weights do not match the model config ({str(exc).splitlines()[0][:120]})"
        ) from None
    return model
