"""The one source of training defaults: :class:`TrainingSpec` and its presets.

``scoremol train``/``cv``, :class:`scoremol.ScoreRegressor` and the low-level configs
(:class:`~scoremol.nn.ModelConfig`, :class:`~scoremol.training.fit.TrainConfig`) all take
their defaults from here, so the Python API builds what the command line builds. The values
were chosen by ESOL cross-validation on the shared folds (see BENCHMARKS.md).

This module imports neither torch nor RDKit: the command line reads it to print its help.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, Literal

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
        "domain_dims": 0,
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
        "domain_dims": 0,
    },
    # one small graph-only network, 60 epochs (on nine tenths of the molecules when it
    # calibrates, on all of them with calibrate=False: ESOL 0.575 / 0.559),
    # about 20 s per fit, no RDKit descriptors at prediction time; its domain finds
    # neighbours in 16 principal components (a third less search time)
    "fast": {
        "hidden": 64,
        "dropout": 0.0,
        "descriptors": False,
        "epochs": 60,
        "val_fraction": 0.0,
        "ensemble": 1,
        "blend_catboost": 0.0,
        "domain_dims": 16,
    },
}
DEFAULT_PRESET = "default"
#: what fine-tuning (``--from``) changes where an option is left to the preset: fewer epochs
#: from weights that already know chemistry (not yet measured against other schedules)
FINE_TUNE: dict[str, Any] = {"epochs": 30}
#: the share of true values ``predict``'s intervals hold, unless ``--coverage`` says otherwise
DEFAULT_COVERAGE = 0.9


#: The help panels the command line groups the options in.
MODEL, TRAINING, INPUT, RUN = "Model", "Training", "Input", "Run"
OUTPUT, DISTRIBUTED = "Output", "Distributed (Dask)"
#: help texts several commands share
SMILES_COL_HELP = "SMILES column of a CSV/TSV (default: smiles/SMILES/Smiles)."
FORMAT_HELP = "csv, tsv, smi, sdf or parquet (default: from the extension)."
WORKERS_HELP = "Processes for large inputs (default: all CPUs; 1 = one process)."

Preset = Literal[tuple(PRESETS)]
Arch = Literal[GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES + BASELINE_ARCHITECTURES]
Mode = Literal["base", "classic", "skip", "score"]
Integrator = Literal["euler", "heun", "midpoint", "rk4"]
Readout = Literal["molattfp", "sum", "mean"]
Device = Literal["cpu", "cuda", "auto"]


def option(
    default: Any,
    help: str,
    panel: str,
    flag: str | None = None,
    short: str | None = None,
    negatable: bool = True,
    metavar: str | None = None,
    **bounds: float,
) -> Any:
    """A spec field with what the command line shows for it: help text, help panel, the
    flag when it is not ``--name`` (``--x/--no-x`` for switches unless not ``negatable``),
    a ``short`` flag (``-m``), a ``metavar`` for the help and ``min``/``max`` bounds. The
    command line builds its options from these (``cli.options``)."""
    meta = {"help": help, "panel": panel, "flag": flag, "short": short, "negatable": negatable, "bounds": bounds}
    if metavar is not None:
        meta["metavar"] = metavar
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class TrainingSpec:
    """Everything that decides what ``train`` builds, by the names the command line uses.

    Fields left ``None`` are decided by ``preset`` (see :data:`PRESETS`) or by ``arch``
    (``descriptor_set``: ``fast`` for graph networks, ``all`` for dense ones, ``tree``
    for CatBoost); :meth:`resolved` fills them in. ``blend_catboost`` > 0 blends a CatBoost
    model on RDKit descriptors into the network mean, with that weight unless held-out
    molecules choose one per target (0 = none). Each
    field's metadata holds its command-line help (:func:`option`).
    """

    preset: Preset = option(
        DEFAULT_PRESET,
        "default: 4 networks + descriptors + CatBoost blend, 60 epochs, trained a core each; accurate: 5 "
        "networks with early stopping over 150 epochs + the same blend (the previous default: about 4x the "
        "training time); fast: one small graph-only network (seconds to train, fastest prediction). "
        "Options given explicitly win.",
        MODEL,
    )
    arch: Arch = option("dmpnn", "Architecture: one block file each (graph), dense on descriptors, or the tree.", MODEL)
    mode: Mode = option("score", "Depth mode.", MODEL)
    dt: float = option(0.5, "Step size of skip/score updates.", MODEL)
    steps: int = option(4, "K: stacked layers or SCORE steps.", MODEL)
    integrator: Integrator = option("euler", "Integrator of score mode.", MODEL)
    learnable_dt: bool = option(False, "Learn a step size per SCORE step.", MODEL, "--learnable-dt/--fixed-dt")
    readout: Readout = option("molattfp", "Graph readout.", MODEL)
    heads: int = option(4, "Attention heads (gat, transformer).", MODEL)
    hidden: int | None = option(None, "Hidden width.", MODEL)
    dropout: float | None = option(None, "Dropout.", MODEL)
    descriptors: bool | None = option(None, "Fuse RDKit 2D descriptors.", MODEL)
    descriptor_set: str | None = option(
        None,
        "fast (17 cheap), tree, all, or a comma list of RDKit names [fast for graphs, all for mlp, tree for catboost]",
        MODEL,
    )
    standardize: bool = option(True, "Keep the largest organic fragment, neutralize charges.", INPUT)
    epochs: int | None = option(None, "Epochs at most.", TRAINING)
    batch_size: int = option(32, "Molecules per step.", TRAINING)
    lr: float = option(1e-3, "Peak learning rate (AdamW, warmup, cosine).", TRAINING)
    weight_decay: float = option(1e-5, "AdamW weight decay.", TRAINING)
    val_fraction: float | None = option(
        None, "Held out for early stopping; 0 trains all epochs on every molecule (also CatBoost's default).", TRAINING
    )
    patience: int = option(30, "Epochs without improvement before stopping.", TRAINING)
    ensemble: int | None = option(None, "Members, each with its own seed and split.", TRAINING)
    blend_catboost: float | None = option(
        None,
        "Blend a CatBoost model on RDKit descriptors into the prediction (0 = off). A calibrating model "
        "chooses each target's weight (0-0.9) on its held-out molecules; this weight serves otherwise.",
        TRAINING,
    )
    morgan: bool = option(False, "CatBoost in cv: add Morgan count fingerprints.", MODEL)
    task_balance: float = option(
        0.0,
        "Several targets: 0 = every label counts once (a task with more labels weighs more), 1 = every task "
        "counts equally; between, label weights ~ n_t^-balance.",
        TRAINING,
        min=0.0,
        max=1.0,
    )
    class_weights: bool = option(
        False,
        "Yes/no targets: weigh positive labels by negatives/positives in the loss (balanced classes); off by "
        "default: calibration, not the loss, makes the probabilities right.",
        TRAINING,
    )
    calibrate: bool = option(
        True,
        "Each member holds out a tenth of the molecules (a fold each) to calibrate prediction intervals and the "
        "applicability domain; --no-calibrate trains every member on everything and predicts without intervals.",
        TRAINING,
    )
    holdout: Literal["random", "scaffold"] = option(
        "random",
        "How members choose the molecules they hold out to calibrate: random, or scaffold (Bemis-Murcko groups "
        "kept whole, so intervals and the domain are sized for new series).",
        TRAINING,
    )
    neighbours: int = option(
        0,
        "Training molecules the domain's similarity averages over, e.g. 1 or 10 (0: whichever of 1 and 10 ranks "
        "the held-out errors better).",
        TRAINING,
        min=0,
    )
    domain_dims: int | None = option(
        None,
        "Find the domain's nearest training molecules in this many principal components of the embeddings "
        "(their distances still use every dimension): a faster search for small models; 0 = every dimension.",
        TRAINING,
        min=0,
    )
    teacher: str | None = option(
        None,
        "Distill: a model file or bundled model (e.g. multitask) labels what the training data lack (each "
        "molecule's unmeasured targets, every --unlabelled molecule); measured labels stay, and intervals are "
        "calibrated on them only.",
        TRAINING,
        metavar="MODEL",
    )
    base: str | None = option(
        None,
        "Fine-tune: start every network from a member of this model file or bundled model (same architecture and "
        "descriptors); targets it has (same label and units) keep its heads, others get new ones.",
        TRAINING,
        "--from",
        metavar="MODEL",
    )
    base_pull: float = option(
        0.0, "With --from: pull the weights toward the base's (L2-SP strength; 0 = none).", TRAINING, min=0.0
    )
    base_freeze: int = option(
        0,
        "With --from: train only the heads (the layers after the readout) for this many epochs first, then every "
        "layer (0 = every layer from the start).",
        TRAINING,
        min=0,
    )
    seed: int = option(0, "Seed of every random choice.", TRAINING)
    device: Device = option("cpu", "cpu, cuda or auto.", RUN)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        known = GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES + BASELINE_ARCHITECTURES
        if self.arch not in known:
            raise ValueError(f"unknown arch {self.arch!r}; choose one of {', '.join(known)}")
        if not 0.0 <= self.task_balance <= 1.0:
            raise ValueError(f"task_balance must be in [0, 1], got {self.task_balance}")
        if self.holdout not in ("random", "scaffold"):
            raise ValueError(f"unknown holdout {self.holdout!r}; choose random or scaffold")

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
        preset = {**PRESETS[self.preset], **(FINE_TUNE if self.base else {})}
        filled = {k: preset[k] if v is None else v for k, v in values.items()}
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
