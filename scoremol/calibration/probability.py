"""Calibrated probabilities and conformal prediction sets for a yes/no target.

The networks (and a blended tree) give a logit of the positive class. Held-out molecules,
which the member that scored them never saw, fit a map from logit to probability: Platt
scaling (a logistic curve, two parameters) by default, or isotonic regression (a monotone
step curve). The same held-out molecules give split-conformal scores ``1 - p(true class)``:
a new molecule's prediction set at coverage ``c`` holds every class whose score is at most
the conformal quantile, so ``{0}``, ``{1}`` or ``{0,1}`` (not sure) holds the true class with
probability ``c``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: the calibration methods, the first the default (``bench/classification_benchmark.py``)
METHODS = ("platt", "isotonic")
#: probabilities never reach 0 or 1: no held-out set can be that sure
EPSILON = 1e-4


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(np.asarray(x, np.float64), -60, 60)))


@dataclass
class ClassCalibration:
    """Logit -> probability map of one yes/no target, and the held-out conformal scores.

    ``slope``/``intercept``: Platt's ``p = sigmoid(slope * logit + intercept)``;
    ``knots_x``/``knots_y``: the isotonic curve (empty for Platt); ``scores``: sorted
    ``1 - p(true class)`` of the held-out molecules ``[n]``; ``logits``/``labels``: the
    held-out molecules themselves ``[n]``, kept so that another method can be fitted on them.
    """

    slope: float
    intercept: float
    scores: np.ndarray
    method: str = "platt"
    knots_x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    knots_y: np.ndarray = field(default_factory=lambda: np.zeros(0))
    logits: np.ndarray = field(default_factory=lambda: np.zeros(0))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def fit(cls, logits: np.ndarray, labels: np.ndarray, method: str = METHODS[0]) -> ClassCalibration:
        """From held-out logits ``[n]`` and their 0/1 labels ``[n]`` (NaN and soft labels,
        such as a molecule measured both ways, are left out)."""
        from sklearn.isotonic import IsotonicRegression
        from sklearn.linear_model import LogisticRegression

        if method not in METHODS:
            raise ValueError(f"unknown calibration method {method!r}; choose one of {', '.join(METHODS)}")
        logits, labels = np.asarray(logits, np.float64), np.asarray(labels, np.float64)
        keep = np.isfinite(logits) & ((labels == 0) | (labels == 1))
        x, y = logits[keep], labels[keep].astype(int)
        if len(y) < 2:
            raise ValueError("need at least 2 held-out labels to calibrate")
        slope, intercept = 1.0, 0.0
        if len(np.unique(y)) == 2:
            platt = LogisticRegression(C=1e4).fit(x[:, None], y)
            slope, intercept = float(platt.coef_[0, 0]), float(platt.intercept_[0])
        calibration = cls(slope, intercept, np.zeros(0), method, logits=x, labels=y.astype(np.float64))
        if method == "isotonic" and len(np.unique(y)) == 2:
            iso = IsotonicRegression(y_min=EPSILON, y_max=1 - EPSILON, out_of_bounds="clip").fit(x, y)
            calibration.knots_x = np.asarray(iso.X_thresholds_, np.float64)
            calibration.knots_y = np.asarray(iso.y_thresholds_, np.float64)
        p = calibration.probability(x)
        calibration.scores = np.sort(np.where(y == 1, 1.0 - p, p))
        return calibration

    @property
    def size(self) -> int:
        return len(self.scores)

    def probability(self, logits: np.ndarray) -> np.ndarray:
        """Calibrated probability of the positive class ``[n]`` (NaN stays NaN)."""
        logits = np.asarray(logits, np.float64)
        if len(self.knots_x):
            p = np.interp(logits, self.knots_x, self.knots_y)
        else:
            p = sigmoid(self.slope * logits + self.intercept)
        return np.where(np.isfinite(logits), np.clip(p, EPSILON, 1 - EPSILON), np.nan)

    def quantile(self, coverage: float) -> float:
        """The conformal threshold on ``1 - p(class)`` for ``coverage`` (1: every class)."""
        if not 0.0 < coverage < 1.0:
            raise ValueError(f"coverage must be between 0 and 1, got {coverage}")
        rank = math.ceil((self.size + 1) * coverage)
        return float(self.scores[rank - 1]) if rank <= self.size else 1.0

    def prediction_sets(self, prob: np.ndarray, coverage: float) -> tuple[np.ndarray, np.ndarray]:
        """Whether each molecule's set holds class 0 and class 1 (bool ``[n]`` each)."""
        q = self.quantile(coverage)
        prob = np.asarray(prob, np.float64)
        return prob <= q, 1.0 - prob <= q

    def to_dict(self) -> dict:
        return {
            "kind": "classification",
            "method": self.method,
            "slope": self.slope,
            "intercept": self.intercept,
            "scores": self.scores.astype(float).tolist(),
            "knots_x": self.knots_x.tolist(),
            "knots_y": self.knots_y.tolist(),
            "logits": self.logits.tolist(),
            "labels": self.labels.astype(int).tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> ClassCalibration:
        if d.get("method") not in METHODS:
            raise ValueError(f"unknown calibration method {d.get('method')!r}")
        knots_x, knots_y = np.asarray(d["knots_x"], np.float64), np.asarray(d["knots_y"], np.float64)
        if knots_x.shape != knots_y.shape:
            raise ValueError("calibration curve knots do not match")
        return cls(
            float(d["slope"]),
            float(d["intercept"]),
            np.sort(np.asarray(d["scores"], np.float64)),
            d["method"],
            knots_x,
            knots_y,
            np.asarray(d.get("logits", []), np.float64),
            np.asarray(d.get("labels", []), np.float64),
        )


def set_labels(has_negative: np.ndarray, has_positive: np.ndarray, classes: tuple[str, str]) -> list[str]:
    """Prediction sets as text: ``{0}``, ``{1}``, ``{0,1}`` (class names as trained), ``{}``."""
    negative, positive = classes
    return [
        "{" + ",".join(name for name, inside in ((negative, n), (positive, p)) if inside) + "}"
        for n, p in zip(np.asarray(has_negative, bool), np.asarray(has_positive, bool))
    ]
