"""``scoremol cv``: cross-validate a spec (networks, blends, or the CatBoost baseline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from scoremol.cli.app import app, console, info
from scoremol.cli.display import TrainingProgress
from scoremol.cli.options import OUTPUT, Format, SmilesCol, Target, training_options
from scoremol.spec import TrainingSpec

FOLDS = "Folds"


@app.command()
@training_options
def cv(
    input: Annotated[
        list[str],
        typer.Argument(
            metavar="INPUT...",
            show_default=False,
            help="CSV/TSV/SDF file, a data set name (esol, ...), or a features file; several inputs "
            "cross-validate one multi-task model on their merged molecules.",
        ),
    ],
    target: Target = None,
    smiles_col: SmilesCol = None,
    fmt: Format = None,
    folds: Annotated[
        int, typer.Option("--folds", help="Number of folds (not with --folds-file).", rich_help_panel=FOLDS)
    ] = 5,
    folds_file: Annotated[
        Optional[Path],
        typer.Option("--folds-file", help="CSV with columns row,fold (0-based data rows).", rich_help_panel=FOLDS),
    ] = None,
    split: Annotated[
        str, typer.Option("--split", help="random or scaffold (Bemis-Murcko groups kept whole).", rich_help_panel=FOLDS)
    ] = "random",
    repeats: Annotated[int, typer.Option("--repeats", help="Repeat with new random folds.", rich_help_panel=FOLDS)] = 1,
    output_dir: Annotated[
        Optional[Path],
        typer.Option(
            "--output-dir",
            "-o",
            help="Write cv_results.json, cv_folds.csv, oof_predictions.csv here.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON on standard output.", rich_help_panel=OUTPUT)
    ] = False,
    *,
    spec: TrainingSpec,
) -> None:
    """Cross-validate a model or baseline: per-fold metrics and mean +/- std."""
    from scoremol.training.cv import cross_validate, write_outputs
    from scoremol.training.setup import prepare_training

    job = prepare_training(input, spec, target, smiles_col, fmt)
    spec, data, targets = job.spec, job.data, job.targets
    for excluded in job.excluded:
        info(excluded.sentence())

    table = Table(title=f"cv: {spec.arch}" + ("" if spec.is_catboost else f" / {spec.mode}") + f" on {' '.join(input)}")
    for col in ("repeat", "fold", "train", "test", "RMSE", "MAE", "R2", "best epoch", "seconds", "parameters"):
        table.add_column(col, justify="right")
    members = 0 if spec.is_catboost else spec.ensemble
    with TrainingProgress(members, spec.epochs, label="fold 0") as progress:

        def on_fold(r) -> None:
            info(
                f"fold {r.fold} (repeat {r.repeat}): RMSE {r.rmse:.4f}  MAE {r.mae:.4f}  R2 {r.r2:.3f}  "
                f"{r.seconds:.1f} s"
            )
            table.add_row(
                str(r.repeat),
                str(r.fold),
                str(r.n_train),
                str(r.n_test),
                f"{r.rmse:.4f}",
                f"{r.mae:.4f}",
                f"{r.r2:.3f}",
                f"{r.best_epoch:.0f}",
                f"{r.seconds:.1f}",
                f"{r.parameters:,}",
            )
            progress.reset(f"fold {r.fold + 1}")

        run = cross_validate(
            data,
            targets if len(targets) > 1 else targets[0],
            spec,
            job.plan.network_descriptors,
            folds=folds,
            folds_file=folds_file,
            split=split,
            repeats=repeats,
            on_fold=on_fold,
            on_epoch=progress.epoch,
            on_phase=progress.phase,
            input_name=" ".join(input),
        )
    s = run.summary
    table.add_section()
    table.add_row(
        "",
        "mean",
        "",
        "",
        f"{s['rmse']['mean']:.4f} ± {s['rmse']['std']:.4f}",
        f"{s['mae']['mean']:.4f} ± {s['mae']['std']:.4f}",
        f"{s['r2']['mean']:.3f} ± {s['r2']['std']:.3f}",
        f"{s['best_epoch']['mean']:.0f}",
        f"{s['seconds']['mean']:.1f}",
        "",
    )
    console.print(table)
    for name, m in s.get("tasks", {}).items():
        console.print(
            f"{name}: RMSE {m['rmse']['mean']:.4f} ± {m['rmse']['std']:.4f}  MAE {m['mae']['mean']:.4f} ± "
            f"{m['mae']['std']:.4f}  R2 {m['r2']['mean']:.3f} ± {m['r2']['std']:.3f}"
        )
    if "uncertainty" in s:
        console.print(uncertainty_table(run.results, s["uncertainty"]["pooled"]))
    if output_dir is not None:
        write_outputs(output_dir, run, data, targets)
        info(f"wrote cv_results.json, cv_folds.csv, oof_predictions.csv to {output_dir}")
    if as_json:
        typer.echo(json.dumps(run.payload(), indent=2))


def uncertainty_table(results, pooled: dict) -> Table:
    """Observed coverage of the calibrated intervals, their width, how well width ranks
    errors, and RMSE in and out of the domain: per fold and pooled over all folds."""
    from scoremol.calibration.metrics import COVERAGES, coverage_key

    table = Table(title="intervals and domain (test folds)")
    for col in ("fold", *(f"cover {round(c * 100)} %" for c in COVERAGES), "width 90 %", "Spearman |err|~width"):
        table.add_column(col, justify="right")
    for col in ("RMSE in", "RMSE out", "out"):
        table.add_column(col, justify="right")

    def cells(m: dict) -> list[str]:
        return [
            *(f"{m[coverage_key(c)]:.3f}" for c in COVERAGES),
            f"{m['width_90']:.3f}",
            f"{m['spearman_error_width']:.3f}",
            f"{m['rmse_in']:.3f}",
            f"{m['rmse_out']:.3f}",
            f"{m['share_out']:.1%}",
        ]

    for r in results:
        table.add_row(f"{r.repeat}/{r.fold}" if r.repeat else str(r.fold), *cells(r.uncertainty_metrics))
    table.add_section()
    table.add_row("pooled", *cells(pooled))
    return table
