"""The one source of training defaults: :class:`TrainingSpec` and its presets.

``scoremol train``/``cv``, :class:`scoremol.ScoreRegressor` and the low-level configs
(:class:`~scoremol.nn.ModelConfig`, :class:`~scoremol.training.fit.TrainConfig`) all take
their defaults from here, so the Python API builds what the command line builds. The values
were chosen by ESOL cross-validation on the shared folds (see BENCHMARKS.md).

This module imports neither torch nor RDKit: the command line reads it to print its help.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

#: Graph architectures (one block file each) and the descriptor-only ones.
GRAPH_ARCHITECTURES: tuple[str, ...] = ("gcn", "gat", "gine", "mpnn", "dmpnn", "attentivefp", "transformer")
DENSE_ARCHITECTURES: tuple[str, ...] = ("mlp", "score-mlp")
#: Baselines that train and predict through the same commands as the networks.
BASELINE_ARCHITECTURES: tuple[str, ...] = ("catboost",)

#: The settings a preset decides; any of them given explicitly wins over the preset.
PRESETS: dict[str, dict[str, Any]] = {
    # four networks fusing 17 cheap descriptors, a fixed 60 epochs each (trained side by
    # side, a core each), blended with CatBoost on 189 descriptors: ESOL 5-fold RMSE 0.517
    # (bench/speed_levers.py) in a quarter of accurate's training time
    "default": {
        "hidden": 128,
        "dropout": 0.2,
        "descriptors": True,
        "epochs": 60,
        "val_fraction": 0.0,
        "ensemble": 4,
        "blend_catboost": 0.4,
    },
    # five networks, up to 150 epochs each with early stopping on a held-out tenth,
    # blended with the same tree: ESOL 5-fold RMSE 0.514, minutes per fit
    "accurate": {
        "hidden": 128,
        "dropout": 0.2,
        "descriptors": True,
        "epochs": 150,
        "val_fraction": 0.1,
        "ensemble": 5,
        "blend_catboost": 0.4,
    },
    # one small graph-only network, 60 epochs (on nine tenths of the molecules when it
    # calibrates, on all of them with calibrate=False: ESOL 0.575 / 0.559),
    # about 20 s per fit, no RDKit descriptors at prediction time
    "fast": {
        "hidden": 64,
        "dropout": 0.0,
        "descriptors": False,
        "epochs": 60,
        "val_fraction": 0.0,
        "ensemble": 1,
        "blend_catboost": 0.0,
    },
}
DEFAULT_PRESET = "default"
#: the share of true values ``predict``'s intervals hold, unless ``--coverage`` says otherwise
DEFAULT_COVERAGE = 0.9


@dataclass(frozen=True)
class TrainingSpec:
    """Everything that decides what ``train`` builds, by the names the command line uses.

    Fields left ``None`` are decided by ``preset`` (see :data:`PRESETS`) or by ``arch``
    (``descriptor_set``: ``fast`` for graph networks, ``all`` for dense ones, ``tree``
    for CatBoost); :meth:`resolved` fills them in. ``blend_catboost`` is the weight of a
    CatBoost model on RDKit descriptors blended into the network mean (0 = none).
    """

    preset: str = DEFAULT_PRESET
    arch: str = "dmpnn"
    mode: str = "score"
    dt: float = 0.5
    steps: int = 4
    integrator: str = "euler"
    learnable_dt: bool = False
    readout: str = "molattfp"
    heads: int = 4
    hidden: int | None = None
    dropout: float | None = None
    descriptors: bool | None = None
    descriptor_set: str | None = None
    standardize: bool = True
    epochs: int | None = None
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 1e-5
    val_fraction: float | None = None
    patience: int = 30
    ensemble: int | None = None
    blend_catboost: float | None = None
    morgan: bool = False
    #: how several targets share the loss: 0 = every label counts once (a task with more
    #: labels weighs more), 1 = every task counts equally; between, label weights ~ n_t^-balance
    task_balance: float = 0.0
    calibrate: bool = True
    seed: int = 0
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        known = GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES + BASELINE_ARCHITECTURES
        if self.arch not in known:
            raise ValueError(f"unknown arch {self.arch!r}; choose one of {', '.join(known)}")
        if not 0.0 <= self.task_balance <= 1.0:
            raise ValueError(f"task_balance must be in [0, 1], got {self.task_balance}")

    @classmethod
    def from_options(cls, **options: Any) -> TrainingSpec:
        """A spec from keyword options; ``None`` means "not given" (the default applies),
        and an unknown name is a ``TypeError`` naming it."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise TypeError(f"unknown training option(s): {', '.join(unknown)}")
        return cls(**{k: v for k, v in options.items() if v is not None})

    @property
    def is_catboost(self) -> bool:
        return self.arch == "catboost"

    @property
    def is_dense(self) -> bool:
        return self.arch in DENSE_ARCHITECTURES

    def resolved(self) -> TrainingSpec:
        """The same spec with every preset- and architecture-dependent ``None`` filled in."""
        values = {name: getattr(self, name) for name in PRESETS[self.preset]}
        filled = {k: PRESETS[self.preset][k] if v is None else v for k, v in values.items()}
        if self.is_catboost:
            filled["blend_catboost"] = 0.0  # the baseline is the tree itself
            filled["ensemble"] = 1
            filled["descriptors"] = True
            if self.val_fraction is None:  # a fixed number of trees on every training molecule
                filled["val_fraction"] = 0.0
        if self.is_dense:
            filled["descriptors"] = True  # dense models read descriptors only
        descriptor_set = self.descriptor_set or ("tree" if self.is_catboost else "all" if self.is_dense else "fast")
        return dataclasses.replace(self, descriptor_set=descriptor_set, **filled)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: The default spec with everything filled in: what ``scoremol train`` builds.
DEFAULTS: TrainingSpec = TrainingSpec().resolved()
