"""The columns ``predict`` adds to each input row, and their values for one chunk.

Per regression target ``<label>_pred`` with ``_std`` (ensembles), ``_lo``/``_hi`` (a
calibrated model), ``_p_below`` (with a threshold) and ug/mL columns (``--ugml``); per yes/no
target ``<label>_prob`` (calibrated probability of the positive class), ``_class`` and
``_set`` (the conformal prediction set at the coverage); then ``similarity``, ``domain``,
``status`` and ``reason``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scoremol.calibration.probability import set_labels
from scoremol.data.read import MoleculeChunk
from scoremol.errors import ScoremolError
from scoremol.models.trained import Prediction, TrainedModel
from scoremol.spec import DEFAULT_COVERAGE


@dataclass(frozen=True)
class OutputOptions:
    """What to write besides the predictions: intervals at ``coverage`` (None: none), the
    probability of lying below ``threshold`` (a number: for the first target; a dict: per
    target label, ``""`` for the first; None: none), solubilities in ug/mL (``ugml``) and
    the old column names."""

    coverage: float | None = DEFAULT_COVERAGE
    threshold: float | dict[str, float] | None = None
    legacy_names: bool = False
    ugml: bool = False
    #: the target labels whose columns to write (None: every target's)
    targets: tuple[str, ...] | None = None

    def check(self, model: TrainedModel) -> None:
        """A one-line error for what ``model`` cannot give: a target it does not predict, a
        probability without calibration, a threshold on a yes/no target, ug/mL without a
        solubility in known units."""
        unknown = [label for label in self.targets or () if label not in model.target_labels]
        if unknown:
            raise ScoremolError(
                f"--target {unknown[0]}: this model predicts {', '.join(model.target_labels)} (scoremol models lists "
                "each bundled model's)"
            )
        limits = self.thresholds(model.target_labels)
        named = [
            label for label, limit, c in zip(model.target_labels, limits, model.classify) if c and limit is not None
        ]
        if named:
            raise ScoremolError(
                f"--threshold has no meaning for the yes/no target {named[0]}: its {named[0]}_prob column is already "
                "the probability of its positive class"
            )
        if self.threshold is not None and model.calibration is None:
            raise ScoremolError(
                "--threshold needs a calibrated model; this one has none (trained with --no-calibrate or on too few "
                "molecules)"
            )
        if self.ugml and not any(units in SOLUBILITY_UNITS for units in model.target_units):
            raise ScoremolError(
                "--ugml: no target of this model is a solubility in known units (log10 mol/L or ug/mL); a model "
                "learns them from the shipped data sets' own files"
            )

    def threshold_map(self, labels: list[str]) -> dict[str, float]:
        """``{label: threshold}`` of the targets that have one."""
        return {label: limit for label, limit in zip(labels, self.thresholds(labels)) if limit is not None}

    def thresholds(self, labels: list[str]) -> list[float | None]:
        """The threshold of each target (None: no probability column for it)."""
        if self.threshold is None:
            return [None] * len(labels)
        if isinstance(self.threshold, dict):
            unknown = sorted(set(self.threshold) - set(labels) - {""})
            if unknown:
                raise ScoremolError(f"--threshold names {', '.join(unknown)}; this model predicts {', '.join(labels)}")
            limits = [self.threshold.get(label) for label in labels]
            if "" in self.threshold and limits:
                limits[0] = self.threshold[""]
            return limits
        return [float(self.threshold)] + [None] * (len(labels) - 1)


def parse_thresholds(values: list[str] | None) -> float | dict[str, float] | None:
    """``--threshold`` values: one number (the first target) or ``LABEL=T`` items."""
    if not values:
        return None
    out: dict[str, float] = {}
    for value in values:
        label, equals, number = value.rpartition("=")
        try:
            limit = float(number)
        except ValueError:
            raise ScoremolError(f"--threshold {value!r}: give a number or LABEL=NUMBER") from None
        if not math.isfinite(limit):
            raise ScoremolError(f"--threshold {value!r}: give a finite number")
        if equals and not label:
            raise ScoremolError(f"--threshold {value!r}: name the target before '=' (or give the number alone)")
        if label in out:
            raise ScoremolError(f"--threshold names {label or 'the first target'} more than once")
        if not label and len(values) == 1:
            return limit
        out[label] = limit  # "" stands for the first target
    return out


#: units of the solubility targets, and how to turn a prediction into ug/mL (``mass``: g/mol)
SOLUBILITY_UNITS = {
    "log10(mol/L)": lambda value, mass: 10.0**value * mass * 1000.0,
    "log10(ug/mL)": lambda value, mass: 10.0**value,
}


@dataclass(frozen=True)
class Columns:
    """Output column names: per target ``pred``, ``std``, ``lo``, ``hi`` (empty lists when the
    model or the options give none), ``p_below`` and ``ugml``, and a yes/no target's
    ``prob``, ``label`` and ``sets`` (None for a target without one), then the per-row ones."""

    pred: list[str | None]
    std: list[str | None]
    lo: list[str | None]
    hi: list[str | None]
    p_below: list[str | None]
    similarity: str | None
    domain: str | None
    status: str
    reason: str
    #: per target, the ug/mL prediction and interval columns (None: not a solubility or not asked)
    ugml: list[tuple[str, str | None, str | None] | None] = field(default_factory=list)
    #: per yes/no target: the probability of its positive class, the class, the prediction set
    prob: list[str | None] = field(default_factory=list)
    label: list[str | None] = field(default_factory=list)
    sets: list[str | None] = field(default_factory=list)

    def of_target(self, t: int) -> list[str]:
        """Every column of target number ``t``."""
        lists = (self.pred, self.std, self.lo, self.hi, self.p_below, self.prob, self.label, self.sets)
        names = [names[t] for names in lists if names] + list(self.ugml[t] or () if self.ugml else ())
        return [name for name in names if name is not None]


def output_columns(model: TrainedModel, input_columns: list[str], options: OutputOptions | None = None) -> Columns:
    """Names of the columns ``predict`` adds, avoiding input columns.

    Predictions are ``<label>_pred`` (``logS_pred`` for a solubility model; see
    :attr:`TrainedModel.target_labels`), with ``_std``, ``_lo``, ``_hi`` and
    ``_p_below`` beside them; ``legacy_names`` gives the names of scoremol 0.1 (the
    training column's name, ``<name>_std``).
    """
    options = options or OutputOptions()
    taken = set(map(str, input_columns))

    def free(name: str) -> str:
        candidate = name
        while candidate in taken:
            candidate = f"{candidate}_pred" if candidate == name and options.legacy_names else f"scoremol_{candidate}"
        taken.add(candidate)
        return candidate

    classify = model.classify
    stems = model.target_names if options.legacy_names else model.target_labels
    calibrated = model.calibration is not None
    with_interval = calibrated and options.coverage is not None
    preds, prob, label, sets = [], [], [], []
    for stem, c in zip(stems, classify):  # a target's main columns side by side, in target order
        if options.legacy_names:
            preds.append(None if c else free(stem))
        else:
            preds.append(None if c else free(f"{stem}_pred"))
        prob.append(free(f"{stem}_prob") if c else None)
        label.append(free(f"{stem}_class") if c else None)
        sets.append(free(f"{stem}_set") if c and with_interval else None)
    if options.legacy_names:
        stems = [p or s for p, s in zip(preds, stems)]

    def per_target(suffix: str, wanted: bool) -> list[str | None]:
        return [None if c else free(f"{stem}_{suffix}") for stem, c in zip(stems, classify)] if wanted else []

    stds = per_target("std", len(model.members) >= 2)
    lo = per_target("lo", with_interval)
    hi = per_target("hi", with_interval)
    labels = model.target_labels
    limits = options.thresholds(labels) if calibrated else [None] * len(stems)
    p_below = [None if limit is None else free(f"{stem}_p_below") for stem, limit in zip(stems, limits)]
    ugml: list[tuple[str, str | None, str | None] | None] = [None] * len(stems)
    if options.ugml:
        for t, (stem, units) in enumerate(zip(stems, model.target_units)):
            if units in SOLUBILITY_UNITS:
                linear = stem[3:] if stem.startswith("log") and len(stem) > 3 else stem  # logS -> S_ugml
                bounds = (free(f"{linear}_ugml_lo"), free(f"{linear}_ugml_hi")) if with_interval else (None, None)
                ugml[t] = (free(f"{linear}_ugml"), *bounds)
    has_domain = model.domain is not None
    similarity = free("similarity") if has_domain else None
    domain = free("domain") if has_domain else None
    status, reason = free("status"), free("reason")
    return Columns(preds, stds, lo, hi, p_below, similarity, domain, status, reason, ugml, prob, label, sets)


def chunk_output(
    model: TrainedModel, chunk: MoleculeChunk, prediction: Prediction, options: OutputOptions | None = None
) -> pd.DataFrame:
    """The input rows of ``chunk`` with the columns :func:`output_columns` names."""

    options = options or OutputOptions()
    out = chunk.frame.copy()
    names = output_columns(model, list(chunk.frame.columns), options)
    n, rows = len(chunk), prediction.graph_row

    def put(name: str, values: np.ndarray) -> None:
        column = np.full(n, np.nan)
        column[rows] = values
        out[name] = column

    for t, name in enumerate(names.pred):
        if name is not None:
            put(name, prediction.mean[:, t])
        else:
            put_classes(out, t, model, prediction, names, options.coverage, n)
    for t, name in enumerate(names.std):
        if name is not None:
            put(name, prediction.std[:, t])
    limits = options.thresholds(model.target_labels)
    bounds: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if names.lo or any(names.p_below):
        for t, calibration in enumerate(model.calibration):
            if model.classify[t]:
                continue
            difficulty = prediction.difficulty(t)
            if names.lo:
                bounds[t] = calibration.interval(prediction.mean[:, t], difficulty, options.coverage)
                put(names.lo[t], bounds[t][0])
                put(names.hi[t], bounds[t][1])
            if names.p_below[t] is not None:
                put(names.p_below[t], calibration.p_below(prediction.mean[:, t], difficulty, limits[t]))
    if any(names.ugml):
        mass = molar_masses(chunk, rows, model.featurizer.standardize)
        for t, columns in enumerate(names.ugml):
            if columns is None:
                continue
            convert = SOLUBILITY_UNITS[model.target_units[t]]
            for name, values in zip(columns, (prediction.mean[:, t], *bounds.get(t, (None, None)))):
                if name is not None:
                    put(name, convert(values, mass))
    reasons = list(prediction.reason)
    if names.similarity is not None:
        similarity = prediction.similarity
        put(names.similarity, similarity)
        domain = np.full(n, "", dtype=object)
        domain[rows] = ["out" if why else "in" for why in prediction.domain_reason]
        out[names.domain] = domain
        for row, why in zip(rows, prediction.domain_reason, strict=True):
            if why:
                reasons[row] = f"{reasons[row]}; {why}" if reasons[row] else why
    out[names.status] = prediction.status
    out[names.reason] = reasons
    if options.targets is not None:
        unwanted = [t for t, label in enumerate(model.target_labels) if label not in options.targets]
        out = out.drop(columns=[name for t in unwanted for name in names.of_target(t)])
    return out


def put_classes(
    out: pd.DataFrame,
    t: int,
    model: TrainedModel,
    prediction: Prediction,
    names: Columns,
    coverage: float | None,
    n: int,
) -> None:
    """A yes/no target's columns: the probability of its positive class (calibrated on
    held-out molecules when the model is; else the networks' own), the likelier class (as
    trained: ``1``, ``yes``...) and the conformal prediction set at ``coverage``."""
    rows = prediction.graph_row
    calibration = None if model.calibration is None else model.calibration[t]
    p = model.probability(t, prediction.mean[:, t])
    column = np.full(n, np.nan)
    column[rows] = p
    out[names.prob[t]] = column
    negative, positive = model.target_classes[t]
    label = np.full(n, "", dtype=object)
    label[rows] = np.where(p >= 0.5, positive, negative)
    out[names.label[t]] = label
    if names.sets[t] is not None:
        has_negative, has_positive = calibration.prediction_sets(p, coverage)
        sets = np.full(n, "", dtype=object)
        sets[rows] = set_labels(has_negative, has_positive, (negative, positive))
        out[names.sets[t]] = sets


def molar_masses(chunk: MoleculeChunk, rows: np.ndarray, standardize: bool) -> np.ndarray:
    """Average molar mass (g/mol) of the predicted form of each of ``rows`` (those with a graph)."""
    from rdkit.Chem.Descriptors import MolWt

    from scoremol.featurizers.molecule import parse_chunk

    if len(rows) == 0:
        return np.zeros(0)
    part = MoleculeChunk(
        chunk.frame.iloc[rows],
        [chunk.smiles[r] for r in rows],
        0,
        chunk.smiles_col,
        None if chunk.mols is None else [chunk.mols[r] for r in rows],
        None if chunk.errors is None else [chunk.errors[r] for r in rows],
    )
    parsed = parse_chunk(part, standardize)
    return np.array([MolWt(p.mol) if p.mol is not None else np.nan for p in parsed])
