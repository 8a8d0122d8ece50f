"""scoremol: molecular property prediction with SCORE graph neural networks.

The Python API in one line: ``ScoreRegressor(**spec).fit(smiles, y).predict(smiles)``, with
the command line's defaults (:class:`TrainingSpec`). Both are imported on first use, so
``import scoremol`` stays cheap.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("scoremol")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = ["ScoreRegressor", "TrainingSpec", "__version__"]


def __getattr__(name: str):
    if name == "ScoreRegressor":
        from scoremol.models.estimator import ScoreRegressor

        return ScoreRegressor
    if name == "TrainingSpec":
        from scoremol.spec import TrainingSpec

        return TrainingSpec
    raise AttributeError(f"module 'scoremol' has no attribute {name!r}")
