"""What a prediction is worth: conformal intervals and the applicability domain, both
calibrated at training time on molecules the networks never saw (see ``training.holdout``)."""

from scoremol.calibration.conformal import Calibration
from scoremol.calibration.domain import Domain

__all__ = ["Calibration", "Domain"]
