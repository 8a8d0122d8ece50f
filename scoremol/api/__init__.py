"""The public Python API, above every layer it uses: :class:`ScoreRegressor`."""

from scoremol.api.estimator import ScoreRegressor

__all__ = ["ScoreRegressor"]
