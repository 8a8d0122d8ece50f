"""One self-contained HTML page of predictions: structures, intervals, neighbours, atom maps.

The page works offline and makes no request: CSS and script are inline, structures are
RDKit SVG embedded as data. Everything that came from the input (names, SMILES, reasons,
any other column) is data, never markup: it travels as JSON inside
``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as ``\\u003c``,
``\\u003e``, ``\\u0026`` (so no value can close the script element), and the page's script
shows it with ``textContent``. Pictures are shown as ``<img>`` from ``data:`` URLs, where an
SVG cannot run script.

A large input keeps its summary over every row but at most ``max_rows`` rows in the table,
the rows most worth a look (:func:`select_rows`); the page says so.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from scoremol.data.atomic import atomic_write
from scoremol.inference.neighbours import Neighbour
from scoremol.report.assets import CSS, SCRIPT
from scoremol.report.drawing import contribution_png, structure_svg

if TYPE_CHECKING:
    from scoremol.inference.explain import AtomContributions
    from scoremol.models.trained import TrainedModel

#: the columns ``scoremol predict`` adds after the tasks' columns (not input columns)
OUTPUT_COLUMNS = ("similarity", "domain", "status", "reason")
TASK_SUFFIXES = ("_pred", "_std", "_lo", "_hi", "_p_below", "_prob", "_class", "_set")
#: what the page writes numbers to: the rest are rounded to this many significant digits
SIGNIFICANT = 4
HISTOGRAM_BINS = 30


@dataclass(frozen=True)
class ReportTask:
    """One predicted task as the report shows it: the column prefix (``logS`` for
    ``logS_pred``), its units and, optionally, a longer description for the header tooltip."""

    label: str
    unit: str = ""
    description: str = ""
    #: ``classification``: a yes/no task, shown as the probability of its positive class and its set
    kind: str = "regression"

    @property
    def column(self) -> str:
        """The column of its main value: ``<label>_pred``, or a yes/no task's ``<label>_prob``."""
        return f"{self.label}_prob" if self.kind == "classification" else f"{self.label}_pred"

    @staticmethod
    def from_model(model: TrainedModel) -> list[ReportTask]:
        """The tasks of a trained model, labelled as ``scoremol predict`` names its columns."""
        return [
            ReportTask(label, units, name, "classification" if c else "regression")
            for label, units, name, c in zip(
                model.target_labels, model.target_units, model.target_names, model.classify, strict=True
            )
        ]


@dataclass
class ReportSummary:
    """Counts over every input row (not only the rows the page lists) and the first task's
    predictions, for the histogram. Summaries of consecutive chunks :meth:`merge`, so a
    caller streaming a large file can summarize it without holding it."""

    rows: int = 0
    ok: int = 0
    failed: int = 0
    out_of_domain: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    first_task: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    #: rows written into the page's table (set by :func:`write_report`)
    shown: int = 0
    #: size of the written file in bytes (set by :func:`write_report`)
    bytes: int = 0

    @classmethod
    def of(cls, frame: pd.DataFrame, tasks: Sequence[ReportTask]) -> ReportSummary:
        """The summary of the rows of ``frame`` (a ``scoremol predict`` output)."""
        status = _text(frame, "status", "ok")
        domain = _text(frame, "domain", "")
        counts = status.value_counts()
        pred = _numbers(frame, tasks[0].column) if tasks else np.zeros(len(frame))
        return cls(
            rows=len(frame),
            ok=int((status == "ok").sum()),
            failed=int((status != "ok").sum()),
            out_of_domain=int(((domain == "out") & (status == "ok")).sum()),
            statuses={str(k): int(v) for k, v in counts.items()},
            first_task=pred[np.isfinite(pred)].astype(np.float32),
        )

    @classmethod
    def merged(cls, parts: Sequence[ReportSummary]) -> ReportSummary:
        """The summary of consecutive parts, their predictions joined once (merging part by
        part would copy the growing array once per chunk)."""
        statuses: dict[str, int] = {}
        for part in parts:
            for k, v in part.statuses.items():
                statuses[k] = statuses.get(k, 0) + v
        return cls(
            sum(p.rows for p in parts),
            sum(p.ok for p in parts),
            sum(p.failed for p in parts),
            sum(p.out_of_domain for p in parts),
            statuses,
            np.concatenate([p.first_task for p in parts]) if parts else np.zeros(0, np.float32),
        )

    def merge(self, other: ReportSummary) -> ReportSummary:
        """The summary of both (``self``'s rows, then ``other``'s)."""
        return ReportSummary.merged([self, other])


def _text(frame: pd.DataFrame, column: str, default: str) -> pd.Series:
    if column not in frame.columns:
        return pd.Series([default] * len(frame), index=frame.index, dtype=object)
    return frame[column].fillna("").astype(str).str.strip()


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)


def select_rows(frame: pd.DataFrame, tasks: Sequence[ReportTask], max_rows: int) -> np.ndarray:
    """Positions of at most ``max_rows`` rows of ``frame`` most worth a look, in input order:
    failed rows first, then out-of-domain ones, then the lowest predictions of the first task
    (for solubility: the compounds at risk)."""
    n = len(frame)
    if n <= max_rows:
        return np.arange(n)
    status = _text(frame, "status", "ok").to_numpy()
    domain = _text(frame, "domain", "").to_numpy()
    rank = np.where(status != "ok", 0, np.where(domain == "out", 1, 2))
    pred = _numbers(frame, tasks[0].column) if tasks else np.zeros(n)
    pred = np.where(np.isfinite(pred), pred, np.inf)
    order = np.lexsort((np.arange(n), pred, rank))  # last key sorts first
    return np.sort(order[:max_rows])


def _cell(value, rounded: bool) -> str:
    """An extra column's cell as text: as written, or (``rounded``: scoremol's ug/mL
    columns) to :data:`SIGNIFICANT` significant digits."""
    if pd.isna(value):
        return ""
    number = _finite(value) if rounded else None
    return f"{number:.{SIGNIFICANT}g}" if number is not None else str(value)


def _finite(value) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _histogram(values: np.ndarray, threshold: float | None) -> dict | None:
    if len(values) == 0:
        return None
    lo, hi = float(values.min()), float(values.max())
    if threshold is not None:
        lo, hi = min(lo, threshold), max(hi, threshold)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    counts, edges = np.histogram(values, bins=HISTOGRAM_BINS, range=(lo, hi))
    return {"edges": [round(float(e), 4) for e in edges], "counts": counts.tolist()}


def _axis(frame: pd.DataFrame, label: str, threshold: float | None) -> list[float] | None:
    """A shared axis for the task's interval bars: the range of the shown intervals."""
    values = np.concatenate([_numbers(frame, f"{label}_{s}") for s in ("pred", "lo", "hi")])
    values = values[np.isfinite(values)]
    if threshold is not None:
        values = np.append(values, threshold)
    if not len(values):
        return None
    lo, hi = float(values.min()), float(values.max())
    pad = max(0.05 * (hi - lo), 0.1)
    return [round(lo - pad, 4), round(hi + pad, 4)]


def _contribution_entry(smiles: str, item) -> dict | None:
    """The detail panel's atom map for one row: from an ``AtomContributions`` or a list of
    per-atom floats (atom order of the row's SMILES as RDKit parses it)."""
    from rdkit import Chem

    if isinstance(item, Sequence):
        mol, weights = Chem.MolFromSmiles(str(smiles)), [float(w) for w in item]
        method, task = "", ""
    else:
        if not item.ok:
            return None
        mol, weights, method, task = item.mol, list(item.weights), item.method, item.label
    if mol is None or len(weights) != mol.GetNumAtoms():
        return None
    png = contribution_png(mol, weights)
    if png is None:
        return None
    order = np.argsort(weights)
    atoms = [(mol.GetAtomWithIdx(int(i)).GetSymbol() + str(int(i) + 1), round(weights[int(i)], 3)) for i in order]
    top = atoms[-3:][::-1] + atoms[:3] if len(atoms) > 6 else atoms[::-1]
    return {"png": png, "method": method, "task": task, "atoms": top}


def write_report(
    path: str | Path,
    frame: pd.DataFrame,
    *,
    smiles_col: str,
    tasks: Sequence[ReportTask],
    name_col: str | None = None,
    threshold: Mapping[str, float] | None = None,
    neighbours: Mapping[int, Sequence[Neighbour]] | None = None,
    contributions: Mapping[int, AtomContributions | Sequence[float]] | None = None,
    summary: ReportSummary | None = None,
    max_rows: int = 1000,
    title: str = "scoremol predictions",
    row_numbers: Sequence[int] | None = None,
) -> ReportSummary:
    """Write the HTML report of a ``scoremol predict`` output to ``path`` (atomically).

    Args:
        frame: the predictions (input columns, then per task ``<label>_pred/_std/_lo/_hi``,
            optionally ``<label>_p_below``, then ``similarity``, ``domain``, ``status``,
            ``reason``). Its row positions are the row numbers the page shows (from 1).
        smiles_col, name_col: the input's SMILES and (optional) name columns.
        tasks: the predicted tasks, in column order (the first one drives the histogram and
            the choice of rows).
        threshold: task label -> the threshold ``P(y < T)`` was computed for (marked on the
            histogram and the interval bars).
        neighbours: row position -> nearest training molecules (up to 3 shown); rows
            without an entry show no neighbour panel.
        contributions: row position -> atom contributions (an ``AtomContributions`` from
            :mod:`scoremol.inference.explain`, or per-atom floats in RDKit's atom order of the
            row's SMILES); rows without an entry show no atom map.
        summary: counts over the whole input when ``frame`` holds only part of it (a caller
            streaming a large file merges :meth:`ReportSummary.of` per chunk and passes the
            kept rows); by default the summary of ``frame``.
        max_rows: at most this many rows go into the table (:func:`select_rows`).
        row_numbers: each row's number in the whole input (0-based) when ``frame`` holds
            only some of its rows; by default its positions.

    Returns the summary, with ``shown`` (rows in the table) and ``bytes`` (file size) set.
    """
    threshold = dict(threshold or {})
    neighbours = neighbours or {}
    contributions = contributions or {}
    total = summary if summary is not None else ReportSummary.of(frame, tasks)
    keep = select_rows(frame, tasks, max_rows)
    shown = frame.iloc[keep]
    payload = {
        "title": title,
        "tasks": [
            {
                "label": t.label,
                "unit": t.unit,
                "description": t.description,
                "threshold": _finite(threshold.get(t.label)),
                "has_p": f"{t.label}_p_below" in frame.columns,
                "kind": t.kind,
                "axis": [0.0, 1.0]
                if t.kind == "classification"
                else _axis(shown, t.label, _finite(threshold.get(t.label))),
            }
            for t in tasks
        ],
        "summary": {
            "rows": total.rows,
            "ok": total.ok,
            "failed": total.failed,
            "out": total.out_of_domain,
            "statuses": total.statuses,
            "shown": len(keep),
            "max_rows": max_rows,
            "histogram": _histogram(total.first_task, _finite(threshold.get(tasks[0].label)) if tasks else None),
        },
        "extra": [],
        "rows": [],
        "pics": [],  # each distinct structure once; rows and neighbours name it by index
    }
    pics: dict[str, int] = {}

    def picture(smiles: str) -> int | None:
        """The index of ``smiles``' drawing in ``payload["pics"]`` (None: not drawable)."""
        if smiles not in pics:
            svg = structure_svg(smiles)
            if svg is None:
                return None
            pics[smiles] = len(payload["pics"])
            payload["pics"].append(svg)
        return pics[smiles]

    task_columns = {f"{t.label}{s}" for t in tasks for s in TASK_SUFFIXES}
    known = task_columns | set(OUTPUT_COLUMNS) | {smiles_col} | ({name_col} if name_col else set())
    extra = [str(c) for c in frame.columns if c not in known]
    payload["extra"] = extra
    columns = {c: frame[c].to_numpy() for c in frame.columns}
    numbers = {f"{t.label}{s}": _numbers(frame, f"{t.label}{s}") for t in tasks for s in TASK_SUFFIXES[:6]}
    sets = {t.label: _text(frame, f"{t.label}_set", "").to_numpy() for t in tasks if t.kind == "classification"}
    rounded = {c for c in extra if str(c).endswith(("_ugml", "_ugml_lo", "_ugml_hi"))}
    similarity = _numbers(frame, "similarity")
    status, domain, reason = (
        _text(frame, c, d).to_numpy() for c, d in (("status", "ok"), ("domain", ""), ("reason", ""))
    )
    for pos in keep:
        pos = int(pos)
        smiles = "" if pd.isna(columns[smiles_col][pos]) else str(columns[smiles_col][pos])
        ok = status[pos] == "ok"
        row = {
            "r": (pos if row_numbers is None else int(row_numbers[pos])) + 1,
            "name": "" if not name_col or pd.isna(columns[name_col][pos]) else str(columns[name_col][pos]),
            "smiles": smiles,
            "pic": picture(smiles) if ok else None,
            "v": [
                [_finite(numbers[f"{t.label}{s}"][pos]) for s in (t.column[len(t.label) :], "_std", "_lo", "_hi")]
                + [_finite(numbers[f"{t.label}_p_below"][pos])]
                for t in tasks
            ],
            "set": {label: str(values[pos]) for label, values in sets.items()},
            "sim": _finite(similarity[pos]),
            "domain": str(domain[pos]),
            "status": str(status[pos]),
            "reason": str(reason[pos]),
            "x": [_cell(columns[c][pos], c in rounded) for c in extra],
        }
        near = neighbours.get(pos)
        if near:
            row["nb"] = [
                {
                    "smiles": n.smiles,
                    "name": n.name,
                    "sim": _finite(n.similarity),
                    "pic": picture(n.smiles),
                    "values": [[k, _finite(v)] for k, v in n.values.items()],
                }
                for n in list(near)[:3]
            ]
        if pos in contributions and ok:
            entry = _contribution_entry(smiles, contributions[pos])
            if entry is not None:
                row["contrib"] = entry
        payload["rows"].append(row)
    page = render_page(payload, title)
    data = page.encode("utf-8")
    with atomic_write(path, "wb") as handle:
        handle.write(data)
    total.shown, total.bytes = len(keep), len(data)
    return total


def embed_json(payload: object) -> str:
    """``payload`` as JSON that is safe inside ``<script type="application/json">``: no
    ``<``, ``>`` or ``&`` appears literally (so no value can end the element or open a
    comment), and NaN is written as null (JSON has no NaN)."""
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render_page(payload: dict, title: str) -> str:
    """The whole HTML document for a report ``payload`` (the JSON the page script reads)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # no request of any kind: only inline style/script and data: images
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        '<header><h1 id="title"></h1><p id="note"></p></header>'
        '<section id="summary"><div id="counts"></div><div id="histogram"></div></section>'
        '<section id="controls">'
        '<input id="filter" type="search" placeholder="Filter by name, SMILES, reason..." aria-label="filter">'
        '<label>Domain <select id="domain-filter"><option value="">all</option>'
        '<option value="in">in</option><option value="out">out</option></select></label>'
        '<label>Status <select id="status-filter"><option value="">all</option></select></label>'
        '<span id="pager"><button id="prev" type="button">&#8249; prev</button>'
        '<span id="page-info"></span><button id="next" type="button">next &#8250;</button></span>'
        "</section>"
        '<main><div id="table-wrap"><table id="table"><thead><tr id="head"></tr></thead>'
        '<tbody id="body"></tbody></table></div>'
        '<aside id="detail" hidden><button id="close" type="button" aria-label="close">&#215;</button>'
        '<div id="detail-body"></div></aside></main>'
        f'<script type="application/json" id="report-data">{embed_json(payload)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
