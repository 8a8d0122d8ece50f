"""``scoremol train``: fit what a :class:`~scoremol.spec.TrainingSpec` describes, save one model file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from scoremol.cli.app import app, console, info
from scoremol.cli.display import TrainingProgress
from scoremol.cli.options import OUTPUT, Format, SmilesCol, Target, training_options
from scoremol.spec import TrainingSpec


@app.command()
@training_options
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
    target: Target = None,
    smiles_col: SmilesCol = None,
    fmt: Format = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Model file to write.", rich_help_panel=OUTPUT)] = Path(
        "model.pt"
    ),
    *,
    spec: TrainingSpec,
) -> None:
    """Train a model (networks, a blend, or --arch catboost) and save it as one self-describing file."""
    from scoremol.models.checkpoint import save_model
    from scoremol.training.setup import fit_spec, prepare_training

    job = prepare_training(input, spec, target, smiles_col, fmt)
    spec, data = job.spec, job.data
    if data.num_failed:
        info(f"{data.num_failed} of {data.num_rows} rows could not be featurized and are left out of training")
    for excluded in job.excluded:
        info(excluded.sentence())
    with TrainingProgress(0 if spec.is_catboost else spec.ensemble, spec.epochs) as progress:
        model = fit_spec(
            data,
            job.targets,
            spec,
            job.plan.network_descriptors,
            units=job.units,
            on_epoch=progress.epoch,
            on_phase=progress.phase,
        )
    save_model(model, output)
    console.print(_summary(model, spec, job.targets, output, job.excluded))


def _summary(model, spec: TrainingSpec, targets: list[str], output: Path, excluded=()) -> Table:
    m = model.metrics
    table = Table(title="train", show_header=False)
    if spec.is_catboost:
        table.add_row("model", "CatBoost on RDKit descriptors")
    else:
        depth = f" dt={spec.dt}" if spec.mode in ("skip", "score") else ""
        table.add_row(
            "model",
            f"{spec.arch} / {spec.mode}{depth} K={spec.steps}, readout {spec.readout}"
            + (", + descriptors" if model.model_config.use_descriptors else ""),
        )
    table.add_row("targets", ", ".join(targets))
    table.add_row("molecules", str(m["n_train_molecules"]))
    for item in excluded:
        table.add_row(
            f"left out ({item.target})",
            f"{len(item.rows)} unusable value(s): rows {', '.join(map(str, item.rows[:5]))}",
        )
    if len(targets) > 1:
        for name, count in (m.get("labels") or {}).items():
            table.add_row(f"  labelled {name}", str(count))
    if model.members:
        bv = m["best_val_rmse_mean"]
        table.add_row("best val RMSE", "n/a (no validation split)" if bv is None else f"{bv:.4f}")
        table.add_row("epochs (best)", ", ".join(f"{mm.epochs_run} ({mm.best_epoch})" for mm in model.members))
        table.add_row(
            "parameters",
            f"{m['parameters']:,}" + (f" x {len(model.members)} members" if len(model.members) > 1 else ""),
        )
    if model.tree is not None:
        kind = "CatBoost" if model.is_tree_only else f"CatBoost blend, weight {model.tree.weight:g}"
        table.add_row(kind, " / ".join(str(n) for n in model.tree.best_iterations) + " trees")
    table.add_row("seconds", f"{m['seconds']:.1f}")
    table.add_row("saved", str(output))
    return table
