"""Where prediction rows go: CSV text or a Parquet file, one frame (a chunk of rows) at a time.

Both the single-machine stream and the assembly of a distributed run write through a
:class:`FrameSink`, so the two give the same bytes for the same rows.
"""

from __future__ import annotations

import contextlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

import pandas as pd

from scoremol.data.parquet import parquet_module

#: How prediction floats are written to CSV (six significant digits, like the bundled models' accuracy).
FLOAT_FORMAT = "%.6g"


class FrameSink(ABC):
    """Takes consecutive output rows as data frames with the same columns (a base class,
    not a protocol: a text stream also has ``write`` and ``close``, and gets CSV)."""

    @abstractmethod
    def write(self, frame: pd.DataFrame) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


def format_floats(column: pd.Series) -> list[str]:
    """A float column as CSV text: :data:`FLOAT_FORMAT`, empty for NaN. These are the bytes
    pandas' ``float_format`` writes, in about a quarter of its time (pandas checks and
    formats each value through three Python calls)."""
    return [FLOAT_FORMAT % value if value == value else "" for value in column.to_numpy(dtype=float).tolist()]


class CsvSink(FrameSink):
    """CSV text: the header goes with the first frame."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.started = False

    def write(self, frame: pd.DataFrame) -> None:
        formatted = frame.copy(deep=False)
        for i, dtype in enumerate(frame.dtypes):  # by position: column names may repeat
            if dtype.kind == "f":
                formatted.isetitem(i, format_floats(frame.iloc[:, i]))
        formatted.to_csv(self.out, header=not self.started, index=False, lineterminator="\n")
        self.started = True

    def close(self) -> None:
        """Nothing to finish: the caller owns (and flushes) the text stream."""


class ParquetSink(FrameSink):
    """A Parquet file, one row group per frame; the first frame fixes the schema (a column
    with no value yet is taken as text)."""

    def __init__(self, out: BinaryIO | str | Path) -> None:
        self.out = out
        self.writer = None
        self.schema = None

    def write(self, frame: pd.DataFrame) -> None:
        import pyarrow as pa

        pq = parquet_module()
        if self.writer is None:
            schema = pa.Schema.from_pandas(frame, preserve_index=False)
            for i, field in enumerate(schema):
                if pa.types.is_null(field.type):
                    schema = schema.set(i, field.with_type(pa.string()))
            self.schema = schema
            self.writer = pq.ParquetWriter(self.out, self.schema)
        self.writer.write_table(pa.Table.from_pandas(frame, schema=self.schema, preserve_index=False))

    def add_metadata(self, metadata: dict[bytes, bytes]) -> None:
        """Key-value metadata for the file's footer (after the first frame)."""
        self.writer.add_key_value_metadata(metadata)

    def close(self) -> None:
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.close()


def as_sink(out: TextIO | FrameSink) -> FrameSink:
    """``out`` itself when it is a sink; a text stream becomes a :class:`CsvSink`."""
    return out if isinstance(out, FrameSink) else CsvSink(out)


def is_parquet_path(path: str | Path | None) -> bool:
    """True when an output name asks for Parquet (``.parquet`` or ``.pq``)."""
    return path is not None and Path(path).suffix.lower() in (".parquet", ".pq")


@contextlib.contextmanager
def open_output(path: Path | None) -> Iterator[TextIO | FrameSink]:
    """Where one run's predictions go: CSV on standard output (``path`` None), or a CSV or
    Parquet file (by its name) written atomically, so a failed run leaves no half file."""
    from scoremol.data.atomic import atomic_write

    if path is None:
        yield sys.stdout
        sys.stdout.flush()
    elif is_parquet_path(path):
        with atomic_write(path, "wb") as handle:
            yield ParquetSink(handle)
    else:
        with atomic_write(path, "w", newline="") as handle:
            yield handle
