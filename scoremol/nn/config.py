"""``ModelConfig``: everything needed to rebuild a model exactly, JSON round-trippable.

A saved model is (config JSON, state_dict); ``build_model(ModelConfig.from_dict(d))``
recreates the same module tree, so the state_dict loads with identical outputs.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch import nn

from scoremol.featurizers.layout import ATOM_DIM, BOND_DIM
from scoremol.nn.activations import ACTIVATIONS
from scoremol.nn.depth import Depth, validate_depth_args
from scoremol.spec import DEFAULTS, DENSE_ARCHITECTURES, GRAPH_ARCHITECTURES

ARCHITECTURES: tuple[str, ...] = GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES
READOUT_NAMES: tuple[str, ...] = ("molattfp", "sum", "mean")


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value!r}")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {list(choices)}")


@dataclass
class ModelConfig:
    """Hyperparameters of a graph or dense model; see ``build_model``.

    ``steps`` is K (stacked layers or SCORE steps); ``dt``/``integrator``/``learnable_dt``/
    ``step_norm`` go to :class:`~scoremol.nn.depth.Depth`. ``readout``/``readout_steps``
    only matter for graph architectures. Dense architectures (``mlp``, ``score-mlp``) read
    ``batch.descriptors`` only, so they need ``use_descriptors=True`` and
    ``descriptor_dim > 0``; ``score-mlp`` is by definition mode ``score`` (``mlp`` with
    mode ``score`` builds the same model). Validation runs at construction and again in
    ``build_model``; every bad value raises ``ValueError``.
    """

    arch: str = DEFAULTS.arch
    mode: str = DEFAULTS.mode
    dt: float = DEFAULTS.dt
    steps: int = DEFAULTS.steps
    integrator: str = DEFAULTS.integrator
    learnable_dt: bool = DEFAULTS.learnable_dt
    step_norm: bool = False
    readout: str = DEFAULTS.readout
    readout_steps: int = 2
    hidden: int = DEFAULTS.hidden
    dropout: float = DEFAULTS.dropout
    heads: int = DEFAULTS.heads
    head_hidden: tuple[int, ...] = (128, 64, 32)
    use_descriptors: bool = False
    descriptor_dim: int = 0
    atom_dim: int = ATOM_DIM
    bond_dim: int = BOND_DIM
    n_targets: int = 1
    activation: str = "relu"

    def __post_init__(self) -> None:
        if isinstance(self.head_hidden, list):
            self.head_hidden = tuple(self.head_hidden)
        self.validate()

    @property
    def is_dense(self) -> bool:
        """True for the descriptor-only architectures."""
        return self.arch in DENSE_ARCHITECTURES

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first invalid or inconsistent field."""
        _check_choice("arch", self.arch, ARCHITECTURES)
        validate_depth_args(self.mode, self.steps, self.dt, self.integrator, self.learnable_dt, self.step_norm)
        _check_choice("readout", self.readout, READOUT_NAMES)
        # upper bounds far past any useful model keep a hand-edited file from costing
        # unbounded time or memory per molecule
        _check_int("readout_steps", self.readout_steps, 1, 64)
        _check_int("hidden", self.hidden, 1, 4096)
        _check_int("heads", self.heads, 1, 64)
        _check_int("descriptor_dim", self.descriptor_dim, 0)
        _check_int("atom_dim", self.atom_dim, 1)
        _check_int("bond_dim", self.bond_dim, 1)
        _check_int("n_targets", self.n_targets, 1)
        d = self.dropout
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or not 0.0 <= d < 1.0:
            raise ValueError(f"dropout must be a number in [0, 1), got {d!r}")
        if not isinstance(self.head_hidden, tuple):
            raise ValueError(f"head_hidden must be a tuple/list of ints, got {self.head_hidden!r}")
        for width in self.head_hidden:
            _check_int("every head_hidden width", width, 1)
        if not isinstance(self.use_descriptors, bool):
            raise ValueError(f"use_descriptors must be a bool, got {self.use_descriptors!r}")
        _check_choice("activation", self.activation, tuple(ACTIVATIONS))
        if self.use_descriptors and self.descriptor_dim < 1:
            raise ValueError("use_descriptors=True needs descriptor_dim >= 1")
        if self.is_dense and not self.use_descriptors:
            raise ValueError(f"arch {self.arch!r} reads descriptors only: set use_descriptors=True and descriptor_dim")
        if self.arch == "score-mlp" and self.mode != "score":
            raise ValueError(
                f"arch 'score-mlp' is mode 'score' by definition, got mode "
                f"{self.mode!r}; use arch 'mlp' for stacked modes"
            )
        if self.arch == "transformer" and self.hidden % self.heads:
            raise ValueError(f"transformer needs hidden ({self.hidden}) divisible by heads ({self.heads})")

    def make_depth(self, make_block: Callable[[], nn.Module]) -> Depth:
        """The :class:`Depth` this config describes, around ``make_block``."""
        return Depth(
            make_block,
            self.mode,
            self.steps,
            self.dt,
            self.integrator,
            self.learnable_dt,
            self.step_norm,
            hidden=self.hidden,
            activation=self.activation,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict (``head_hidden`` as a list)."""
        out = dataclasses.asdict(self)
        out["head_hidden"] = list(self.head_hidden)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``, missing ones
        take their defaults."""
        if not isinstance(data, dict):
            raise ValueError(f"model config must be a dict, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown model config keys {unknown}; known: {sorted(known)}")
        kwargs = dict(data)
        if "head_hidden" in kwargs:
            hh = kwargs["head_hidden"]
            if not isinstance(hh, (list, tuple)):
                raise ValueError(f"head_hidden must be a list of ints, got {hh!r}")
            kwargs["head_hidden"] = tuple(hh)
        return cls(**kwargs)

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelConfig:
        """Inverse of :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"model config is not valid JSON: {exc}") from exc
        return cls.from_dict(data)
