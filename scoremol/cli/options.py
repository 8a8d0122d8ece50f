"""Options shared by several commands, defined once (Typer ``Annotated`` aliases).

The training options of ``train`` and ``cv`` are the fields of
:class:`~scoremol.spec.TrainingSpec`: :func:`training_options` adds them to a command and
hands the command one ``spec`` built from them by name, so a renamed field cannot silently
drop out and the help shows the spec's own defaults.
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Annotated, Optional

import typer

from scoremol.errors import ScoremolError
from scoremol.spec import (
    BASELINE_ARCHITECTURES,
    DENSE_ARCHITECTURES,
    GRAPH_ARCHITECTURES,
    PRESETS,
    TrainingSpec,
)

INPUT = "Input"
MODEL = "Model"
TRAINING = "Training"
OUTPUT = "Output"
RUN = "Run"
DISTRIBUTED = "Distributed (Dask)"

_DEF = TrainingSpec()


def _preset_help(text: str, key: str) -> str:
    values = "; ".join(f"{name}: {settings[key]:g}" for name, settings in PRESETS.items())
    return f"{text} [dim]\\[{values}][/dim]"


SmilesCol = Annotated[
    Optional[str],
    typer.Option(
        "--smiles-col", help="SMILES column of a CSV/TSV (default: smiles/SMILES/Smiles).", rich_help_panel=INPUT
    ),
]
Format = Annotated[
    Optional[str],
    typer.Option("--format", help="csv, tsv, smi or sdf (default: from the extension).", rich_help_panel=INPUT),
]
Standardize = Annotated[
    bool,
    typer.Option(
        "--standardize/--no-standardize",
        help="Keep the largest organic fragment, neutralize charges.",
        rich_help_panel=INPUT,
    ),
]
Workers = Annotated[
    Optional[int],
    typer.Option(
        "--workers",
        min=1,
        help="Processes for large inputs (default: all CPUs; 1 = one process).",
        rich_help_panel=RUN,
        show_default=False,
    ),
]
Device = Annotated[str, typer.Option("--device", help="cpu, cuda or auto.", rich_help_panel=RUN)]
Target = Annotated[
    Optional[list[str]],
    typer.Option(
        "--target",
        "-t",
        help="Target column; repeat for several (default: the data set's).",
        rich_help_panel=INPUT,
        show_default=False,
    ),
]

#: Each TrainingSpec field as a command-line parameter (name -> annotation, default).
_ARCHS = ", ".join(GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES + BASELINE_ARCHITECTURES)
_SPEC_OPTIONS: dict[str, tuple[object, object]] = {
    "preset": (
        Annotated[
            str,
            typer.Option(
                "--preset",
                help="default: 4 networks + descriptors + CatBoost blend, 60 epochs, trained a core "
                "each; accurate: 5 networks with early stopping over 150 epochs + the same blend (the "
                "previous default: about 4x the training time); fast: one small graph-only network "
                "(seconds to train, fastest prediction). Options given explicitly win.",
                rich_help_panel=MODEL,
            ),
        ],
        _DEF.preset,
    ),
    "arch": (Annotated[str, typer.Option("--arch", help=_ARCHS + ".", rich_help_panel=MODEL)], _DEF.arch),
    "mode": (
        Annotated[str, typer.Option("--mode", help="Depth mode: base, classic, skip, score.", rich_help_panel=MODEL)],
        _DEF.mode,
    ),
    "dt": (
        Annotated[float, typer.Option("--dt", help="Step size of skip/score updates.", rich_help_panel=MODEL)],
        _DEF.dt,
    ),
    "steps": (
        Annotated[int, typer.Option("--steps", help="K: stacked layers or SCORE steps.", rich_help_panel=MODEL)],
        _DEF.steps,
    ),
    "integrator": (
        Annotated[
            str, typer.Option("--integrator", help="euler, heun, midpoint, rk4 (score mode).", rich_help_panel=MODEL)
        ],
        _DEF.integrator,
    ),
    "learnable_dt": (
        Annotated[
            bool,
            typer.Option("--learnable-dt/--fixed-dt", help="Learn a step size per SCORE step.", rich_help_panel=MODEL),
        ],
        _DEF.learnable_dt,
    ),
    "readout": (
        Annotated[str, typer.Option("--readout", help="molattfp, sum, mean.", rich_help_panel=MODEL)],
        _DEF.readout,
    ),
    "hidden": (
        Annotated[
            Optional[int],
            typer.Option(
                "--hidden", help=_preset_help("Hidden width.", "hidden"), rich_help_panel=MODEL, show_default=False
            ),
        ],
        None,
    ),
    "dropout": (
        Annotated[
            Optional[float],
            typer.Option(
                "--dropout", help=_preset_help("Dropout.", "dropout"), rich_help_panel=MODEL, show_default=False
            ),
        ],
        None,
    ),
    "heads": (
        Annotated[int, typer.Option("--heads", help="Attention heads (gat, transformer).", rich_help_panel=MODEL)],
        _DEF.heads,
    ),
    "descriptors": (
        Annotated[
            Optional[bool],
            typer.Option(
                "--descriptors/--no-descriptors",
                help="Fuse RDKit 2D descriptors. [dim]\\[default, accurate: on; fast: off][/dim]",
                rich_help_panel=MODEL,
                show_default=False,
            ),
        ],
        None,
    ),
    "descriptor_set": (
        Annotated[
            Optional[str],
            typer.Option(
                "--descriptor-set",
                help="fast (17 cheap), tree, all, or a comma list of RDKit names "
                "[dim]\\[fast for graphs, all for mlp, tree for catboost][/dim]",
                rich_help_panel=MODEL,
                show_default=False,
            ),
        ],
        None,
    ),
    "morgan": (
        Annotated[
            bool,
            typer.Option(
                "--morgan/--no-morgan", help="CatBoost in cv: add Morgan count fingerprints.", rich_help_panel=MODEL
            ),
        ],
        _DEF.morgan,
    ),
    "standardize": (Standardize, _DEF.standardize),
    "calibrate": (
        Annotated[
            bool,
            typer.Option(
                "--calibrate/--no-calibrate",
                help="Each member holds out a tenth of the molecules (a fold each) to calibrate "
                "prediction intervals and the applicability domain; --no-calibrate trains every "
                "member on everything and predicts without intervals.",
                rich_help_panel=TRAINING,
            ),
        ],
        _DEF.calibrate,
    ),
    "epochs": (
        Annotated[
            Optional[int],
            typer.Option(
                "--epochs", help=_preset_help("Epochs at most.", "epochs"), rich_help_panel=TRAINING, show_default=False
            ),
        ],
        None,
    ),
    "batch_size": (
        Annotated[int, typer.Option("--batch-size", help="Molecules per step.", rich_help_panel=TRAINING)],
        _DEF.batch_size,
    ),
    "lr": (
        Annotated[
            float, typer.Option("--lr", help="Peak learning rate (AdamW, warmup, cosine).", rich_help_panel=TRAINING)
        ],
        _DEF.lr,
    ),
    "weight_decay": (Annotated[float, typer.Option("--weight-decay", rich_help_panel=TRAINING)], _DEF.weight_decay),
    "val_fraction": (
        Annotated[
            Optional[float],
            typer.Option(
                "--val-fraction",
                help=_preset_help(
                    "Held out for early stopping; 0 trains all epochs on every molecule (also CatBoost's default).",
                    "val_fraction",
                ),
                rich_help_panel=TRAINING,
                show_default=False,
            ),
        ],
        None,
    ),
    "patience": (
        Annotated[
            int,
            typer.Option("--patience", help="Epochs without improvement before stopping.", rich_help_panel=TRAINING),
        ],
        _DEF.patience,
    ),
    "ensemble": (
        Annotated[
            Optional[int],
            typer.Option(
                "--ensemble",
                help=_preset_help("Members, each with its own seed and split.", "ensemble"),
                rich_help_panel=TRAINING,
                show_default=False,
            ),
        ],
        None,
    ),
    "blend_catboost": (
        Annotated[
            Optional[float],
            typer.Option(
                "--blend-catboost",
                help=_preset_help(
                    "Weight of a CatBoost model on RDKit descriptors blended into the prediction (0 = off).",
                    "blend_catboost",
                ),
                rich_help_panel=TRAINING,
                show_default=False,
            ),
        ],
        None,
    ),
    "task_balance": (
        Annotated[
            float,
            typer.Option(
                "--task-balance",
                min=0.0,
                max=1.0,
                help="Several targets: 0 = every label counts once, 1 = every task counts equally.",
                rich_help_panel=TRAINING,
            ),
        ],
        _DEF.task_balance,
    ),
    "seed": (Annotated[int, typer.Option("--seed", rich_help_panel=TRAINING)], _DEF.seed),
    "device": (Device, _DEF.device),
}


def training_options(command):
    """Add every :class:`TrainingSpec` field as an option of ``command``, which receives
    them as one ``spec`` keyword argument (built by name; a bad value is a one-line error)."""
    hints = typing.get_type_hints(command, include_extras=True)  # real objects, not strings
    own = [
        p.replace(annotation=hints.get(name, p.annotation))
        for name, p in inspect.signature(command).parameters.items()
        if name != "spec"
    ]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
        for name, (annotation, default) in _SPEC_OPTIONS.items()
    ]
    # keyword-only parameters must follow the command's own (which have defaults or not)
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]

    @functools.wraps(command)
    def wrapper(**kwargs):
        options = {name: kwargs.pop(name) for name in _SPEC_OPTIONS}
        try:
            spec = TrainingSpec.from_options(**options)
        except ValueError as exc:
            raise ScoremolError(str(exc)) from None
        return command(spec=spec, **kwargs)

    wrapper.__signature__ = inspect.Signature(own + added)
    return wrapper
