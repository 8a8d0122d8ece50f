"""scoremol: molecular property prediction with SCORE graph neural networks.

The Python API in one line: ``ScoreRegressor(**spec).fit(smiles, y).predict(smiles)``, with
the command line's defaults (:class:`TrainingSpec`). Both are imported on first use, so
``import scoremol`` stays cheap.
"""

from scoremol.version import __version__

__all__ = ["ScoreClassifier", "ScoreRegressor", "TrainingSpec", "__version__"]


def __getattr__(name: str):
    if name == "ScoreRegressor":
        from scoremol.api import ScoreRegressor

        return ScoreRegressor
    if name == "ScoreClassifier":
        from scoremol.api import ScoreClassifier

        return ScoreClassifier
    if name == "TrainingSpec":
        from scoremol.spec import TrainingSpec

        return TrainingSpec
    raise AttributeError(f"module 'scoremol' has no attribute {name!r}")
