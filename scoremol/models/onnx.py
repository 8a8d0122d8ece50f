"""A trained model's networks as one ONNX file, checked against PyTorch before it is written.

Why: a model served outside Python (ONNX Runtime in C++, C#, Java or the browser) needs no
scoremol, RDKit or PyTorch at prediction time once the caller supplies the graph arrays.
The file holds every member, the descriptor scaling and the target scaling, so its outputs
are the networks' predictions in target units, as ``TrainedModel.predict`` gives them for
the same model without its tree:

- inputs: ``x`` ``[A, F]`` atom features, ``edge_index`` ``[2, E]`` (int64, each bond as a
  forward edge followed by its reverse), ``edge_attr`` ``[E, B]``, ``batch`` ``[A]`` (the
  molecule of each atom, int64, sorted), ``ptr`` ``[G + 1]`` (each molecule's first atom and
  the total), and for models that fuse descriptors ``descriptors`` ``[G, D]``: the raw RDKit
  values named in the sidecar, NaN where RDKit gives none;
- outputs: ``mean`` and ``std`` ``[G, T]`` (the members' mean and spread) and ``embedding``
  ``[G, H]`` (the first member's molecule vectors, the space of the applicability domain).

A blended CatBoost tree is written beside it in CatBoost's own ONNX form (``tree_<target>.onnx``,
raw descriptors in, prediction out) with its weight in the sidecar; calibration and the
domain stay in the scoremol model file. ``scoremol.featurizers.graph`` documents the atom
and bond feature layout. The export is verified: ONNX Runtime must reproduce PyTorch on
sample molecules at two batch sizes, neither the one traced.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from scoremol.data.atomic import atomic_write
from scoremol.data.collate import GraphBatch, collate_arrays
from scoremol.data.scaling import DescriptorScaler, scale_descriptors
from scoremol.errors import ScoremolError
from scoremol.models.trained import TrainedModel

#: drug-like, small, charged, halogenated and fused molecules the export is checked on
SAMPLE_SMILES = (
    "CC(=O)Oc1ccccc1C(=O)O",
    "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21",
    "CCO",
    "C",
    "c1ccc2ccccc2c1",
    "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
    "Cn1cnc2c1c(=O)n(C)c(=O)n2C",
    "O=C([O-])c1ccccc1",
    "FC(F)(F)c1ccc(Br)cc1I",
    "CC[C@H](N)C(=O)N1CCC[C@@H]1C(=O)O",
    "c1ccc(-c2nc3ccccc3[nH]2)nc1",
    "OCC1OC(O)C(O)C(O)C1O",
)
#: the largest difference allowed between ONNX Runtime's outputs and PyTorch's, in target units
TOLERANCE = 1e-3
INPUTS = ("x", "edge_index", "edge_attr", "batch", "ptr", "descriptors")
OUTPUTS = ("mean", "std", "embedding")


class TraceableNetworks(torch.nn.Module):
    """Every member, the descriptor scaling and the target scaling, as one traceable module."""

    def __init__(self, model: TrainedModel) -> None:
        super().__init__()
        self.members = torch.nn.ModuleList(model.modules("cpu"))
        self.fuses = model.model_config.use_descriptors
        scaler = model.descriptor_scaler or DescriptorScaler(*(np.zeros(0) for _ in range(4)))
        for name in ("median", "mean", "std"):
            self.register_buffer(f"d_{name}", torch.as_tensor(getattr(scaler, name), dtype=torch.float32))
        self.register_buffer("d_log", torch.as_tensor(scaler.log_columns, dtype=torch.bool))
        self.register_buffer("y_mean", torch.as_tensor(model.target_scaler.mean, dtype=torch.float32))
        self.register_buffer("y_std", torch.as_tensor(model.target_scaler.std, dtype=torch.float32))

    def scale(self, raw: torch.Tensor) -> torch.Tensor:
        """``DescriptorScaler.transform`` in torch: signed log, median for missing, standardize, clip."""
        return scale_descriptors(torch, raw, self.d_log, self.d_median, self.d_mean, self.d_std)

    def forward(self, x, edge_index, edge_attr, batch, ptr, descriptors):
        scaled = self.scale(descriptors) if self.fuses else None
        graphs = GraphBatch(x, edge_index, edge_attr, batch, ptr, None, scaled)
        outputs, embedding = [], None
        for k, member in enumerate(self.members):
            out, hidden = member.predict_and_embed(graphs)
            outputs.append(out * self.y_std + self.y_mean)
            if k == 0:
                embedding = hidden
        stacked = torch.stack(outputs)
        std = stacked.std(dim=0, unbiased=False) if len(outputs) > 1 else torch.zeros_like(stacked[0])
        return stacked.mean(dim=0), std, embedding


@dataclass(frozen=True)
class OnnxExport:
    """What :func:`export_onnx` wrote and how closely ONNX Runtime matched PyTorch."""

    networks: Path
    trees: list[Path]
    sidecar: Path
    max_difference: float


def _sample_data(model: TrainedModel):
    """The sample molecules featurized once, as the model (tree included) reads them."""
    from scoremol.data.read import smiles_chunk
    from scoremol.featurizers.dataset import featurize_chunk

    return featurize_chunk(smiles_chunk(list(SAMPLE_SMILES)), model.featurizer)


def _sample_batches(model: TrainedModel, data) -> list[tuple[torch.Tensor, ...]]:
    """Input tuples of the sample molecules: all of them (the traced batch), then batches of 1 and 5."""
    raw = data.descriptors if model.model_config.use_descriptors else None
    if raw is not None and model.descriptor_columns is not None:
        raw = raw[:, model.descriptor_columns]  # the networks' own columns of the tree's set

    def inputs(ids: np.ndarray) -> tuple[torch.Tensor, ...]:
        b = collate_arrays(data.x, data.edge_index, data.edge_attr, data.atom_ptr, data.edge_ptr, ids)
        d = torch.from_numpy(raw[ids].astype(np.float32)) if raw is not None else torch.zeros(len(ids), 0)
        return b.x, b.edge_index, b.edge_attr, b.batch, b.ptr, d

    ids = np.arange(data.num_graphs)
    return [inputs(ids), inputs(ids[1:2]), inputs(ids[3:8])]


def export_onnx(model: TrainedModel, directory: str | Path) -> OnnxExport:
    """Write ``model``'s networks (``networks.onnx``), each blended tree (``tree_<k>.onnx``)
    and ``model.json`` (inputs, descriptor names, targets and units, blend weight) to
    ``directory``, after checking ONNX Runtime against PyTorch."""
    try:
        import onnxruntime  # noqa: F401  (the check below needs it)
    except ImportError:
        raise ScoremolError("ONNX export needs the onnx extra: pip install 'scoremol[onnx]'") from None
    if model.is_tree_only:
        raise ScoremolError("a CatBoost-only model has no networks to export")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    module = TraceableNetworks(model).eval()
    sample = _sample_data(model)
    traced, *checks = _sample_batches(model, sample)
    atoms, edges = torch.export.Dim("atoms", min=2), torch.export.Dim("edges", min=2)
    graphs = torch.export.Dim("graphs", min=1)
    shapes = {
        "x": {0: atoms},
        "edge_index": {1: edges},
        "edge_attr": {0: edges},
        "batch": {0: atoms},
        "ptr": {0: graphs + 1},
        "descriptors": {0: graphs},
    }
    try:  # the exporter reports its steps on stdout and logs about its internals: neither is ours to show
        with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), _quiet_loggers():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                module, traced, dynamo=True, dynamic_shapes=shapes, input_names=list(INPUTS), output_names=list(OUTPUTS)
            )
    except Exception as exc:  # an architecture whose ops the exporter cannot express
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ScoremolError(f"ONNX export of a {model.model_config.arch} model failed: {first}") from None
    networks = directory / "networks.onnx"
    with atomic_write(networks, "wb") as handle:
        handle.write(program.model_proto.SerializeToString())
    difference = _check(networks, module, checks)
    trees, tree_difference = _export_trees(model, directory, sample)
    difference = max(difference, tree_difference)
    sidecar = directory / "model.json"
    with atomic_write(sidecar, "w") as handle:
        json.dump(_describe(model, trees, difference), handle, indent=2)
    return OnnxExport(networks, trees, sidecar, difference)


def _session_options():
    """ONNX Runtime options for the checks: errors only (CatBoost's files declare an output
    shape that ONNX Runtime warns about on every run)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    return options


@contextlib.contextmanager
def _quiet_loggers(names: tuple[str, ...] = ("torch.onnx", "torch.export", "onnxscript", "onnx_ir")):
    """Only errors from the exporter's loggers while it runs (it logs optional packages it skips)."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _check(path: Path, module: torch.nn.Module, batches: list[tuple[torch.Tensor, ...]]) -> float:
    """The largest |ONNX Runtime - PyTorch| over ``batches``; raises above :data:`TOLERANCE`."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), _session_options(), providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    worst = 0.0
    for inputs in batches:
        with torch.no_grad():
            expected = module(*inputs)
        feed = {name: t.numpy() for name, t in zip(INPUTS, inputs) if name in wanted}
        got = session.run(list(OUTPUTS), feed)
        for a, b in zip(got, expected):
            worst = max(worst, float(np.max(np.abs(a - b.numpy()), initial=0.0)))
    if not worst <= TOLERANCE:
        path.unlink(missing_ok=True)
        raise ScoremolError(f"ONNX Runtime differs from PyTorch by {worst:.3g} (allowed {TOLERANCE}); nothing written")
    return worst


def _export_trees(model: TrainedModel, directory: Path, sample) -> tuple[list[Path], float]:
    """Each target's blended CatBoost model in CatBoost's ONNX format (raw descriptors in,
    NaN for missing), and the largest |ONNX Runtime - CatBoost| on the sample molecules."""
    import onnxruntime as ort

    from scoremol.models.catboost import catboost_from_bytes

    if model.tree is None:
        return [], 0.0
    raw = sample.descriptors.astype(np.float32)
    raw[0, :3] = np.nan  # missing values take the same branch in both
    paths, worst = [], 0.0
    for k, blob in enumerate(model.tree.blobs):
        if blob is None:
            continue
        booster = catboost_from_bytes(blob)
        path = directory / f"tree_{k}.onnx"
        partial = directory / f".tree_{k}.onnx.partial"  # moved into place once checked
        booster.save_model(str(partial), format="onnx")
        session = ort.InferenceSession(str(partial), _session_options(), providers=["CPUExecutionProvider"])
        outputs = session.run(None, {session.get_inputs()[0].name: raw})
        if model.classify[k]:  # a classifier gives labels and {class: probability} maps: compare p(class 1)
            got = np.array([row[1] for row in outputs[1]], np.float64)
            want = 1.0 / (1.0 + np.exp(-booster.predict(raw)))  # a classifier's raw value is its logit
        else:
            got, want = np.asarray(outputs[0]).reshape(-1), booster.predict(raw)
        worst = max(worst, float(np.max(np.abs(got - want))))
        if not worst <= TOLERANCE:
            partial.unlink(missing_ok=True)
            raise ScoremolError(f"the ONNX tree differs from CatBoost by {worst:.3g} (allowed {TOLERANCE})")
        os.replace(partial, path)
        paths.append(path)
    return paths, worst


def _describe(model: TrainedModel, trees: list[Path], difference: float) -> dict:
    """The sidecar: what each input and output holds, in the order the arrays must follow."""
    from scoremol.version import __version__

    names = list(model.featurizer.descriptor_names)
    network_names = names if model.descriptor_columns is None else [names[i] for i in model.descriptor_columns]
    return {
        "scoremol": __version__,
        "inputs": list(INPUTS) if model.model_config.use_descriptors else list(INPUTS[:-1]),
        "outputs": list(OUTPUTS),
        "targets": list(model.target_names),
        "units": list(model.target_units),
        "standardize": bool(model.featurizer.standardize),
        "network_descriptors": network_names if model.model_config.use_descriptors else [],
        "tree_descriptors": names if model.tree is not None else [],
        "trees": {
            p.name: {"target": (t := int(p.stem.split("_")[1])), "weight": float(model.tree.weights[t])} for p in trees
        },
        "blend": "mean = (1 - weight) * networks.mean + weight * tree, per target with a tree (its own weight); "
        "for a yes/no target both terms are logits (the tree's: log(p / (1 - p)) of its 'probabilities' output for "
        "class 1) and the blended logit goes through the target's calibration",
        "kinds": list(model.target_kinds or ["regression"] * len(model.target_names)),
        "classes": [list(c) if c else None for c in (model.target_classes or [None] * len(model.target_names))],
        "calibration": [_probability_map(model, t) for t in range(len(model.target_names))],
        "max_difference_from_pytorch": difference,
    }


def _probability_map(model: TrainedModel, t: int) -> dict | None:
    """How a yes/no target's blended logit becomes its probability (None for a regression
    target): Platt's slope and intercept, or the isotonic curve's knots (linear between them)."""
    if not model.classify[t]:
        return None
    calibration = None if model.calibration is None else model.calibration[t]
    if calibration is None:
        return {"method": "sigmoid", "formula": "p = 1 / (1 + exp(-logit))"}
    if len(calibration.knots_x):
        return {"method": "isotonic", "knots_x": calibration.knots_x.tolist(), "knots_y": calibration.knots_y.tolist()}
    return {
        "method": "platt",
        "slope": calibration.slope,
        "intercept": calibration.intercept,
        "formula": "p = 1 / (1 + exp(-(slope * logit + intercept)))",
    }


__all__ = ["OnnxExport", "SAMPLE_SMILES", "export_onnx"]
