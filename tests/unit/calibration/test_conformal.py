"""Normalized conformal intervals: coverage, adaptivity, threshold probabilities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoremol.calibration import Calibration


def heteroscedastic(n: int, seed: int):
    """Errors whose scale falls with similarity: sd 1.5 at similarity 0, 0.1 at 1."""
    rng = np.random.default_rng(seed)
    similarity = rng.uniform(0, 1, n)
    residual = rng.normal(0, 1.5 - 1.4 * similarity)
    return residual, similarity


def test_intervals_cover_at_the_nominal_rate_on_fresh_data():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    residual, similarity = heteroscedastic(20000, 1)
    for coverage in (0.8, 0.9, 0.95):
        lo, hi = calibration.interval(np.zeros_like(residual), similarity, coverage)
        observed = np.mean((residual >= lo) & (residual <= hi))
        assert abs(observed - coverage) < 0.015, (coverage, observed)


def test_dissimilar_molecules_get_wider_intervals():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    lo, hi = calibration.interval(np.zeros(3), np.array([0.05, 0.5, 0.95]), 0.9)
    width = hi - lo
    assert width[0] > width[1] > width[2]
    assert width[0] > 5 * width[2]  # the true scales differ 14-fold
    assert np.all(np.diff(calibration.knots_sigma) <= 0)  # the difficulty curve never rises


def test_p_below_matches_the_frequency_of_lying_below():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    residual, similarity = heteroscedastic(20000, 2)
    mean = np.random.default_rng(4).normal(0, 1, len(residual))
    p = calibration.p_below(mean, similarity, threshold=0.3)
    below = mean + residual < 0.3
    for lo, hi in ((0.0, 0.3), (0.3, 0.7), (0.7, 1.0)):
        inside = (p >= lo) & (p < hi)
        assert inside.sum() > 1000
        assert abs(below[inside].mean() - p[inside].mean()) < 0.03
    assert np.all((p > 0) & (p < 1))
    # a higher threshold is never less likely to be above the value
    higher, lower = (calibration.p_below(np.zeros(5), np.full(5, 0.5), t) for t in (1.0, 0.0))
    assert np.all(higher >= lower)


def test_round_trip_and_too_few_residuals():
    calibration = Calibration.fit(*heteroscedastic(50, 3))
    back = Calibration.from_dict(calibration.to_dict())
    assert np.array_equal(back.scores, calibration.scores)
    assert back.quantile(0.9) == calibration.quantile(0.9)
    small = Calibration.fit(np.array([0.1, -0.2, 0.3]), np.array([0.2, 0.5, 0.9]))
    assert small.quantile(0.95) == math.inf  # 3 residuals cannot back a 95 % interval
    with pytest.raises(ValueError, match="coverage"):
        small.quantile(1.0)
    with pytest.raises(ValueError, match="at least 2"):
        Calibration.fit(np.array([0.1]), np.array([0.5]))
