"""How good the intervals and the domain are on molecules with known values (``cv``)."""

from __future__ import annotations

import numpy as np

#: nominal coverages ``cv`` checks
COVERAGES: tuple[float, ...] = (0.8, 0.9, 0.95)


def coverage_key(coverage: float) -> str:
    return f"coverage_{round(coverage * 100)}"


def uncertainty_metrics(
    y: np.ndarray, mean: np.ndarray, lo: np.ndarray, hi: np.ndarray, in_domain: np.ndarray
) -> dict[str, float]:
    """Observed coverage at each of :data:`COVERAGES` (``lo``/``hi`` ``[n, len(COVERAGES)]``),
    mean width and Spearman(|error|, width) at 90 %, RMSE in and out of the domain."""
    from scipy.stats import spearmanr

    keep = np.isfinite(y) & np.isfinite(mean)
    y, mean, lo, hi, in_domain = y[keep], mean[keep], lo[keep], hi[keep], np.asarray(in_domain, bool)[keep]
    out: dict[str, float] = {}
    for j, coverage in enumerate(COVERAGES):
        out[coverage_key(coverage)] = float(np.mean((y >= lo[:, j]) & (y <= hi[:, j]))) if len(y) else np.nan
    j90 = COVERAGES.index(0.9)
    width = hi[:, j90] - lo[:, j90]
    error = np.abs(y - mean)
    out["width_90"] = float(np.mean(width)) if len(y) else np.nan
    varied = len(y) > 2 and np.ptp(width) > 0
    out["spearman_error_width"] = float(spearmanr(error, width).statistic) if varied else np.nan

    def rmse(mask: np.ndarray) -> float:
        return float(np.sqrt(np.mean(error[mask] ** 2))) if mask.any() else np.nan

    out["rmse_in"] = rmse(in_domain)
    out["rmse_out"] = rmse(~in_domain)
    out["share_out"] = float(np.mean(~in_domain)) if len(y) else np.nan
    return out
