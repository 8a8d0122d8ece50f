"""``scoremol train``: fit what a :class:`~scoremol.spec.TrainingSpec` describes, save one model file."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from scoremol.cli.app import app, console, info, state
from scoremol.cli.options import dataclass_options
from scoremol.process import importing
from scoremol.spec import DEFAULT_COVERAGE, INPUT, OUTPUT, TrainingSpec
from scoremol.training.requests import DataColumns


@app.command()
@dataclass_options(spec=(TrainingSpec, TrainingSpec.from_options), columns=DataColumns)
def train(
    input: Annotated[
        list[str],
        typer.Argument(
            metavar="INPUT...",
            show_default=False,
            help="Training CSV/TSV/SDF, a data set name (esol, aqsoldb, biogen, ...), or a features file; "
            "several inputs train one multi-task model on their merged molecules.",
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Model file to write.", rich_help_panel=OUTPUT)] = Path(
        "model.pt"
    ),
    unlabelled: Annotated[
        str | None,
        typer.Option(
            help="Molecules without labels (a SMILES file or data set name) for the --teacher to label.",
            rich_help_panel=INPUT,
            metavar="FILE",
        ),
    ] = None,
    exclude: Annotated[
        str | None,
        typer.Option(
            help="Molecules (a SMILES file or data set name) to leave out of training, matched as merged "
            "inputs are. A teacher trained without some molecules lets its student calibrate on them.",
            rich_help_panel=INPUT,
            metavar="FILE",
        ),
    ] = None,
    *,
    spec: TrainingSpec,
    columns: DataColumns,
) -> None:
    """Train a model (networks, a blend, or --arch catboost) and save it as one self-describing file."""
    from scoremol.data.destination import check_destination

    check_destination(output, "-o", reads=[*input, unlabelled, exclude, spec.teacher])  # before minutes of work
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.models.checkpoint import save_model
        from scoremol.report.console import TrainingProgress, training_summary
        from scoremol.training.setup import fit_spec, prepare_training

    from scoremol.data.tasks import parse_task_types
    from scoremol.report.console import task_notes

    kinds = parse_task_types(columns.task_type)
    job = prepare_training(input, spec, columns.target, columns.smiles_col, columns.fmt, unlabelled, exclude, kinds)
    spec, data = job.spec, job.data
    for line in task_notes(job.tasks):
        info(line)
    if data.num_failed:
        info(f"{data.num_failed} of {data.num_rows} rows could not be featurized and are left out of training")
    for excluded in job.excluded:
        info(excluded.sentence())
    if exclude is not None:
        info(f"{job.left_out:,} training molecule(s) listed in {exclude} are left out")
    members = 0 if spec.is_catboost else spec.ensemble
    with TrainingProgress(members, spec.epochs, console=console, quiet=state["quiet"]) as progress:
        run = dict(units=job.units, on_epoch=progress.epoch, on_phase=progress.phase, tasks=job.tasks)
        model = fit_spec(data, job.targets, spec, job.plan.network_descriptors, rows=job.rows, **run)
    if model.metrics.get("calibrated_unseen_by_teacher") is False:
        info(
            "too few measured molecules are unknown to the teacher (or its file does not list its training "
            "molecules), so the intervals are calibrated on molecules whose labels it passed on and may be too "
            "narrow; train the teacher with --exclude to keep some from it"
        )
    for label, calibration in zip(model.target_labels, model.calibration or []):
        if not hasattr(calibration, "interval"):
            continue  # a yes/no target's sets are always bounded
        if math.isinf(calibration.quantile(DEFAULT_COVERAGE)):  # conformal: too few residuals to bound it
            info(
                f"{label}: only {calibration.size} held-out molecules calibrate its intervals, too few for a bounded "
                f"{DEFAULT_COVERAGE:.0%} interval: its _lo and _hi will be -inf and inf"
            )
    if spec.calibrate and not spec.is_catboost and model.calibration is None:
        from scoremol.training.holdout import MIN_HELD_OUT

        info(
            "too few molecules to hold out for calibration (each member holds out a fold; together at least "
            f"{MIN_HELD_OUT}): the model predicts without intervals, similarity or domain"
        )
    save_model(model, output)
    console.print(training_summary(model, spec, job.targets, output, job.excluded))
