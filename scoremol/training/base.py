"""Start from a trained model (``--from MODEL``): fine-tuning instead of random weights.

Member ``k`` of the new model starts from member ``k`` of the base (cycling when the base has
fewer). The message passing, readout and hidden head layers carry over as they are; the
output layer keeps the rows of the base's targets that the new model also has (same label,
same units) and starts fresh for the others. A reused target keeps the base's scaling, so
its head's output means what it meant; the base's descriptor scaling is kept too (the
network learned on it). The blended tree, calibration and domain are fitted anew on the
user's molecules: the domain reads similarity to them, not to the base's training set.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import torch

from scoremol.data.scaling import TargetScaler
from scoremol.errors import ScoremolError
from scoremol.models.trained import TrainedModel
from scoremol.nn import ModelConfig

#: model settings that may differ between a base and its fine-tuned model
FREE_SETTINGS = ("n_targets", "dropout")


@dataclass
class BaseStart:
    """A base model ready to start members from: its file's name and checksum (what the new
    model records), the model, and for each new target the base target it reuses (or None)."""

    name: str
    sha256: str
    model: TrainedModel
    head_map: list[int | None]

    def record(self) -> dict:
        """What the fine-tuned model's file says of its base."""
        reused = [self.model.target_names[i] if i is not None else None for i in self.head_map]
        return {"name": self.name, "sha256": self.sha256, "targets": self.model.target_names, "reused": reused}


def base_path(name: str) -> Path:
    """The base's file: a model file, or a bundled model's when no such file exists."""
    from scoremol.pretrained import resolve_model

    path, _ = resolve_model(Path(name))
    if not path.is_file():
        raise ScoremolError(f"--from {name}: no such model file or bundled model")
    return path


def load_base(name: str, targets: list[str], units: list[str], kinds: list[str]) -> BaseStart:
    """Read the base and match the new ``targets`` to its heads: a target reuses the head of
    the base target with the same label, units and kind."""
    from scoremol.data.registry import target_label
    from scoremol.models.checkpoint import load_model

    path = base_path(name)
    model = load_model(path)
    if model.is_tree_only:
        raise ScoremolError(f"--from {name}: a CatBoost model has no networks to start from")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    base_kinds = model.target_kinds or ["regression"] * len(model.target_names)
    keys = [
        (target_label(t, u), u, k) for t, u, k in zip(model.target_names, model.target_units, base_kinds, strict=True)
    ]
    head_map = []
    for target, unit, kind in zip(targets, units, kinds, strict=True):
        key = (target_label(target, unit), unit, kind)
        head_map.append(keys.index(key) if key in keys else None)
    return BaseStart(name, digest, model, head_map)


#: spec fields that are model settings of the same name, checked before any work
SPEC_SETTINGS = ("arch", "mode", "dt", "steps", "integrator", "learnable_dt", "readout", "hidden", "heads")


def check_spec(spec) -> None:
    """Before any featurizing: the base exists, is a scoremol model, and has the networks the
    (resolved) spec asks for; the rest is checked once the data are featurized."""
    from scoremol.models.metadata import read_metadata

    meta = read_metadata(base_path(spec.base))
    if meta is None:
        raise ScoremolError(f"--from {spec.base}: not a scoremol model")
    if not meta.get("members"):
        raise ScoremolError(f"--from {spec.base}: a CatBoost model has no networks to start from")
    theirs = dict(meta["model_config"], descriptors=meta["model_config"].get("use_descriptors"))
    differ = [k for k in (*SPEC_SETTINGS, "descriptors") if getattr(spec, k) != theirs.get(k)]
    if differ:
        shown = ", ".join(f"{k} {theirs.get(k)!r} (not {getattr(spec, k)!r})" for k in differ[:4])
        raise ScoremolError(f"--from {spec.base}: its networks differ from this spec's: {shown}; give its settings")


def check_compatible(base: BaseStart, config: ModelConfig, network_descriptors: list[str], standardize: bool) -> None:
    """A one-line error when the new networks cannot start from the base's: another
    architecture or shape, other fused descriptors, other standardization."""
    mine, theirs = config.to_dict(), base.model.model_config.to_dict()
    differ = sorted(k for k in mine if k not in FREE_SETTINGS and mine[k] != theirs.get(k))
    if differ:
        shown = ", ".join(f"{k} {theirs.get(k)!r} (not {mine[k]!r})" for k in differ[:4])
        raise ScoremolError(f"--from {base.name}: its networks differ from this spec's: {shown}; give its settings")
    fused = base_descriptors(base.model)
    if config.use_descriptors and list(network_descriptors) != fused:
        raise ScoremolError(
            f"--from {base.name}: its networks fuse {len(fused)} descriptors, this spec {len(network_descriptors)} "
            "others: train with its descriptor set"
        )
    if base.model.featurizer.standardize != standardize:
        raise ScoremolError(f"--from {base.name}: it was trained with standardize={base.model.featurizer.standardize}")


def base_descriptors(model: TrainedModel) -> list[str]:
    """The descriptors the model's networks fuse, by name."""
    names = list(model.featurizer.descriptor_names)
    return names if model.descriptor_columns is None else [names[i] for i in model.descriptor_columns]


def start_scaler(base: BaseStart, fitted: TargetScaler) -> TargetScaler:
    """The new model's target scaling: the base's for a reused head, ``fitted`` otherwise."""
    mean, std = fitted.mean.copy(), fitted.std.copy()
    for t, i in enumerate(base.head_map):
        if i is not None:
            mean[t], std[t] = base.model.target_scaler.mean[i], base.model.target_scaler.std[i]
    return TargetScaler(mean, std)


def start_state(
    base_state: dict[str, torch.Tensor], head_map: list[int | None], fresh: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """A member's starting weights: a base member's ``base_state`` with its output layer's rows
    remapped to the new targets (``head_map``); ``fresh`` (a newly built member's weights)
    gives the rows of targets the base lacks."""
    state = {name: value.clone() for name, value in base_state.items()}
    name_w, name_b = output_layer(state)
    for name in (name_w, name_b):
        rows = fresh[name].clone()
        for t, i in enumerate(head_map):
            if i is not None:
                rows[t] = state[name][i]
        state[name] = rows
    return state


def output_layer(state: dict[str, torch.Tensor]) -> tuple[str, str]:
    """The names of the output layer's weight and bias in a member's state."""
    last = max(int(name.split(".")[2]) for name in state if name.startswith("head.lins."))
    return f"head.lins.{last}.weight", f"head.lins.{last}.bias"


def pull_penalty(model: torch.nn.Module, reference: dict[str, torch.Tensor], strength: float) -> torch.Tensor:
    """``strength`` times the squared distance of every weight but the output layer's from
    where it started (L2-SP): a pull toward the base that keeps what it learned."""
    skip = set(output_layer(reference))
    total = torch.zeros((), device=next(model.parameters()).device)
    for name, param in model.named_parameters():
        if name in reference and name not in skip:
            total = total + ((param - reference[name]) ** 2).sum()
    return strength * total


def base_for(
    spec, targets: list[str], units: list[str] | None, tasks, config: ModelConfig, data, fused
) -> BaseStart | None:
    """The spec's base (None without ``--from``), matched to ``targets`` and checked against
    the networks ``config`` describes (``fused``: the descriptors they fuse, None: every
    descriptor of ``data``)."""
    if spec.base is None:
        return None
    kinds = [t.kind for t in tasks] if tasks else ["regression"] * len(targets)
    base = load_base(spec.base, targets, list(units or [""] * len(targets)), kinds)
    names = list(fused or data.settings.descriptor_names) if spec.descriptors else []
    check_compatible(base, config, names, spec.standardize)
    return base
