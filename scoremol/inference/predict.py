"""Streaming batch inference: rows in = rows out, in order, in bounded memory.

The input is read in chunks; each chunk is parsed, featurized, predicted and written before
the next is read, so memory does not grow with the input. Every row keeps its columns and
gets one column per target (``<target>_std`` too for ensembles; ``<target>_lo`` and
``_hi``, and with a threshold ``_p_below``, for a calibrated model), ``similarity`` and
``domain`` for a model with a domain, plus ``status`` and ``reason``; a row that cannot be
predicted gets empty predictions and its reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from typing import TextIO

import numpy as np
import pandas as pd
import torch

from scoremol.data.read import MoleculeChunk, iter_chunks
from scoremol.device import torch_threads
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset, featurize_chunk
from scoremol.featurizers.head_start import HeadStart
from scoremol.featurizers.molecule import STATUS_OK
from scoremol.featurizers.parallel import PARALLEL_MIN_ROWS, ChunkJob, featurization_job, iter_chunk_results
from scoremol.inference.head import reading
from scoremol.inference.output import FrameSink, as_sink
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

    def check(self, model: TrainedModel) -> None:
        """A one-line error for what ``model`` cannot give: a probability without calibration,
        ug/mL without a solubility in known units."""
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
    model or the options give none), ``p_below`` and ``ugml`` (None for a target without
    one), then the per-row ones."""

    pred: list[str]
    std: list[str]
    lo: list[str]
    hi: list[str]
    p_below: list[str | None]
    similarity: str | None
    domain: str | None
    status: str
    reason: str
    #: per target, the ug/mL prediction and interval columns (None: not a solubility or not asked)
    ugml: list[tuple[str, str | None, str | None] | None] = field(default_factory=list)


@dataclass
class PredictSummary:
    rows: int = 0
    predicted: int = 0

    @property
    def failed(self) -> int:
        return self.rows - self.predicted


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

    if options.legacy_names:
        preds = [free(t) for t in model.target_names]
        stems = preds
    else:
        stems = model.target_labels
        preds = [free(f"{stem}_pred") for stem in stems]
    stds = [free(f"{stem}_std") for stem in stems] if len(model.members) >= 2 else []
    calibrated = model.calibration is not None
    with_interval = calibrated and options.coverage is not None
    lo = [free(f"{stem}_lo") for stem in stems] if with_interval else []
    hi = [free(f"{stem}_hi") for stem in stems] if with_interval else []
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
    return Columns(preds, stds, lo, hi, p_below, similarity, domain, free("status"), free("reason"), ugml)


def default_batch_size(device: str) -> int:
    """Molecules per inference batch: 128 on a CPU, where a batch's edge states then stay in
    cache (measured about 10% faster than 256 with one thread), 256 on a GPU."""
    return 128 if str(device) == "cpu" else 256


def predict_part(model: TrainedModel, chunk: MoleculeChunk, batch_size: int = 256, device: str = "cpu") -> Prediction:
    """Featurize and predict the rows of ``chunk``."""
    return model.predict(featurize_chunk(chunk, model.featurizer), batch_size=batch_size, device=device)


def predict_chunk(
    model: TrainedModel,
    chunk: MoleculeChunk,
    batch_size: int = 256,
    device: str = "cpu",
    options: OutputOptions | None = None,
) -> pd.DataFrame:
    """The output rows for one input chunk (same length and order)."""
    return chunk_output(model, chunk, predict_part(model, chunk, batch_size, device), options)


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
        put(name, prediction.mean[:, t])
    for t, name in enumerate(names.std):
        put(name, prediction.std[:, t])
    limits = options.thresholds(model.target_labels)
    bounds: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if names.lo or any(names.p_below):
        for t, calibration in enumerate(model.calibration):
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
    return out


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


#: The model a prediction worker process serves, set once when the worker starts.
_WORKER: dict = {}


def _start_prediction_worker(model: TrainedModel, batch_size: int) -> None:
    torch.set_num_threads(1)  # one worker per core; more threads would only compete
    _WORKER.update(model=model, batch_size=batch_size)


def _predict_in_worker(chunk: MoleculeChunk) -> Prediction:
    return predict_part(_WORKER["model"], chunk, _WORKER["batch_size"])


def prediction_job(model: TrainedModel, batch_size: int, device: str) -> ChunkJob:
    """How to predict each chunk.

    On a CPU every worker featurizes *and* predicts its slices, and only predictions
    travel back (measured about 17% faster on two cores than featurizing in workers and
    predicting here: no feature arrays to ship, no third process competing for the
    cores). A GPU cannot be shared with forked workers, so there workers featurize and
    this process predicts.
    """
    local = partial(predict_part, model, batch_size=batch_size, device=device)
    if str(device) == "cpu":
        return ChunkJob(
            local=local,
            remote=_predict_in_worker,
            combine=lambda parts, _: Prediction.concat(parts),
            initializer=_start_prediction_worker,
            initargs=(model, batch_size),
        )
    features = featurization_job(model.featurizer)
    return ChunkJob(
        local=local,
        remote=features.remote,
        combine=lambda parts, chunk: model.predict(
            features.combine(parts, chunk), batch_size=batch_size, device=device
        ),
    )


def predict_stream(
    model: TrainedModel,
    path: str,
    out: TextIO | FrameSink,
    smiles_col: str | None = None,
    fmt: str | None = None,
    batch_size: int | None = None,
    chunk_size: int = 2000,
    device: str = "cpu",
    on_chunk: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    options: OutputOptions | None = None,
    head: HeadStart | None = None,
) -> PredictSummary:
    """Predict every row of ``path`` and write it to ``out`` chunk by chunk (a text stream
    gets CSV; a :class:`~scoremol.inference.output.FrameSink` gets frames, e.g. Parquet).

    Worker processes work on the next chunks while this process writes the current one
    (see :func:`prediction_job`); small inputs stay in one process. ``batch_size``
    defaults to :func:`default_batch_size`.

    ``head``: a head start on ``path`` (:func:`scoremol.inference.head.start_featurizing`,
    with the same reading options, or ValueError); this process predicts the rows it
    featurized, the pool the rest.
    """
    if head is not None and head.source != reading(path, smiles_col, fmt, chunk_size):
        raise ValueError(f"the head start read {head.source}, not {reading(path, smiles_col, fmt, chunk_size)}")
    batch_size = batch_size or default_batch_size(device)
    job = prediction_job(model, batch_size, device)
    if model.domain is not None:
        model.domain.prepare()  # once, here: forked workers inherit it
    sink = as_sink(out)
    try:
        if head is None:
            chunks, ready, min_rows = iter_chunks(path, smiles_col, fmt, chunk_size=chunk_size), (), PARALLEL_MIN_ROWS
        else:
            done, chunks = head.finish(model.featurizer)
            ready = _predict_here(model, done, batch_size, device)
            min_rows = 0 if head.started else PARALLEL_MIN_ROWS  # a large input: the pool takes the rest
        # closing: a failed write (`| head`) stops the worker pool now, not whenever the
        # suspended generator happens to be collected
        with closing(iter_chunk_results(chunks, job, workers, min_rows, ready)) as results:
            summary = _write_predictions(model, results, sink, on_chunk, options)
    finally:
        if head is not None:
            head.close()
        sink.close()  # a Parquet file gets its footer (a failed run's file is discarded by its writer)
    if summary.rows == 0:
        raise ScoremolError(f"no data rows in {'standard input' if path == '-' else path}")
    return summary


def _predict_here(
    model: TrainedModel, done: Iterator[tuple[MoleculeChunk, FeaturizedDataset]], batch_size: int, device: str
) -> Iterator[tuple[MoleculeChunk, Prediction]]:
    """Predictions for featurized units, made in this process while the pool's workers
    have the other cores: one torch thread (a second would only spin against them)."""
    with torch_threads(1):
        for unit, data in done:
            yield unit, model.predict(data, batch_size=batch_size, device=device)


def conform_columns(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame`` with exactly ``columns`` (the first chunk's): SDF records may carry
    different properties; one a chunk lacks is empty, one the first chunk lacked is dropped."""
    if list(frame.columns) == columns:
        return frame
    return frame.reindex(columns=columns, fill_value="")


def _write_predictions(
    model: TrainedModel,
    results: Iterator[tuple[MoleculeChunk, Prediction]],
    sink: FrameSink,
    on_chunk: Callable[[int, int], None] | None,
    options: OutputOptions | None = None,
) -> PredictSummary:
    """Write every predicted chunk to ``sink``, all with the first chunk's columns."""
    summary = PredictSummary()
    columns: list[str] | None = None
    for chunk, prediction in results:
        frame = chunk_output(model, chunk, prediction, options)
        if columns is None:
            columns = list(frame.columns)
        frame = conform_columns(frame, columns)
        sink.write(frame)
        summary.rows += len(frame)
        summary.predicted += sum(s == STATUS_OK for s in prediction.status)
        if on_chunk is not None:
            on_chunk(summary.rows, summary.predicted)
    return summary
