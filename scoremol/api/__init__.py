"""The public Python API, above every layer it uses: :class:`ScoreRegressor` and
:class:`ScoreClassifier`."""

from scoremol.api.classifier import ScoreClassifier
from scoremol.api.estimator import ScoreRegressor

__all__ = ["ScoreClassifier", "ScoreRegressor"]
