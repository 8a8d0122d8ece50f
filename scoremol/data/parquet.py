"""Parquet input: row groups in chunks, columns keeping their types (needs pyarrow)."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from scoremol.data.chunk import MoleculeChunk, check_header, find_smiles_column
from scoremol.errors import ScoremolError

PYARROW_HINT = "pip install 'scoremol[dask]'"


def parquet_module():
    """``pyarrow.parquet``, or a one-line error saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ScoremolError(f"Parquet files need pyarrow: {PYARROW_HINT}") from None
    return pq


def open_parquet(path: str):
    """A ``pyarrow.parquet.ParquetFile``; an unreadable file is a one-line error."""
    pq = parquet_module()
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... for a bad file
        raise ScoremolError(f"{path} is not a readable Parquet file ({str(exc).splitlines()[0][:160]})") from None


def parquet_smiles_column(parquet, smiles_col: str | None) -> str:
    """The SMILES column of a Parquet file, by the same rules as a CSV header."""
    names = list(parquet.schema_arrow.names)
    check_header(names)
    return find_smiles_column(names, smiles_col)


def parquet_frame_chunk(frame: pd.DataFrame, col: str, start: int) -> MoleculeChunk:
    """A chunk over Parquet rows: the columns keep their types; a missing SMILES is empty."""
    values = frame[col]
    smiles = ["" if missing else str(s).strip() for s, missing in zip(values.tolist(), values.isna().tolist())]
    return MoleculeChunk(frame.reset_index(drop=True), smiles, start, col)


def iter_parquet(
    path: str, smiles_col: str | None, chunk_size: int, rows: tuple[int, int] | None = None
) -> Iterator[MoleculeChunk]:
    """Rows of a Parquet file (``rows``: only rows ``[start, stop)``), ``chunk_size`` at a time.

    Unlike text input, the columns keep their Parquet types (a number stays a number in a
    Parquet output); only the SMILES column is read as text.
    """
    parquet = open_parquet(path)
    col = parquet_smiles_column(parquet, smiles_col)
    first, last = rows if rows is not None else (0, parquet.metadata.num_rows)
    start = 0  # the first row of the current row group
    emitted = 0
    for group in range(parquet.num_row_groups):
        size = parquet.metadata.row_group(group).num_rows
        if start + size <= first:
            start += size
            continue
        if start >= last:
            break
        position = start
        for batch in parquet.iter_batches(batch_size=chunk_size, row_groups=[group], use_threads=False):
            lo, hi = max(first - position, 0), min(last - position, batch.num_rows)
            position += batch.num_rows
            if hi <= lo:
                continue
            frame = batch.slice(lo, hi - lo).to_pandas()
            yield parquet_frame_chunk(frame, col, emitted)
            emitted += len(frame)
        start += size
