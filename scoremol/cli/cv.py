"""``scoremol cv``: cross-validate a spec (networks, blends, or the CatBoost baseline)."""

from __future__ import annotations

import json

import typer

from scoremol.cli.app import app, console, info, state
from scoremol.cli.options import dataclass_options, input_argument
from scoremol.process import importing
from scoremol.spec import TrainingSpec
from scoremol.training.requests import CVPlan, DataColumns


@app.command()
@dataclass_options(spec=(TrainingSpec, TrainingSpec.from_options), columns=DataColumns, plan=CVPlan)
def cv(
    input: input_argument(
        "CSV/TSV/SDF file, a data set name (esol, ...), or a features file; several inputs "
        "cross-validate one multi-task model on their merged molecules."
    ),
    *,
    spec: TrainingSpec,
    columns: DataColumns,
    plan: CVPlan,
) -> None:
    """Cross-validate a model or baseline: per-fold metrics and mean +/- std."""
    from scoremol.data.destination import check_destination

    check_destination(plan.output_dir, "-o", reads=[*input, plan.folds_file], folder=True)
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.data.tasks import parse_task_types
        from scoremol.report import console as say
        from scoremol.training.cv import cross_validate
        from scoremol.training.cv_files import write_outputs
        from scoremol.training.setup import prepare_training

    kinds = parse_task_types(columns.task_type)
    job = prepare_training(input, spec, columns.target, columns.smiles_col, columns.fmt, task_types=kinds)
    spec, data, targets = job.spec, job.data, job.targets
    for line in say.preparation_notes(job):
        info(line)
    classify = bool(job.tasks) and job.tasks[0].classes is not None

    folds_table = say.FoldTable(
        f"cv: {spec.arch}" + ("" if spec.is_catboost else f" / {spec.mode}") + f" on {' '.join(input)}", classify
    )
    members = 0 if spec.is_catboost else spec.ensemble
    with say.TrainingProgress(members, spec.epochs, "fold 0", console, state["quiet"]) as progress:

        def on_fold(r) -> None:
            info(say.fold_line(r))
            folds_table.add(r)
            progress.reset(f"fold {r.fold + 1}")

        run = cross_validate(
            data,
            targets if len(targets) > 1 else targets[0],
            spec,
            job.plan.network_descriptors,
            folds=plan.folds,
            folds_file=plan.folds_file,
            split=plan.split,
            repeats=plan.repeats,
            on_fold=on_fold,
            on_epoch=progress.epoch,
            on_phase=progress.phase,
            input_name=" ".join(input),
            tasks=job.tasks,
            units=job.units,
        )
    left_out = run.config.get("rows_without_fold", 0)
    if left_out:
        info(f"{left_out:,} molecule(s) have no fold in {plan.folds_file}: never trained or tested on")
    s = run.summary
    folds_table.finish(s)
    console.print(folds_table.table)
    for line in say.task_lines(s):
        console.print(line)
    if "uncertainty" in s:
        console.print(say.uncertainty_table(run.results, s["uncertainty"]["pooled"]))
    if plan.output_dir is not None:
        write_outputs(plan.output_dir, run, data, targets)
        info(f"wrote cv_results.json, cv_folds.csv, oof_predictions.csv to {plan.output_dir}")
    if plan.json:
        typer.echo(json.dumps(run.payload(), indent=2, allow_nan=False))
