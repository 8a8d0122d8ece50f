"""Regression metrics over the finite targets (missing values are skipped, not zero)."""

from __future__ import annotations

import math

import numpy as np
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score


def regression_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """RMSE, MAE and R2 over the finite targets."""
    mask = np.isfinite(y_true)
    t, p = y_true[mask], y_pred[mask]
    if len(t) == 0:
        return {"rmse": math.nan, "mae": math.nan, "r2": math.nan}
    return {
        "rmse": float(math.sqrt(mean_squared_error(t, p))),
        "mae": float(mean_absolute_error(t, p)),
        "r2": float(r2_score(t, p)) if len(t) > 1 else math.nan,
    }


#: bins of the expected calibration error (equal-width probability bins, as most papers use)
ECE_BINS = 15


def expected_calibration_error(y_true: np.ndarray, prob: np.ndarray, bins: int = ECE_BINS) -> float:
    """Mean |observed positive rate - mean probability| over equal-width probability bins,
    each weighted by its share of the molecules."""
    y, p = np.asarray(y_true, np.float64), np.asarray(prob, np.float64)
    which = np.clip((p * bins).astype(int), 0, bins - 1)
    total = 0.0
    for b in np.unique(which):
        inside = which == b
        total += inside.sum() * abs(float(y[inside].mean()) - float(p[inside].mean()))
    return total / max(len(y), 1)


def classification_metrics(y_true: np.ndarray, prob: np.ndarray, threshold: float = 0.5) -> dict[str, float]:
    """AUROC, AUPRC (average precision), balanced accuracy at ``threshold``, Brier score and
    expected calibration error over the labelled molecules (``y_true`` 0/1, NaN = missing;
    ``prob``: probability of class 1). A metric one class alone cannot define is NaN."""
    from sklearn.metrics import average_precision_score, balanced_accuracy_score, brier_score_loss, roc_auc_score

    y_true, prob = np.asarray(y_true, np.float64), np.asarray(prob, np.float64)
    mask = np.isfinite(y_true) & np.isfinite(prob)
    y, p = y_true[mask].astype(int), prob[mask]
    nan = math.nan
    if len(y) == 0:
        return {"auroc": nan, "auprc": nan, "balanced_accuracy": nan, "brier": nan, "ece": nan}
    both = len(np.unique(y)) == 2
    return {
        "auroc": float(roc_auc_score(y, p)) if both else nan,
        "auprc": float(average_precision_score(y, p)) if both else nan,
        "balanced_accuracy": float(balanced_accuracy_score(y, (p >= threshold).astype(int))) if both else nan,
        "brier": float(brier_score_loss(y, p)),
        "ece": float(expected_calibration_error(y, p)),
    }
