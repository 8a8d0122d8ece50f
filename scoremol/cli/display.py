"""Tables and progress displays the commands print on standard error."""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from scoremol.cli.app import console, state


def failed_rows_table(statuses: list[str], reasons: list[str], smiles: list[str], limit: int = 10) -> Table | None:
    """The first ``limit`` rows that could not be featurized, or None when all could."""
    bad = [(i, s, r) for i, (st, r, s) in enumerate(zip(statuses, reasons, smiles)) if st != "ok"]
    if not bad:
        return None
    table = Table(title=f"{len(bad)} row(s) not featurized" + (f" (first {limit})" if len(bad) > limit else ""))
    table.add_column("row", justify="right")
    table.add_column("SMILES")
    table.add_column("reason")
    for i, s, r in bad[:limit]:
        table.add_row(str(i), s[:60], r)
    return table


class TrainingProgress:
    """Progress on stderr: one bar per ensemble member (epochs, time left, losses), a note
    when a member stops early, and a line when the CatBoost phase starts.

    Used as ``with TrainingProgress(members, epochs, label) as show: fit(on_epoch=show.epoch,
    on_phase=show.phase)``; ``reset(label)`` starts the bars again (the next cv fold).
    """

    def __init__(self, members: int, epochs: int, label: str = "") -> None:
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
            disable=state["quiet"],
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
