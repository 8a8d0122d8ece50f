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
