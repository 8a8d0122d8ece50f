"""``ScoreClassifier``: a yes/no assay as a scikit-learn classifier.

    >>> from scoremol import ScoreClassifier
    >>> model = ScoreClassifier(preset="fast").fit(smiles, ["yes", "no", ...])
    >>> model.predict_proba(["CCO"])          # [n, 2]: columns in the order of classes_
    >>> model.predict(["CCO"]), model.classes_

The keyword arguments are :class:`~scoremol.spec.TrainingSpec`'s, as for
:class:`~scoremol.api.estimator.ScoreRegressor`. Probabilities are calibrated on held-out
molecules (``calibrate=True``, the default); :meth:`predict_set` gives the conformal
prediction sets. A model with regression and yes/no targets together stays a
``ScoreRegressor`` (its yes/no columns are logits there) or a model file for ``predict``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.base import ClassifierMixin

from scoremol.api.estimator import SpecEstimator, _smiles_list
from scoremol.data.read import smiles_chunk
from scoremol.data.tasks import CLASSIFICATION, TaskDecision
from scoremol.errors import ScoremolError


class ScoreClassifier(ClassifierMixin, SpecEstimator):
    """Fit on SMILES and two classes, predict classes and probabilities from SMILES.

    Attributes after :meth:`fit` (or :meth:`load`): ``classes_`` (the two classes, sorted;
    the second is the positive class), ``model_`` and ``n_failed_``. A SMILES that cannot
    be featurized gets NaN probabilities and the class ``None``.
    """

    def fit(self, smiles: Sequence[str], y: Sequence, target: str | None = None) -> ScoreClassifier:
        """Train on ``smiles`` with labels ``y`` (two distinct values of any kind: 0/1,
        booleans, strings; None or NaN = not measured)."""
        from scoremol.featurizers.parallel import featurize_all
        from scoremol.training.setup import feature_plan, fit_spec

        smiles = _smiles_list(smiles)
        labels = np.asarray(y, dtype=object).reshape(-1)
        if len(labels) != len(smiles):
            raise ValueError(f"smiles and y differ in length ({len(smiles)} vs {len(labels)})")
        missing = np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in labels])
        classes = np.unique(labels[~missing].astype(type(labels[~missing][0]))) if (~missing).any() else []
        if len(classes) != 2:
            raise ValueError(f"y must hold two classes, it holds {len(classes)}")
        self.classes_ = np.asarray(classes)
        coded = np.where(missing, np.nan, (labels == self.classes_[1]).astype(np.float64))
        name = target or str(getattr(y, "name", None) or "y")
        decision = TaskDecision(name, CLASSIFICATION, (str(classes[0]), str(classes[1])), "ScoreClassifier")
        plan = feature_plan(self.spec)
        data = featurize_all(smiles_chunk(smiles, {name: coded}), plan.settings)
        self.n_failed_ = data.num_failed
        self.model_ = fit_spec(data, [name], self.spec, plan.network_descriptors, tasks=[decision])
        return self

    def _logits(self, smiles: Sequence[str]) -> tuple[np.ndarray, object]:
        from scoremol.inference.predict import predict_part

        model = self._trained()
        smiles = _smiles_list(smiles)
        result = predict_part(model, smiles_chunk(smiles), batch_size=256, device=self.spec.device)
        logits = np.full(len(smiles), np.nan)
        logits[result.graph_row] = result.mean[:, 0]
        return logits, model

    def predict_proba(self, smiles: Sequence[str]) -> np.ndarray:
        """``[n, 2]``: the probability of each class of ``classes_`` (calibrated on held-out
        molecules when the model is)."""
        logits, model = self._logits(smiles)
        positive = np.where(np.isfinite(logits), model.probability(0, logits), np.nan)
        return np.stack([1.0 - positive, positive], axis=1)

    def predict(self, smiles: Sequence[str]) -> np.ndarray:
        """The likelier class of each molecule (``None`` where a SMILES cannot be featurized)."""
        proba = self.predict_proba(smiles)
        picked = self.classes_[(proba[:, 1] >= 0.5).astype(int)]
        if np.isfinite(proba[:, 1]).all():
            return picked
        out = picked.astype(object)
        out[~np.isfinite(proba[:, 1])] = None
        return out

    def predict_set(self, smiles: Sequence[str], coverage: float | None = None) -> np.ndarray:
        """Conformal prediction sets ``[n, 2]`` (bool: whether each class of ``classes_`` is in
        the set) holding the true class with probability ``coverage`` (default: predict's)."""
        from scoremol.spec import DEFAULT_COVERAGE

        model = self._trained()
        if model.calibration is None:
            raise ScoremolError("this model has no calibration (trained with calibrate=False or too few molecules)")
        proba = self.predict_proba(smiles)
        negative, positive = model.calibration[0].prediction_sets(proba[:, 1], coverage or DEFAULT_COVERAGE)
        keep = np.isfinite(proba[:, 1])
        return np.stack([negative & keep, positive & keep], axis=1)

    @classmethod
    def load(cls, path: str | Path) -> ScoreClassifier:
        """A fitted classifier from a model file with one yes/no target."""
        from scoremol.models.checkpoint import load_model

        model = load_model(path)
        if len(model.target_names) != 1 or not model.classify[0]:
            raise ScoremolError(f"{path} is not a model of one yes/no target; load it with ScoreRegressor")
        classifier = cls._from_model(model)
        classifier.classes_ = np.asarray(model.target_classes[0])
        return classifier
