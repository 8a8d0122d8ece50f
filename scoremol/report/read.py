"""Read back a ``scoremol predict`` output (CSV or Parquet) in chunks, for ``scoremol report``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from scoremol.data.parquet import open_parquet
from scoremol.errors import ScoremolError
from scoremol.inference.output import is_parquet_path

CHUNK_ROWS = 20_000


def read_predictions(path: Path) -> tuple[Iterator[pd.DataFrame], list]:
    """The file's rows in chunks, and its tasks (``ReportTask``: ``logS`` for a ``logS_pred``
    column, a yes/no ``bbb`` for ``bbb_prob``), in column order; a file that is no predict
    output is a one-line error."""
    if not Path(path).is_file():
        raise ScoremolError(f"no such file: {path}")
    if is_parquet_path(path):
        parquet = open_parquet(str(path))
        columns = list(parquet.schema_arrow.names)
        chunks = (batch.to_pandas() for batch in parquet.iter_batches(batch_size=CHUNK_ROWS))
    else:
        try:
            columns = list(pd.read_csv(path, nrows=0).columns)
        except pd.errors.EmptyDataError:
            raise ScoremolError(f"{path} is empty: give a scoremol predict output") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ScoremolError(f"{path} is not a CSV file ({type(exc).__name__})") from None
        chunks = _csv_chunks(path)
    from scoremol.report.html import ReportTask

    tasks = [
        ReportTask(c[:-5], kind="classification" if c.endswith("_prob") else "regression")
        for c in columns
        if c.endswith(("_pred", "_prob"))
    ]
    if not tasks or "status" not in columns:
        raise ScoremolError(f"{path} is not a scoremol predict output (no <label>_pred and status columns)")
    return chunks, tasks


def _csv_chunks(path: Path) -> Iterator[pd.DataFrame]:
    """CSV rows in chunks, the file open only while they are read. Text stays text ("NA"
    is a name, not a missing value); numbers are parsed where they are used."""
    with pd.read_csv(path, chunksize=CHUNK_ROWS, dtype=str, keep_default_na=False) as reader:
        yield from reader
