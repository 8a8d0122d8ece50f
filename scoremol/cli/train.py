"""``scoremol train``: fit what a :class:`~scoremol.spec.TrainingSpec` describes, save one model file."""

from __future__ import annotations

from scoremol.cli.app import app, console, info, state
from scoremol.cli.options import dataclass_options, input_argument
from scoremol.process import importing
from scoremol.spec import DEFAULT_COVERAGE, TrainingSpec
from scoremol.training.requests import DataColumns, TrainFiles


@app.command()
@dataclass_options(spec=(TrainingSpec, TrainingSpec.from_options), columns=DataColumns, files=TrainFiles)
def train(
    input: input_argument(
        "Training CSV/TSV/SDF, a data set name (esol, aqsoldb, biogen, ...), or a features file; "
        "several inputs train one multi-task model on their merged molecules."
    ),
    *,
    spec: TrainingSpec,
    columns: DataColumns,
    files: TrainFiles,
) -> None:
    """Train a model (networks, a blend, or --arch catboost) and save it as one self-describing file."""
    from scoremol.data.destination import check_destination

    output, exclude = files.output, files.exclude
    check_destination(output, "-o", reads=[*input, files.unlabelled, exclude, spec.teacher])  # before minutes of work
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.data.tasks import parse_task_types
        from scoremol.models.checkpoint import save_model
        from scoremol.report.console import TrainingProgress, preparation_notes, trained_notes, training_summary
        from scoremol.training.holdout import MIN_HELD_OUT
        from scoremol.training.setup import fit_spec, prepare_training

    kinds = parse_task_types(columns.task_type)
    job = prepare_training(
        input, spec, columns.target, columns.smiles_col, columns.fmt, files.unlabelled, exclude, kinds
    )
    spec = job.spec
    for line in preparation_notes(job, exclude):
        info(line)
    members = 0 if spec.is_catboost else spec.ensemble
    with TrainingProgress(members, spec.epochs, console=console, quiet=state["quiet"]) as progress:
        run = dict(units=job.units, on_epoch=progress.epoch, on_phase=progress.phase, tasks=job.tasks)
        model = fit_spec(job.data, job.targets, spec, job.plan.network_descriptors, rows=job.rows, **run)
    for line in trained_notes(model, spec, DEFAULT_COVERAGE, MIN_HELD_OUT):
        info(line)
    save_model(model, output)
    console.print(training_summary(model, spec, job.targets, output, job.excluded))
