"""Calibrated probabilities and conformal prediction sets of a yes/no target."""

from __future__ import annotations

import numpy as np
import pytest

from scoremol.calibration.probability import ClassCalibration, set_labels, sigmoid
from scoremol.training.metrics import classification_metrics, expected_calibration_error


def _overconfident(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Labels drawn from sigmoid(z) but logits reported as 3 z: three times too sure."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, n)
    y = (rng.random(n) < sigmoid(z)).astype(float)
    return 3 * z, y


@pytest.mark.parametrize("method", ["platt", "isotonic"])
def test_calibration_repairs_an_overconfident_model(method):
    logits, y = _overconfident(4000)
    test_logits, test_y = _overconfident(4000, seed=1)
    raw = expected_calibration_error(test_y, sigmoid(test_logits))
    calibration = ClassCalibration.fit(logits, y, method)
    fixed = expected_calibration_error(test_y, calibration.probability(test_logits))
    assert raw > 0.08 and fixed < 0.03, (raw, fixed)
    if method == "platt":
        assert calibration.slope == pytest.approx(1 / 3, abs=0.05)


def test_prediction_sets_cover_at_the_coverage_asked():
    logits, y = _overconfident(3000)
    test_logits, test_y = _overconfident(3000, seed=2)
    calibration = ClassCalibration.fit(logits, y)
    p = calibration.probability(test_logits)
    for coverage in (0.8, 0.9, 0.95):
        negative, positive = calibration.prediction_sets(p, coverage)
        covered = np.where(test_y == 1, positive, negative).mean()
        assert abs(covered - coverage) < 0.025, (coverage, covered)
    negative, positive = calibration.prediction_sets(p, 0.9)
    assert (negative | positive).all()  # at 90 % no set is empty here
    assert 0.2 < np.mean(negative & positive) < 0.9  # some molecules are unsure


def test_round_trip_and_soft_labels_are_left_out():
    logits, y = _overconfident(200)
    y[:10] = 0.5  # a molecule measured both ways
    calibration = ClassCalibration.fit(logits, y, "isotonic")
    assert calibration.size == 190
    again = ClassCalibration.from_dict(calibration.to_dict())
    assert np.allclose(again.probability(logits), calibration.probability(logits))
    with pytest.raises(ValueError):
        ClassCalibration.from_dict({**calibration.to_dict(), "method": "magic"})


def test_set_labels_name_the_classes():
    assert set_labels(np.array([1, 0, 1, 0]), np.array([0, 1, 1, 0]), ("no", "yes")) == [
        "{no}",
        "{yes}",
        "{no,yes}",
        "{}",
    ]


def test_classification_metrics_know_a_perfect_and_a_useless_model():
    y = np.array([0, 0, 1, 1, np.nan])
    perfect = classification_metrics(y, np.array([0.01, 0.02, 0.98, 0.99, 0.5]))
    assert perfect["auroc"] == 1 and perfect["balanced_accuracy"] == 1 and perfect["brier"] < 0.001
    useless = classification_metrics(y, np.full(5, 0.5))
    assert useless["auroc"] == 0.5 and useless["brier"] == 0.25 and useless["ece"] == 0
    assert np.isnan(classification_metrics(np.array([1.0, 1.0]), np.array([0.2, 0.9]))["auroc"])


def test_masked_loss_mixes_squared_error_and_weighted_cross_entropy():
    import torch

    from scoremol.training.member import _masked_loss

    pred = torch.tensor([[0.5, 2.0], [1.0, -1.0]])
    target = torch.tensor([[1.5, 1.0], [float("nan"), 0.0]])
    classify = torch.tensor([False, True])
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    expected = (1.0 + bce(torch.tensor(2.0), torch.tensor(1.0)) + bce(torch.tensor(-1.0), torch.tensor(0.0))) / 3
    assert torch.isclose(_masked_loss(pred, target, classify=classify), expected)
    weighted = _masked_loss(pred, target, classify=classify, positive_weight=torch.tensor([1.0, 3.0]))
    more = (1.0 + 3 * bce(torch.tensor(2.0), torch.tensor(1.0)) + bce(torch.tensor(-1.0), torch.tensor(0.0))) / 3
    assert torch.isclose(weighted, more)
