"""``ScoreRegressor``: the command line's model as a scikit-learn style estimator.

    >>> from scoremol import ScoreRegressor
    >>> model = ScoreRegressor(preset="fast").fit(smiles, y)
    >>> model.predict(["CCO", "c1ccccc1"])            # NaN where a SMILES is invalid
    >>> model.save("model.pt"); ScoreRegressor.load("model.pt")

The keyword arguments are the fields of :class:`~scoremol.spec.TrainingSpec` (the options of
``scoremol train``, underscores for dashes), with the same defaults, so
``ScoreRegressor().fit(...)`` trains what ``scoremol train`` trains. A saved model is an
ordinary model file: ``scoremol predict --model model.pt`` serves it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin

from scoremol.data.read import smiles_chunk
from scoremol.errors import ScoremolError
from scoremol.spec import TrainingSpec


def _smiles_list(smiles: Sequence[str] | pd.Series | pd.DataFrame | np.ndarray) -> list[str]:
    """SMILES from a sequence, a Series, or one column (a one-column DataFrame or ``[n, 1]``
    array, as scikit-learn's tools hand a column on)."""
    if isinstance(smiles, str):
        raise TypeError("pass a sequence of SMILES strings, not one string")
    if isinstance(smiles, pd.DataFrame):
        if smiles.shape[1] != 1:
            raise ValueError(f"pass one column of SMILES, not a table of {smiles.shape[1]} columns")
        smiles = smiles.iloc[:, 0]
    elif isinstance(smiles, np.ndarray) and smiles.ndim != 1:
        if smiles.ndim != 2 or smiles.shape[1] != 1:
            raise ValueError(f"pass one column of SMILES, not an array of shape {smiles.shape}")
        smiles = smiles[:, 0]
    return [s.decode() if isinstance(s, bytes) else str(s) for s in smiles]


class SpecEstimator(BaseEstimator):
    """scikit-learn's parameter protocol over a :class:`TrainingSpec`, saving and loading:
    what :class:`ScoreRegressor` and :class:`~scoremol.api.classifier.ScoreClassifier` share."""

    def __init__(self, **options: Any) -> None:
        self.spec = TrainingSpec.from_options(**options)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return self.spec.to_dict()

    def set_params(self, **params: Any):
        self.spec = TrainingSpec.from_options(**{**self.spec.to_dict(), **params})
        return self

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.spec.to_dict().items() if v != getattr(TrainingSpec(), k)}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def _trained(self):
        if not hasattr(self, "model_"):
            raise ScoremolError(f"this {type(self).__name__} is not fitted yet; call fit() or load() first")
        return self.model_

    def save(self, path: str | Path) -> None:
        """Write the model file (atomic; loads without executing pickled code)."""
        from scoremol.models.checkpoint import save_model

        save_model(self._trained(), path)

    @classmethod
    def _from_model(cls, model):
        known = {f.name for f in dataclasses.fields(TrainingSpec)}
        saved = model.train_config.get("spec", {}) if isinstance(model.train_config, dict) else {}
        estimator = cls(**{k: v for k, v in saved.items() if k in known})
        estimator.model_ = model
        estimator.n_failed_ = 0
        return estimator


class ScoreRegressor(RegressorMixin, SpecEstimator):
    """Fit on SMILES and targets, predict from SMILES; see the module docstring.

    Attributes after :meth:`fit` (or :meth:`load`): ``model_`` (the
    :class:`~scoremol.models.trained.TrainedModel`) and ``n_failed_`` (training SMILES
    that could not be featurized and were left out).
    """

    # -- fit / predict ----------------------------------------------------------------------
    def fit(self, smiles: Sequence[str], y: Sequence[float] | np.ndarray, target: str | None = None) -> ScoreRegressor:
        """Train on ``smiles`` with targets ``y`` (``[n]``, or ``[n, T]`` for several targets;
        NaN = not measured). ``target`` names a single target (default: ``y``'s name or "y")."""
        from scoremol.featurizers.parallel import featurize_all
        from scoremol.training.setup import feature_plan, fit_spec

        smiles = _smiles_list(smiles)
        values = np.asarray(y, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2 or values.shape[1] == 0:
            raise ValueError(f"y must be [n] or [n, targets], not of shape {values.shape}")
        if len(values) != len(smiles):
            raise ValueError(f"smiles and y differ in length ({len(smiles)} vs {len(values)})")
        from scoremol.training.setup import MAX_TARGET_MAGNITUDE

        with np.errstate(invalid="ignore"):
            unusable = ~np.isnan(values) & ~(np.abs(values) <= MAX_TARGET_MAGNITUDE)  # inf, or too large to scale
        self.n_excluded_ = int(unusable.sum())
        values = np.where(unusable, np.nan, values)  # left out like a missing value
        if values.shape[1] == 1:
            names = [target or str(getattr(y, "name", None) or "y")]
        else:
            names = [str(c) for c in getattr(y, "columns", [f"y{t}" for t in range(values.shape[1])])]
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise ValueError(f"y names the target {', '.join(repeated)} more than once")
        empty = [n for t, n in enumerate(names) if not np.isfinite(values[:, t]).any()]
        if empty and len(names) > 1:
            raise ValueError(f"y has no usable value for the target {', '.join(empty)}")
        plan = feature_plan(self.spec)
        data = featurize_all(smiles_chunk(smiles, {n: values[:, t] for t, n in enumerate(names)}), plan.settings)
        self.n_failed_ = data.num_failed
        self.model_ = fit_spec(data, names, self.spec, plan.network_descriptors)
        return self

    def predict(self, smiles: Sequence[str], return_std: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Predictions ``[n]`` (``[n, T]`` for several targets); NaN for a SMILES that cannot
        be featurized. ``return_std`` also returns the spread of the ensemble members."""
        from scoremol.inference.predict import predict_part

        model = self._trained()
        smiles = _smiles_list(smiles)
        result = predict_part(model, smiles_chunk(smiles), batch_size=256, device=self.spec.device)
        n_targets = len(model.target_names)
        mean = np.full((len(smiles), n_targets), np.nan)
        std = np.full((len(smiles), n_targets), np.nan)
        mean[result.graph_row] = result.mean
        std[result.graph_row] = result.std
        if n_targets == 1:
            mean, std = mean[:, 0], std[:, 0]
        return (mean, std) if return_std else mean

    def predict_interval(
        self, smiles: Sequence[str], coverage: float | None = None, target: int = 0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Predictions and the lower and upper bounds of their ``coverage`` interval (default:
        ``scoremol predict``'s), each ``[n]`` for target number ``target``; NaN where a SMILES
        cannot be featurized. Needs a calibrated model (trained with ``calibrate=True``, the default)."""
        from scoremol.inference.predict import predict_part
        from scoremol.spec import DEFAULT_COVERAGE

        model = self._trained()
        if model.calibration is None:
            raise ScoremolError("this model has no calibration (trained with calibrate=False or too few molecules)")
        if not 0 <= target < len(model.target_names):
            raise ValueError(f"target {target} is not one of this model's targets 0-{len(model.target_names) - 1}")
        coverage = DEFAULT_COVERAGE if coverage is None else coverage
        if not 0 < coverage < 1:
            raise ValueError(f"coverage must lie strictly between 0 and 1, got {coverage}")
        smiles = _smiles_list(smiles)
        result = predict_part(model, smiles_chunk(smiles), batch_size=256, device=self.spec.device)
        mean = result.mean[:, target]
        lo, hi = model.calibration[target].interval(mean, result.difficulty(target), coverage)
        out = np.full((3, len(smiles)), np.nan)
        out[:, result.graph_row] = mean, lo, hi
        return out[0], out[1], out[2]

    def score(self, smiles: Sequence[str], y: Sequence[float]) -> float:
        """R2 on the molecules that could be featurized (scikit-learn's regressor score)."""
        from scoremol.training.metrics import regression_metrics

        pred = np.asarray(self.predict(smiles), dtype=np.float64)
        truth = np.asarray(y, dtype=np.float64)
        if truth.shape != pred.shape:
            raise ValueError(f"smiles and y differ in shape ({pred.shape} predicted vs {truth.shape})")
        keep = np.isfinite(pred) & np.isfinite(truth)
        return regression_metrics(truth[keep], pred[keep])["r2"]

    @classmethod
    def load(cls, path: str | Path) -> ScoreRegressor:
        """A fitted regressor from any scoremol model file (``scoremol train`` output included)."""
        from scoremol.models.checkpoint import load_model

        return cls._from_model(load_model(path))
