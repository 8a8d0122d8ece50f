"""Cross-validation: per-fold runs of a :class:`~scoremol.spec.TrainingSpec`, aggregation, outputs.

The test fold is never seen before its final evaluation: scalers, early stopping and the
validation split all come from the training portion (see :func:`scoremol.training.fit.train_model`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoremol.data.splits import folds_from_file, make_folds
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.spec import TrainingSpec
from scoremol.training.metrics import classification_metrics, regression_metrics

#: a yes/no target's cv metrics, in the order tables show them
CLASSIFICATION_KEYS = ("auroc", "auprc", "balanced_accuracy", "brier", "ece")


@dataclass
class FoldResult:
    repeat: int
    fold: int
    n_train: int
    n_test: int
    rmse: float
    mae: float
    r2: float
    best_epoch: float
    seconds: float
    parameters: int
    test_rows: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    predictions: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    history: list = field(repr=False, default_factory=list)
    #: per test molecule, for a calibrated model: "lo"/"hi" [n, 3] at the COVERAGES,
    #: "similarity" [n] and "in_domain" [n] (empty otherwise)
    uncertainty: dict = field(repr=False, default_factory=dict)
    #: interval and domain metrics of this fold (see calibration.metrics)
    uncertainty_metrics: dict = field(default_factory=dict)
    #: several targets: RMSE, MAE and R2 of each, by name (the fields above: the first target's)
    task_metrics: dict = field(default_factory=dict)
    #: several targets: the test predictions of every target ``[n_test, T]``
    task_predictions: np.ndarray | None = field(repr=False, default=None)
    #: a yes/no first target: AUROC, AUPRC, balanced accuracy, Brier and ECE of its
    #: probabilities (the RMSE, MAE and R2 above are then those of the probabilities)
    class_metrics: dict = field(default_factory=dict)

    def row(self) -> dict:
        keys = ("repeat", "fold", "n_train", "n_test", "rmse", "mae", "r2", "best_epoch", "seconds", "parameters")
        tasks = {f"{t}_{k}": v for t, m in self.task_metrics.items() for k, v in m.items()}
        return {**{k: getattr(self, k) for k in keys}, **self.class_metrics, **self.uncertainty_metrics, **tasks}


def _mean_std(values) -> dict[str, float]:
    """Mean and population standard deviation of the finite ``values`` (NaN when none are:
    R2 of one-molecule folds), without numpy's warning about an empty mean."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return {"mean": math.nan, "std": math.nan}
    return {"mean": float(values.mean()), "std": float(values.std())}


def json_safe(value):
    """``value`` with every NaN or infinity replaced by None: strict JSON (``null``), which
    every parser reads, where Python's ``NaN`` token is not JSON."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return value


def summarize(results: list[FoldResult]) -> dict:
    """Mean and (population) standard deviation of each metric over all folds."""
    out: dict = {"n_folds": len(results)}
    for key in ("rmse", "mae", "r2", "best_epoch", "seconds"):
        out[key] = _mean_std([getattr(r, key) for r in results])
    out["parameters"] = int(results[0].parameters) if results else 0
    if results and results[0].class_metrics:
        for key in CLASSIFICATION_KEYS:
            out[key] = _mean_std([r.class_metrics[key] for r in results])
    if results and results[0].task_metrics:
        out["tasks"] = {
            t: {k: _mean_std([r.task_metrics[t][k] for r in results]) for k in metrics}
            for t, metrics in results[0].task_metrics.items()
        }
    if results and all(r.uncertainty for r in results):
        out["uncertainty"] = pooled_uncertainty(results)
    return out


def pooled_uncertainty(results: list[FoldResult]) -> dict:
    """Interval and domain metrics over every test molecule of every fold (pooled), and
    the mean and standard deviation of each over folds."""
    from scoremol.calibration.metrics import uncertainty_metrics

    def pooled(key: str) -> np.ndarray:
        return np.concatenate([r.uncertainty[key] for r in results])

    truth = np.concatenate([r.uncertainty["y"] for r in results])
    overall = uncertainty_metrics(truth, pooled("mean"), pooled("lo"), pooled("hi"), pooled("in_domain"))
    per_fold = {
        k: {
            "mean": float(np.nanmean([r.uncertainty_metrics[k] for r in results])),
            "std": float(np.nanstd([r.uncertainty_metrics[k] for r in results])),
        }
        for k in results[0].uncertainty_metrics
    }
    return {"pooled": overall, "over_folds": per_fold}


# A fold runner maps (train graph indices, test graph indices, seed) to
# (test predictions [n_test], best epoch, parameters, per-epoch history), and for a
# calibrated model a fifth item: {"lo", "hi": [n_test, 3] at calibration.metrics.COVERAGES,
# "similarity", "in_domain": [n_test]}.
FoldRunner = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, float, int, list]]


def run_cv(
    fold_of_graph: np.ndarray,
    y: np.ndarray,
    runner: FoldRunner,
    repeats: int = 1,
    seed: int = 0,
    refold: Callable[[int], np.ndarray] | None = None,
    on_fold: Callable[[FoldResult], None] | None = None,
    targets: list[str] | None = None,
    classify: list[bool] | None = None,
) -> list[FoldResult]:
    """Run every fold (and repeat); ``refold(r)`` gives new folds for repeat ``r`` > 0.

    ``y`` is ``[n]``, or ``[n, T]`` with ``targets`` naming its columns when the runner
    predicts several targets (``[n_test, T]``): the fold's headline metrics are the first
    target's, ``task_metrics`` every target's. A yes/no target (``classify``) is predicted
    as a probability and scored by :func:`classification_metrics` as well."""
    first = y if y.ndim == 1 else y[:, 0]
    classify = list(classify or [False] * (1 if y.ndim == 1 else y.shape[1]))

    def scores(truth: np.ndarray, pred: np.ndarray, k: int) -> dict:
        return classification_metrics(truth, pred) if classify[k] else regression_metrics(truth, pred)

    results = []
    for r in range(repeats):
        folds = fold_of_graph if r == 0 or refold is None else refold(r)
        for f in sorted(set(folds.tolist()) - {-1}):
            test = np.where(folds == f)[0]
            train = np.where((folds != f) & (folds != -1))[0]
            start = time.perf_counter()
            output = runner(train, test, seed + 1000 * r)
            seconds = time.perf_counter() - start
            pred, best_epoch, params, history = output[:4]
            uncertainty = dict(output[4]) if len(output) > 4 and output[4] else {}
            every = np.asarray(pred)
            pred = every[:, 0] if every.ndim == 2 else every
            m = regression_metrics(first[test], pred)
            result = FoldResult(
                r,
                f,
                len(train),
                len(test),
                m["rmse"],
                m["mae"],
                m["r2"],
                best_epoch,
                seconds,
                params,
                test,
                pred,
                history,
            )
            if classify[0]:
                result.class_metrics = classification_metrics(first[test], pred)
            if every.ndim == 2 and y.ndim == 2 and targets:
                result.task_predictions = every
                result.task_metrics = {t: scores(y[test, k], every[:, k], k) for k, t in enumerate(targets)}
            if uncertainty:
                from scoremol.calibration.metrics import uncertainty_metrics

                uncertainty.update(y=first[test], mean=pred)
                result.uncertainty = uncertainty
                result.uncertainty_metrics = uncertainty_metrics(
                    first[test], pred, uncertainty["lo"], uncertainty["hi"], uncertainty["in_domain"]
                )
            results.append(result)
            if on_fold is not None:
                on_fold(result)
    return results


def spec_runner(
    data: FeaturizedDataset,
    target: str | list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
    on_epoch=None,
    on_phase=None,
    tasks: list | None = None,
    units: list[str] | None = None,
) -> FoldRunner:
    """A fold runner that trains what ``spec`` describes: networks (optionally blended with
    CatBoost) or the CatBoost baseline; ``tasks``: each target's kind (TaskDecision);
    ``units``: each target's units (what a ``--from`` base's heads are matched by)."""
    from scoremol.training.setup import make_configs

    spec = spec.resolved()
    targets = [target] if isinstance(target, str) else list(target)
    if spec.is_catboost:
        if len(targets) != 1:
            raise ScoremolError("the CatBoost baseline cross-validates one target; name a single target")
        classify = bool(tasks) and tasks[0].classes is not None
        return catboost_runner(data, targets[0], spec.morgan, spec.val_fraction, classify=classify)
    model_config, train_config = make_configs(data, targets, spec, network_descriptors)
    from scoremol.training.base import base_for

    base = base_for(spec, targets, units, tasks, model_config, data, network_descriptors)
    return graph_runner(data, target, model_config, train_config, network_descriptors, on_epoch, on_phase, tasks, base)


def graph_runner(
    data: FeaturizedDataset,
    target: str | list[str],
    model_config,
    train_config,
    gnn_descriptors: tuple[str, ...] | None = None,
    on_epoch=None,
    on_phase=None,
    tasks: list | None = None,
    base=None,
) -> FoldRunner:
    """A fold runner for explicit configs (every neural model, optionally tree-blended);
    with several targets it predicts ``[n_test, T]`` (a yes/no target: its probability)."""
    from scoremol.training.fit import train_model

    targets = [target] if isinstance(target, str) else list(target)

    def run(train: np.ndarray, test: np.ndarray, seed: int):
        config = type(train_config)(**{**train_config.to_dict(), "seed": seed})
        model = train_model(
            data,
            targets,
            model_config,
            config,
            rows=train,
            gnn_descriptors=gnn_descriptors,
            on_epoch=on_epoch,
            on_phase=on_phase,
            tasks=tasks,
            base=base,
        )
        result = model.predict(data, ids=test, device=train_config.device)
        mean = probabilities(model, result.mean)
        pred = mean[:, 0] if len(targets) == 1 else mean
        history = [dict(h, member=k) for k, m in enumerate(model.members) for h in m.history]
        best = float(np.mean([m.best_epoch for m in model.members]))
        return pred, best, model.metrics["parameters"], history, test_uncertainty(model, result)

    return run


def probabilities(model, mean: np.ndarray) -> np.ndarray:
    """``mean`` ``[n, T]`` with each yes/no target's logit as its (calibrated) probability."""
    out = np.array(mean, dtype=np.float64, copy=True)
    for t, c in enumerate(model.classify):
        if c:
            out[:, t] = model.probability(t, out[:, t])
    return out


def test_uncertainty(model, result) -> dict:
    """Intervals at every checked coverage and the domain verdicts of a calibrated model's
    test predictions (empty for a model without calibration, or whose first target is a
    yes/no target: it has prediction sets, not intervals)."""
    from scoremol.calibration.metrics import COVERAGES

    if model.calibration is None or result.similarity is None or model.classify[0]:
        return {}
    calibration, mean = model.calibration[0], result.mean[:, 0]
    bounds = [calibration.interval(mean, result.difficulty(0), c) for c in COVERAGES]
    return {
        "lo": np.stack([b[0] for b in bounds], axis=1),
        "hi": np.stack([b[1] for b in bounds], axis=1),
        "similarity": result.similarity,
        "in_domain": np.array([not why for why in result.domain_reason]),
    }


def catboost_runner(
    data, target: str, morgan: bool, val_fraction: float, iterations: int | None = None, classify: bool = False
) -> FoldRunner:
    """A fold runner for the CatBoost baseline (early stopping on ``val_fraction`` of the
    training portion, or a fixed number of trees on all of it when that is 0; see
    :func:`scoremol.models.catboost.fit_catboost`); ``classify``: a classifier's probability."""
    from scoremol.models.catboost import catboost_features, fit_catboost

    x = catboost_features(data, morgan)
    y = data.column_values(target)

    def run(train: np.ndarray, test: np.ndarray, seed: int):
        model, best = fit_catboost(
            x, y, train, seed=seed, val_fraction=val_fraction, iterations=iterations, classify=classify
        )
        pred = model.predict_proba(x[test])[:, 1] if classify else model.predict(x[test])
        return pred, float(best), 0, []

    return run


@dataclass
class CVRun:
    """A finished cross-validation: its settings, per-fold results and their summary."""

    config: dict
    results: list[FoldResult]

    @property
    def summary(self) -> dict:
        return summarize(self.results)

    def payload(self) -> dict:
        """The JSON document ``cv --json`` prints and ``cv_results.json`` holds."""
        return json_safe({"config": self.config, "summary": self.summary, "folds": [r.row() for r in self.results]})


def cross_validate(
    data: FeaturizedDataset,
    target: str | list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
    folds: int = 5,
    folds_file: str | Path | None = None,
    split: str = "random",
    repeats: int = 1,
    on_fold: Callable[[FoldResult], None] | None = None,
    on_epoch=None,
    on_phase=None,
    input_name: str = "",
    tasks: list | None = None,
    units: list[str] | None = None,
) -> CVRun:
    """K-fold cross-validation of ``spec`` on ``data``: folds from ``folds_file`` (``row,fold``)
    or generated (``split`` random or scaffold, ``repeats`` times with new seeds). Several
    targets train multi-task models and score every target on each fold (headline: the first).
    ``tasks``: each target's kind (:attr:`~scoremol.training.setup.TrainingJob.tasks`); a
    yes/no target is scored on its probabilities by AUROC, AUPRC, balanced accuracy, Brier
    score and expected calibration error."""
    spec = spec.resolved()
    targets = [target] if isinstance(target, str) else list(target)
    if spec.teacher is not None:
        raise ScoremolError("cv cannot distill: the teacher has seen the test folds; score a student on a held-out set")
    if repeats < 1:
        raise ScoremolError("repeats must be at least 1")
    if folds_file is not None and repeats > 1:
        raise ScoremolError("repeats need generated folds; they cannot be combined with a folds file")
    y = np.stack([data.column_values(t) for t in targets], axis=1)
    y = y[:, 0] if len(targets) == 1 else y
    smiles = data.table[data.smiles_col].astype(str).tolist()
    graph_smiles = [smiles[r] for r in data.graph_row]
    if folds_file is not None:
        fold_of_graph = folds_from_file(folds_file, data.num_rows)[data.graph_row]
    else:
        fold_of_graph = make_folds(graph_smiles, folds, split, spec.seed)

    def refold(r: int) -> np.ndarray:
        return make_folds(graph_smiles, folds, split, spec.seed + r)

    config = {
        "input": input_name,
        "target": targets[0] if len(targets) == 1 else targets,
        "split": "file" if folds_file else split,
        "folds_file": str(folds_file) if folds_file else None,
        "folds": int(len(set(fold_of_graph.tolist()) - {-1})),
        "rows_without_fold": int((fold_of_graph == -1).sum()),
        "repeats": repeats,
        "spec": spec.to_dict(),
    }
    runner = spec_runner(data, targets, spec, network_descriptors, on_epoch, on_phase, tasks, units)
    classify = [t.classes is not None for t in tasks] if tasks else None
    results = run_cv(fold_of_graph, y, runner, repeats, spec.seed, refold, on_fold, targets, classify)
    return CVRun(config, results)
