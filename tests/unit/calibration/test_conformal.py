"""Normalized conformal intervals: coverage, adaptivity, threshold probabilities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoremol.calibration import Calibration
from scoremol.calibration.conformal import difficulty_inputs


def heteroscedastic(n: int, seed: int, size_matters: bool = False):
    """Errors whose scale falls with similarity (sd 1.5 at similarity 0, 0.1 at 1) and,
    with ``size_matters``, doubles from the smallest molecules to the largest; returns the
    residuals and their difficulty inputs (the predictions are 0)."""
    rng = np.random.default_rng(seed)
    similarity = rng.uniform(0, 1, n)
    atoms = rng.integers(5, 60, n)
    scale = 1.5 - 1.4 * similarity
    if size_matters:
        scale = scale * (0.5 + (atoms - 5) / 55)
    residual = rng.normal(0, scale)
    return residual, difficulty_inputs(np.zeros(n), similarity, atoms)


def at(similarity, atoms=20):
    similarity = np.asarray(similarity, np.float64)
    return difficulty_inputs(np.zeros(len(similarity)), similarity, np.full(len(similarity), atoms))


def test_intervals_cover_at_the_nominal_rate_on_fresh_data():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    residual, inputs = heteroscedastic(20000, 1)
    for coverage in (0.8, 0.9, 0.95):
        lo, hi = calibration.interval(np.zeros_like(residual), inputs, coverage)
        observed = np.mean((residual >= lo) & (residual <= hi))
        assert abs(observed - coverage) < 0.015, (coverage, observed)


def test_dissimilar_molecules_get_wider_intervals():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    lo, hi = calibration.interval(np.zeros(3), at([0.05, 0.5, 0.95]), 0.9)
    width = hi - lo
    assert width[0] > width[1] > width[2]
    assert width[0] > 5 * width[2]  # the true scales differ 14-fold
    assert np.all(np.diff(calibration.knots_sigma) >= 0)  # the error curve never falls with difficulty


def test_the_difficulty_learns_which_inputs_matter():
    calibration = Calibration.fit(*heteroscedastic(3000, 0, size_matters=True))
    similarity, log_atoms, prediction = calibration.difficulty.coef
    assert similarity < 0 < log_atoms
    assert abs(prediction) < 0.2 * min(-similarity, log_atoms)  # predictions say nothing here
    small, large = (calibration.interval(np.zeros(1), at([0.5], atoms), 0.9) for atoms in (6, 58))
    assert large[1] - large[0] > 1.5 * (small[1] - small[0])
    # and sizing by both keeps the coverage, including among the large molecules alone
    residual, inputs = heteroscedastic(20000, 1, size_matters=True)
    lo, hi = calibration.interval(np.zeros_like(residual), inputs, 0.9)
    inside = (residual >= lo) & (residual <= hi)
    assert abs(inside.mean() - 0.9) < 0.015
    # (0.78 when the similarity alone sizes them; a log-linear difficulty fits this
    # product of scales only roughly, hence 0.86 rather than 0.90)
    assert inside[inputs[:, 1] > np.log1p(45)].mean() > 0.84


def test_p_below_matches_the_frequency_of_lying_below():
    calibration = Calibration.fit(*heteroscedastic(3000, 0))
    residual, inputs = heteroscedastic(20000, 2)
    mean = np.random.default_rng(4).normal(0, 1, len(residual))
    p = calibration.p_below(mean, inputs, threshold=0.3)
    below = mean + residual < 0.3
    for lo, hi in ((0.0, 0.3), (0.3, 0.7), (0.7, 1.0)):
        inside = (p >= lo) & (p < hi)
        assert inside.sum() > 1000
        assert abs(below[inside].mean() - p[inside].mean()) < 0.03
    assert np.all((p > 0) & (p < 1))
    # a higher threshold is never less likely to be above the value
    higher, lower = (calibration.p_below(np.zeros(5), at(np.full(5, 0.5)), t) for t in (1.0, 0.0))
    assert np.all(higher >= lower)


def test_round_trip_and_too_few_residuals():
    calibration = Calibration.fit(*heteroscedastic(50, 3))
    back = Calibration.from_dict(calibration.to_dict())
    assert np.array_equal(back.scores, calibration.scores)
    assert back.quantile(0.9) == calibration.quantile(0.9)
    inputs = heteroscedastic(10, 4)[1]
    assert np.array_equal(back.sigma(inputs), calibration.sigma(inputs))
    small = Calibration.fit(np.array([0.1, -0.2, 0.3]), at([0.2, 0.5, 0.9]))
    assert small.quantile(0.95) == math.inf  # 3 residuals cannot back a 95 % interval
    with pytest.raises(ValueError, match="coverage"):
        small.quantile(1.0)
    with pytest.raises(ValueError, match="at least 2"):
        Calibration.fit(np.array([0.1]), at([0.5]))
