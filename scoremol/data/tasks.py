"""What kind of target a column is: a number to regress, or two classes to classify.

A column whose written values are two words (``yes``/``no``, ``true``/``false``,
``active``/``inactive``) is a yes/no assay; one whose values are exactly 0 and 1 is one
too, and the training summary says it was read that way (``--task-type NAME=regression``
regresses it). Any other numeric column is a regression target; one with two distinct
values only is kept a regression target and the summary says so. Classes are stored as
0/1 labels (NaN = missing) beside the names they had, negative class first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from scoremol.errors import ScoremolError

REGRESSION, CLASSIFICATION = "regression", "classification"
TASK_TYPES = (REGRESSION, CLASSIFICATION)

#: words read as the negative / positive class, in lower case (the positive class is 1)
NEGATIVE_WORDS = ("0", "0.0", "no", "n", "false", "f", "inactive", "negative", "non-penetrating", "-")
POSITIVE_WORDS = ("1", "1.0", "yes", "y", "true", "t", "active", "positive", "penetrating", "+")


@dataclass(frozen=True)
class TaskDecision:
    """A target's kind, its class names (negative first; None for regression) and why."""

    target: str
    kind: str
    classes: tuple[str, str] | None = None
    why: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "classes": None if self.classes is None else list(self.classes)}


def parse_task_types(items: Iterable[str] | None) -> dict[str, str]:
    """``--task-type`` items ``NAME=regression`` / ``NAME=classification`` as a dict."""
    out: dict[str, str] = {}
    for item in items or ():
        name, equals, kind = item.rpartition("=")
        kind = kind.strip().lower()
        if not equals or not name or kind not in TASK_TYPES:
            raise ScoremolError(f"--task-type {item!r}: give TARGET=regression or TARGET=classification")
        if name in out:
            raise ScoremolError(f"--task-type names {name!r} more than once")
        out[name] = kind
    return out


def _written(values: Iterable[str]) -> list[str]:
    return [v for v in (str(x).strip() for x in values) if v and v.lower() not in ("nan", "none", "null")]


def _order(distinct: list[str]) -> tuple[str, str]:
    """Two class names, negative first: by the words above, else numerically, else sorted."""
    low = [d.lower() for d in distinct]
    for k in range(2):
        if low[k] in NEGATIVE_WORDS or low[1 - k] in POSITIVE_WORDS:
            return distinct[k], distinct[1 - k]
    numbers = pd.to_numeric(pd.Series(distinct), errors="coerce").to_numpy()
    if np.isfinite(numbers).all():
        first = int(np.argmin(numbers))
        return distinct[first], distinct[1 - first]
    return tuple(sorted(distinct))  # type: ignore[return-value]


def decide_task(target: str, values: Iterable[str], asked: str | None = None, known: str | None = None) -> TaskDecision:
    """The kind of ``target`` from its written ``values`` (text cells): ``asked`` (the
    user's ``--task-type``) wins, then ``known`` (a registered data set's kind), then the
    values decide. A classification target needs exactly two distinct values."""
    written = _written(values)
    distinct = sorted(set(written))
    numbers = pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce").to_numpy(np.float64)
    numeric = bool(len(distinct)) and not np.isnan(numbers).any()  # inf and 1e400 are numbers, if unusable ones
    kind = asked or known
    if kind == REGRESSION:
        return TaskDecision(target, REGRESSION, None, "as asked" if asked else "the data set's kind")
    if kind == CLASSIFICATION or (not numeric and len(distinct) == 2):
        names = _two_names(written, numeric)  # 1 and 1.0 are one class
        if len(names) != 2:
            shown = ", ".join(repr(d) for d in names[:5]) + (" ..." if len(names) > 5 else "")
            raise ScoremolError(
                f"target {target!r}: a classification target needs two classes, it has {len(names)} ({shown}); "
                "scoremol classifies yes/no targets"
            )
        why = "as asked" if asked else "the data set's kind" if known else "two classes, not numbers"
        if numeric and {float(n) for n in names} == {0.0, 1.0}:  # 0.0 and 1.0 are written 0 and 1
            return TaskDecision(target, CLASSIFICATION, ("0", "1"), why)
        return TaskDecision(target, CLASSIFICATION, _order(names), why)
    if not numeric and distinct:
        words = [d for d, number in zip(distinct, numbers) if np.isnan(number)]
        if len(words) == len(distinct) >= 3:  # three or more words and no number: several classes
            shown = ", ".join(repr(d) for d in distinct[:5]) + (" ..." if len(distinct) > 5 else "")
            raise ScoremolError(
                f"target {target!r} holds {len(distinct)} classes ({shown}); scoremol classifies two classes: "
                "give it as one yes/no column per class"
            )
        return TaskDecision(target, REGRESSION, None, "numbers")  # a few unusable cells are reported later
    as_numbers = {float(v) for v in distinct}
    if as_numbers == {0.0, 1.0}:
        return TaskDecision(
            target, CLASSIFICATION, ("0", "1"), f"only 0 and 1: read as classes (--task-type {target}=regression)"
        )
    if len(as_numbers) == 2:
        return TaskDecision(
            target, REGRESSION, None, f"two values only: regressed (--task-type {target}=classification)"
        )
    return TaskDecision(target, REGRESSION, None, "numbers")


def _two_names(written: list[str], numeric: bool) -> list[str]:
    """The two class names as written (a numeric column's by value: ``1`` and ``1.0`` are one)."""
    if not numeric:
        return sorted(set(written))
    first: dict[float, str] = {}
    for v in written:
        first.setdefault(float(v), v)
    return [first[k] for k in sorted(first)]


def encode_classes(column: pd.Series, decision: TaskDecision) -> pd.Series:
    """A classification target's text cells as ``"0"``/``"1"`` (empty where missing; a cell
    that is neither class is left as written, so it is reported as unusable)."""
    if decision.classes is None:
        return column
    negative, positive = decision.classes
    numeric = all(np.isfinite(pd.to_numeric(pd.Series(list(decision.classes)), errors="coerce")))

    def code(cell) -> str:
        text = str(cell).strip()
        if not text or text.lower() in ("nan", "none", "null"):
            return ""
        if numeric:
            try:
                value = float(text)
            except ValueError:
                return text
            return "0" if value == float(negative) else "1" if value == float(positive) else text
        return "0" if text == negative else "1" if text == positive else text

    return column.map(code).astype(str)


def decide_tasks(
    columns: Mapping[str, Iterable[str]], asked: Mapping[str, str] | None = None, known: Mapping[str, str] | None = None
) -> list[TaskDecision]:
    """:func:`decide_task` for each target (its text cells from every input); ``asked`` may
    name only these targets."""
    asked, known = dict(asked or {}), dict(known or {})
    unknown = sorted(set(asked) - set(columns))
    if unknown:
        raise ScoremolError(f"--task-type names {', '.join(unknown)}; the targets are {', '.join(columns)}")
    return [decide_task(t, values, asked.get(t), known.get(t)) for t, values in columns.items()]
