"""What the terminal shows: summary tables and the training progress display (Rich).

The command line prints these on standard error; a notebook can print them too.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from scoremol.spec import TrainingSpec


def failed_rows_table(statuses: list[str], reasons: list[str], smiles: list[str], limit: int = 10) -> Table | None:
    """The first ``limit`` rows that could not be featurized, or None when all could (rows
    numbered from 1, the first data row, as every message numbers them)."""
    bad = [(i, s, r) for i, (st, r, s) in enumerate(zip(statuses, reasons, smiles)) if st != "ok"]
    if not bad:
        return None
    table = Table(title=f"{len(bad)} row(s) not featurized" + (f" (first {limit})" if len(bad) > limit else ""))
    table.add_column("row", justify="right")
    table.add_column("SMILES")
    table.add_column("reason")
    for i, s, r in bad[:limit]:
        table.add_row(str(i + 1), s[:60], r)
    return table


class Throughput:
    """Progress lines of a prediction run (rows and molecules per second), when ``show``."""

    def __init__(self, console: Console, show: bool) -> None:
        self.console, self.show, self.start = console, show, time.perf_counter()

    def chunk(self, rows: int, ok: int) -> None:
        if self.show:
            rate = rows / max(time.perf_counter() - self.start, 1e-9)
            self.console.print(f"{rows:,} rows, {ok:,} predicted, {rate:,.0f} rows/s", highlight=False)

    def shard(self, done: int, total: int, rows: int, ok: int) -> None:
        if self.show:
            rate = rows / max(time.perf_counter() - self.start, 1e-9)
            self.console.print(f"shard {done:,}/{total:,}: {rows:,} rows, {rate:,.0f} molecules/s", highlight=False)


def featurize_summary(input: str, output: Path, done, standardize: bool) -> Table:
    """What ``featurize`` made: molecules, failures, standardization, descriptors, time."""
    import numpy as np

    data = done.data
    summary = Table(title="featurize", show_header=False)
    summary.add_row("input", input)
    summary.add_row("molecules", f"{data.num_graphs}/{data.num_rows} featurized")
    summary.add_row("failures", str(data.num_failed))
    notes = sum(1 for s, r in zip(data.status, data.reason) if s == "ok" and r)
    summary.add_row("standardized", f"{notes} changed" if standardize else "off")
    if data.descriptors is not None:
        missing = int(np.isnan(data.descriptors).sum())
        summary.add_row("descriptors", f"{data.descriptors.shape[1]} per molecule, {missing} missing/non-finite")
    summary.add_row("seconds", f"{done.seconds:.2f}" + (" (cache hit)" if done.cache_hit else ""))
    summary.add_row("output", str(output))
    return summary


def models_tables() -> list[Table]:
    """The bundled models (name, training data, accuracy, speed, size), then per multi-task
    model one row per task: its column, the question it answers, its benchmark."""
    from scoremol.pretrained import DEFAULT_MODEL, MODELS

    table = Table(title="bundled models (predict --model NAME)")
    for column in ("name", "model", "trained on", "benchmark", "speed (2 CPU cores)", "file"):
        table.add_column(column)
    for m in MODELS.values():
        size = f"{m.path.stat().st_size / 1e6:.1f} MB" if m.path.is_file() else "missing"
        name = f"{m.name} (default)" if m.name == DEFAULT_MODEL else m.name
        table.add_row(name, m.description, m.training_data, m.benchmark, m.speed, size)
    tables = [table]
    for m in MODELS.values():
        if m.tasks:
            tasks = Table(title=f"{m.name}: one column group per task")
            for column in ("column", "answers", "benchmark"):
                tasks.add_column(column)
            for task in m.tasks:
                tasks.add_row(task.column, task.question, task.benchmark)
            tables.append(tasks)
    return tables


def training_summary(model, spec: TrainingSpec, targets: list[str], output: Path, excluded=()) -> Table:
    """What ``train`` built: the model, targets, molecules, members, blend and time."""
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
    classes = model.target_classes or [None] * len(targets)
    table.add_row(
        "targets",
        ", ".join(t if c is None else f"{t} (yes/no: {c[0]} / {c[1]})" for t, c in zip(targets, classes)),
    )
    table.add_row("molecules", str(m["n_train_molecules"]))
    for item in excluded:
        table.add_row(
            f"left out ({item.target})",
            f"{len(item.rows)} unusable value(s): rows {', '.join(map(str, item.rows[:5]))}",
        )
    taught = m.get("teacher_labels") or {}
    if len(targets) > 1 or taught:
        for name, count in (m.get("labels") or {}).items():
            by_teacher = taught.get(name, 0)
            label = f"{count - by_teacher} measured + {by_teacher} by the teacher" if taught else str(count)
            table.add_row(f"  labelled {name}", label)
    if model.members:
        bv = m["best_val_rmse_mean"]
        table.add_row("best val RMSE", "n/a (no validation split)" if bv is None else f"{bv:.4f}")
        table.add_row("epochs (best)", ", ".join(f"{mm.epochs_run} ({mm.best_epoch})" for mm in model.members))
        table.add_row(
            "parameters",
            f"{m['parameters']:,}" + (f" x {len(model.members)} members" if len(model.members) > 1 else ""),
        )
    if model.tree is not None:
        kind = (
            "CatBoost"
            if model.is_tree_only
            else "CatBoost blend, weight " + " / ".join(f"{w:g}" for w in model.tree.weights)
        )
        table.add_row(kind, " / ".join(str(n) for n in model.tree.best_iterations) + " trees")
    table.add_row("seconds", f"{m['seconds']:.1f}")
    table.add_row("saved", str(output))
    return table


class FoldTable:
    """The per-fold table of ``cv``: :meth:`add` a fold result as it finishes, then
    :meth:`finish` with the summary (mean +/- std) and print :attr:`table`."""

    COLUMNS = ("repeat", "fold", "train", "test", "RMSE", "MAE", "R2", "best epoch", "seconds", "parameters")
    #: a yes/no first target's columns in place of RMSE, MAE and R2 (metric key, header)
    CLASS_COLUMNS = (
        ("auroc", "AUROC"),
        ("auprc", "AUPRC"),
        ("balanced_accuracy", "bal. acc."),
        ("brier", "Brier"),
        ("ece", "ECE"),
    )

    def __init__(self, title: str, classification: bool = False) -> None:
        self.table = Table(title=title)
        self.classification = classification
        scores = [h for _, h in self.CLASS_COLUMNS] if classification else ["RMSE", "MAE", "R2"]
        for col in (*self.COLUMNS[:4], *scores, *self.COLUMNS[7:]):
            self.table.add_column(col, justify="right")

    def add(self, r) -> None:
        if self.classification:
            scores = [f"{r.class_metrics[k]:.4f}" for k, _ in self.CLASS_COLUMNS]
        else:
            scores = [f"{r.rmse:.4f}", f"{r.mae:.4f}", f"{r.r2:.3f}"]
        self.table.add_row(
            str(r.repeat),
            str(r.fold),
            str(r.n_train),
            str(r.n_test),
            *scores,
            f"{r.best_epoch:.0f}",
            f"{r.seconds:.1f}",
            f"{r.parameters:,}",
        )

    def finish(self, s: dict) -> None:
        self.table.add_section()
        self.table.add_row(
            "",
            "mean",
            "",
            "",
            *(
                [f"{s[k]['mean']:.4f} ± {s[k]['std']:.4f}" for k, _ in self.CLASS_COLUMNS]
                if self.classification
                else [
                    f"{s['rmse']['mean']:.4f} ± {s['rmse']['std']:.4f}",
                    f"{s['mae']['mean']:.4f} ± {s['mae']['std']:.4f}",
                    f"{s['r2']['mean']:.3f} ± {s['r2']['std']:.3f}",
                ]
            ),
            f"{s['best_epoch']['mean']:.0f}",
            f"{s['seconds']['mean']:.1f}",
            "",
        )


def task_lines(summary: dict) -> list[str]:
    """One line per task of a multi-task cv: mean +/- std of each of its metrics (RMSE, MAE
    and R2; a yes/no task's AUROC, AUPRC, balanced accuracy, Brier score and ECE)."""
    names = {"rmse": "RMSE", "mae": "MAE", "r2": "R2", "balanced_accuracy": "bal. acc.", "auroc": "AUROC"}
    names.update(auprc="AUPRC", brier="Brier", ece="ECE")
    return [
        f"{name}: " + "  ".join(f"{names.get(k, k)} {v['mean']:.4f} ± {v['std']:.4f}" for k, v in m.items())
        for name, m in summary.get("tasks", {}).items()
    ]


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


class TrainingProgress:
    """Progress on stderr: one bar per ensemble member (epochs, time left, losses), a note
    when a member stops early, and a line when the CatBoost phase starts.

    Used as ``with TrainingProgress(members, epochs, label) as show: fit(on_epoch=show.epoch,
    on_phase=show.phase)``; ``reset(label)`` starts the bars again (the next cv fold).
    """

    def __init__(
        self, members: int, epochs: int, label: str = "", console: Console | None = None, quiet: bool = False
    ) -> None:
        self.members, self.epochs = members, epochs
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=quiet,
        )
        self.tasks: list = []
        self._label = label

    def __enter__(self) -> TrainingProgress:
        self.progress.__enter__()
        return self

    def reset(self, label: str = "") -> None:
        """Hide the current bars; the next epoch starts new ones under ``label`` (the next cv
        fold), so nothing is shown for a run that never starts."""
        for task in self.tasks:
            self.progress.update(task, visible=False)
        self.tasks, self._label = [], label

    def _bars(self) -> list:
        if not self.tasks:
            prefix = f"{self._label} " if self._label else ""
            self.tasks = [
                self.progress.add_task(f"{prefix}member {k + 1}", total=self.epochs, stats="")
                for k in range(self.members)
            ]
        return self.tasks

    def epoch(self, member: int, record: dict) -> None:
        stats = f"loss {record['train_loss']:.3f}"
        if "val_rmse" in record:
            stats += f" val {record['val_rmse']:.3f} best {record['best_val_rmse']:.3f}"
        self.progress.update(self._bars()[member], completed=record["epoch"], stats=stats)
        if "stopped_early_best_epoch" in record:  # early stopping ends this member now
            self.progress.update(self.tasks[member], total=record["epoch"])
            self.progress.console.print(
                f"member {member + 1} stopped early at epoch {record['epoch']} (best epoch "
                f"{record['stopped_early_best_epoch']}, no improvement for the patience)",
                highlight=False,
            )

    def phase(self, name: str) -> None:
        self.progress.console.print(f"{name}: fitting ...", highlight=False)

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)


def task_notes(tasks) -> list[str]:
    """What the training summary says of each target's kind: every yes/no target, and every
    numeric target with two values that was kept a regression."""
    notes = []
    for t in tasks:
        if t.classes is not None:
            notes.append(f"{t.target}: classification, classes {t.classes[0]} / {t.classes[1]} (positive) ({t.why})")
        elif "two values" in t.why:
            notes.append(f"{t.target}: regression ({t.why})")
    return notes


def preparation_notes(job, exclude: str | None = None) -> list[str]:
    """What ``train`` and ``cv`` say before training: each target's kind where it was
    decided for the user, rows that could not be featurized, and molecules left out."""
    notes = task_notes(job.tasks)
    data = job.data
    if data.num_failed:
        notes.append(f"{data.num_failed} of {data.num_rows} rows could not be featurized and are left out of training")
    notes += [excluded.sentence() for excluded in job.excluded]
    if exclude is not None:
        notes.append(f"{job.left_out:,} training molecule(s) listed in {exclude} are left out")
    return notes


def trained_notes(model, spec: TrainingSpec, coverage: float, min_held_out: int) -> list[str]:
    """What ``train`` warns of once fitted: intervals calibrated on molecules the teacher
    labelled, intervals too few held-out molecules bound, no calibration at all."""
    notes = []
    if model.metrics.get("calibrated_unseen_by_teacher") is False:
        notes.append(
            "too few measured molecules are unknown to the teacher (or its file does not list its training "
            "molecules), so the intervals are calibrated on molecules whose labels it passed on and may be too "
            "narrow; train the teacher with --exclude to keep some from it"
        )
    for label, calibration in zip(model.target_labels, model.calibration or []):
        if hasattr(calibration, "interval") and math.isinf(calibration.quantile(coverage)):
            notes.append(
                f"{label}: only {calibration.size} held-out molecules calibrate its intervals, too few for a bounded "
                f"{coverage:.0%} interval: its _lo and _hi will be -inf and inf"
            )
    if spec.calibrate and not spec.is_catboost and model.calibration is None:
        notes.append(
            "too few molecules to hold out for calibration (each member holds out a fold; together at least "
            f"{min_held_out}): the model predicts without intervals, similarity or domain"
        )
    return notes


def fold_line(r) -> str:
    """What ``cv`` says as a fold finishes: its scores (a yes/no first target's AUROC and
    Brier score) and seconds."""
    if r.class_metrics:
        scores = f"AUROC {r.class_metrics['auroc']:.4f}  Brier {r.class_metrics['brier']:.4f}"
    else:
        scores = f"RMSE {r.rmse:.4f}  MAE {r.mae:.4f}  R2 {r.r2:.3f}"
    return f"fold {r.fold} (repeat {r.repeat}): {scores}  {r.seconds:.1f} s"
