"""Start featurizing a prediction's input before torch is imported (light to import).

See :class:`scoremol.featurizers.head_start.HeadStart`: the command line calls
:func:`start_featurizing` first thing, then imports torch and loads the model, then
hands the head start to :func:`scoremol.inference.predict.predict_stream`.
"""

from __future__ import annotations

from pathlib import Path

from scoremol.data.read import iter_chunks
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizerSettings
from scoremol.featurizers.head_start import HeadStart
from scoremol.models.metadata import read_metadata
from scoremol.pool import worker_count


def start_featurizing(
    model_path: Path,
    path: str,
    smiles_col: str | None = None,
    fmt: str | None = None,
    chunk_size: int = 2000,
    workers: int | None = None,
) -> HeadStart | None:
    """A head start on ``path`` for the model at ``model_path``, or None when the model
    file does not say how it featurizes (loading it will say why) or was made by other code.

    Input errors (a missing file, no SMILES column) are raised here, as reading would.
    """
    meta = read_metadata(model_path)
    if meta is None or not isinstance(meta.get("featurizer"), dict):
        return None
    try:
        settings = FeaturizerSettings.from_dict(meta["featurizer"])
    except (TypeError, ValueError, KeyError, ScoremolError):
        return None
    if not settings.compatible_with_code():
        return None
    chunks = iter_chunks(path, smiles_col, fmt, chunk_size=chunk_size)
    return HeadStart(chunks, settings, worker_count(workers), source=reading(path, smiles_col, fmt, chunk_size))


def reading(path: str, smiles_col: str | None, fmt: str | None, chunk_size: int) -> tuple:
    """What a head start's chunks were read with: prediction continues the same input only
    with the same reading options."""
    return (path, smiles_col, fmt, chunk_size)
