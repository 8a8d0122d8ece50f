"""Build a report while predictions stream past, in bounded memory.

``scoremol predict --report`` writes its usual output and, beside it, a report: a
:class:`ReportCollector` sits in front of the output's sink, passes every frame on, and
keeps only the summary over all rows and the rows most worth a look (at most
``max_rows``). When the input is done, :meth:`ReportCollector.write_report` adds the
nearest training molecules and the atom maps of the kept rows and writes the page.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from scoremol.data.read import SMILES_NAMES
from scoremol.device import torch_threads
from scoremol.inference.explain import atom_contributions
from scoremol.inference.neighbours import nearest_training
from scoremol.inference.output import FrameSink
from scoremol.models.trained import TrainedModel
from scoremol.report.html import ReportSummary, ReportTask, select_rows, write_report

#: input columns that name a molecule, in order of preference
NAME_COLUMNS = ("name", "Name", "NAME", "title", "id", "ID", "Compound ID", "compound_id", "Molecule Name")
#: the column that carries each kept row's number in the whole input
ROW = "\0row"


@dataclass
class ReportResult:
    """What a written report holds, for the command's closing message."""

    path: Path
    summary: ReportSummary
    maps: int
    seconds: float

    def sentence(self) -> str:
        s = self.summary
        return (
            f"report: {self.path} ({s.shown:,} of {s.rows:,} rows, {self.maps:,} atom maps, "
            f"{s.bytes / 1e6:.1f} MB, {self.seconds:.1f} s)"
        )


class ReportCollector(FrameSink):
    """A sink that passes frames on to ``inner`` (None: nowhere) and keeps the report's
    summary and its ``max_rows`` rows (failed, out of domain, lowest first-task prediction)."""

    def __init__(self, inner: FrameSink | None, tasks: list[ReportTask], max_rows: int = 1000) -> None:
        self.inner, self.tasks, self.max_rows = inner, tasks, max_rows
        self.parts: list[ReportSummary] = []  # one per chunk, merged once when the page is written
        self.kept: pd.DataFrame | None = None
        self.rows = 0

    @classmethod
    def for_model(
        cls, model: TrainedModel, inner: FrameSink | None, max_rows: int = 1000, targets: tuple[str, ...] | None = None
    ) -> ReportCollector:
        """A collector for ``model``'s predictions (its tasks, labelled as predict names them;
        only those ``targets`` name when they are given)."""
        tasks = [t for t in ReportTask.from_model(model) if targets is None or t.label in targets]
        return cls(inner, tasks, max_rows)

    @classmethod
    def of_file(
        cls, path: Path, model: TrainedModel, given: bool, max_rows: int
    ) -> tuple[ReportCollector, TrainedModel | None]:
        """A collector holding a ``predict`` output file's rows, and the model that explains
        them: ``model`` when the file holds its columns, else none (the file's own tasks;
        a ``given`` model that does not match is a ``ValueError``)."""
        from scoremol.report.read import read_predictions

        chunks, found = read_predictions(path)
        labels = [t.label for t in found]
        tasks = ReportTask.from_model(model)
        if [t.label for t in tasks] != labels:
            if given:
                raise ValueError(f"{path} holds {', '.join(labels)}; the model predicts those of its own")
            model, tasks = None, found
        collector = cls(None, tasks, max_rows)
        for chunk in chunks:
            collector.write(chunk)
        return collector, model

    def write(self, frame: pd.DataFrame) -> None:
        if self.inner is not None:
            self.inner.write(frame)
        self.parts.append(ReportSummary.of(frame, self.tasks))
        numbered = frame.assign(**{ROW: range(self.rows, self.rows + len(frame))})
        pool = numbered if self.kept is None else pd.concat([self.kept, numbered], ignore_index=True)
        self.kept = pool.iloc[select_rows(pool, self.tasks, self.max_rows)].reset_index(drop=True)
        self.rows += len(frame)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()

    def write_report(
        self,
        path: Path,
        model: TrainedModel | None,
        smiles_col: str | None = None,
        threshold: Mapping[str, float] | None = None,
        maps: int = 100,
        title: str = "scoremol predictions",
    ) -> ReportResult:
        """Write the page to ``path``: with ``model``, the nearest training molecules of every
        kept row (when the model carries them) and the atom maps of the first ``maps`` kept
        rows in order of interest (each costs a prediction per atom)."""
        start = time.perf_counter()
        frame = self.kept if self.kept is not None else pd.DataFrame()
        numbers = frame[ROW].to_numpy() if ROW in frame else []
        frame = frame.drop(columns=[ROW], errors="ignore")
        smiles_col = smiles_col if smiles_col in frame.columns else next((c for c in SMILES_NAMES if c in frame), None)
        if smiles_col is None:
            smiles_col = str(frame.columns[0]) if len(frame.columns) else "smiles"
        name_col = next((c for c in NAME_COLUMNS if c in frame.columns and c != smiles_col), None)
        neighbours, contributions = {}, {}
        if model is not None and len(frame) and smiles_col in frame:
            neighbours, contributions = self._panels(frame, model, smiles_col, maps)
        summary = write_report(
            path,
            frame,
            smiles_col=smiles_col,
            tasks=self.tasks,
            name_col=name_col,
            threshold=threshold,
            neighbours=neighbours,
            contributions=contributions,
            summary=ReportSummary.merged(self.parts),
            max_rows=self.max_rows,
            title=title,
            row_numbers=numbers if len(numbers) else None,
        )
        return ReportResult(Path(path), summary, len(contributions), time.perf_counter() - start)

    def _panels(self, frame: pd.DataFrame, model: TrainedModel, smiles_col: str, maps: int) -> tuple[dict, dict]:
        """The nearest training molecules of the valid rows, and atom maps of the first
        ``maps`` of them in order of interest (single-threaded: many tiny forward passes)."""
        neighbours, contributions = {}, {}
        with torch_threads(1):
            ok = [int(p) for p in (frame["status"] == "ok").to_numpy().nonzero()[0]] if "status" in frame else []
            smiles = frame[smiles_col].astype(str).to_numpy()
            found = nearest_training(model, [smiles[p] for p in ok])
            neighbours = {p: near for p, near in zip(ok, found) if near}
            # the rows most worth a look come first in the selection order
            order = select_rows(frame, self.tasks, maps) if maps > 0 else []
            valid = set(ok)
            chosen = [int(p) for p in order if int(p) in valid][:maps]
            for p, item in zip(chosen, atom_contributions(model, [smiles[p] for p in chosen])):
                if item.ok:
                    contributions[p] = item
        return neighbours, contributions
