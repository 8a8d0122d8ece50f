"""Split one input file into shards that workers read on their own, and read a shard back.

A shard is a slice of the input that a worker can open by itself, without reading what
comes before it: a byte range of a CSV/TSV/SMI text that starts and ends at a line end
(a CSV/TSV header line is carried along and put in front of every shard), a range of rows
of a Parquet file (cut at row groups where they are small enough), or a range of whole
records of an SDF. The shards of a file, read one after the other, give exactly the rows
that :func:`scoremol.data.read.iter_chunks` gives for the whole file, in the same order.

Planning reads little: a sample to estimate the bytes of a row, then one short read at
each cut of a text file; Parquet's footer; only an SDF is scanned whole, to cut between
records (and to number them, which its per-row reasons quote).

Limitation: a CSV field in quotes that holds a line break cannot be cut by line; a shard
that meets one fails with a one-line error (convert the file to Parquet, or predict it
without a scheduler).
"""

from __future__ import annotations

import io
import mmap
import os
import re
from collections.abc import Iterator
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO

from scoremol.data.read import (
    MoleculeChunk,
    PrefixedStream,
    detect_format,
    iter_chunks,
    iter_parquet,
    iter_sdf,
    iter_smi,
    iter_table,
    open_parquet,
    sniff_head,
)
from scoremol.data.stream import compression_of
from scoremol.errors import ScoremolError

#: Rows per shard unless told otherwise: about half a minute of work for the fast model on one core.
DEFAULT_SHARD_ROWS = 100_000
#: Bytes sampled at the start of a text file to estimate the bytes of a row.
_SAMPLE_BYTES = 1 << 20
_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}
#: An SDF record ends at a line that starts with $$$$ (as RDKit reads it).
_SDF_END = re.compile(rb"^\$\$\$\$[^\n]*(?:\n|\Z)", re.MULTILINE)
QUOTED_NEWLINE_HINT = (
    "a quoted field spans lines, which a shard cannot be cut around; convert the input to Parquet "
    "or predict it without a scheduler"
)


@dataclass(frozen=True)
class ShardSize:
    """How large a shard is: a number of rows, or of input bytes."""

    rows: int | None = None
    bytes: int | None = None

    def __str__(self) -> str:
        return f"{self.rows} rows" if self.rows is not None else f"{self.bytes} bytes"


def parse_shard_size(text: str | int | None) -> ShardSize:
    """``100000`` (rows) or ``64MB``/``64MiB``/``2GB`` (bytes of input); None: the default."""
    if text is None:
        return ShardSize(rows=DEFAULT_SHARD_ROWS)
    if isinstance(text, int):
        value, unit = text, ""
    else:
        match = re.fullmatch(r"\s*([0-9][0-9_,]*)\s*([a-zA-Z]*)\s*", text)
        if match is None:
            raise ScoremolError(f"shard size {text!r}: give rows (100000) or bytes (64MB, 1GiB)")
        value, unit = int(match.group(1).replace("_", "").replace(",", "")), match.group(2).lower()
    if value < 1:
        raise ScoremolError(f"shard size must be at least 1 (got {text!r})")
    if not unit or unit in ("row", "rows"):
        return ShardSize(rows=value)
    if unit not in _UNITS:
        raise ScoremolError(f"shard size {text!r}: unknown unit {unit!r} (use rows, KB, MB, GB, KiB, MiB or GiB)")
    return ShardSize(bytes=value * _UNITS[unit])


@dataclass(frozen=True)
class Shard:
    """One slice of the input: bytes ``[start, stop)`` of a text file or SDF, or rows
    ``[start, stop)`` of a Parquet file. ``first_record`` numbers an SDF shard's first
    record in messages; ``rows`` is known in advance for Parquet only."""

    index: int
    start: int
    stop: int
    first_record: int = 0
    rows: int | None = None


@dataclass(frozen=True)
class ShardPlan:
    """An input file cut into shards, with what every worker needs to read any of them."""

    path: str
    kind: str  # csv, tsv, smi, sdf or parquet
    smiles_col: str | None
    shards: tuple[Shard, ...]
    #: a CSV/TSV header line, put in front of every shard (latin-1 text of its raw bytes)
    header: str = ""
    size: int = 0
    rows: int | None = field(default=None)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["shards"] = [asdict(s) for s in self.shards]
        return data

    @staticmethod
    def from_dict(data: dict) -> ShardPlan:
        shards = tuple(Shard(**s) for s in data["shards"])
        return ShardPlan(**{**data, "shards": shards})


def _kind(path: str, fmt: str | None, smiles_col: str | None) -> str:
    kind = detect_format(path, fmt)
    if kind is None:
        with open(path, "rb") as handle:
            kind = sniff_head(handle, smiles_col)[0]
    return kind


def check_input(path: str, smiles_col: str | None, fmt: str | None) -> None:
    """Fail here, with the single-machine message, on what every shard would fail on
    (no file, no SMILES column, no data rows), before any worker starts."""
    if path == "-":
        raise ScoremolError("distributed prediction reads a file, not standard input")
    if Path(path).is_file():
        with open(path, "rb") as handle:
            compressed = compression_of(handle.read(8))
        if compressed is not None:  # byte ranges of a compressed file are no rows
            raise ScoremolError(
                f"a {compressed}-compressed input cannot be cut into shards; decompress it first, "
                "or predict it without a scheduler"
            )
    with closing(iter_chunks(path, smiles_col, fmt, chunk_size=1)) as chunks:
        if next(chunks, None) is None:
            raise ScoremolError(f"no data rows in {path}")


def plan_shards(
    path: str,
    fmt: str | None = None,
    smiles_col: str | None = None,
    size: ShardSize | None = None,
    chunk_size: int = 2000,
    min_shards: int = 0,
) -> ShardPlan:
    """Cut ``path`` into shards of about ``size`` (default :data:`DEFAULT_SHARD_ROWS` rows).

    ``min_shards``: with a size in rows, make shards smaller (down to ``chunk_size`` rows)
    when the input would otherwise give fewer shards than this (so that a small input
    still keeps every worker busy). An SDF shard holds a whole number of ``chunk_size``
    blocks of records, so that its chunks, and with them the output columns, are those of
    a single-machine run.
    """
    size = size or ShardSize(rows=DEFAULT_SHARD_ROWS)
    check_input(path, smiles_col, fmt)
    full = str(Path(path).resolve())
    kind = _kind(full, fmt, smiles_col)
    if kind == "parquet":
        return _plan_parquet(full, smiles_col, size, chunk_size, min_shards)
    if kind == "sdf":
        return _plan_sdf(full, size, chunk_size, min_shards)
    return _plan_text(full, kind, smiles_col, size, chunk_size, min_shards)


def _rows_per_shard(size: ShardSize, rows: float, total_bytes: int, chunk_size: int, min_shards: int) -> int:
    """Rows per shard for ``rows`` rows in ``total_bytes`` bytes (see :func:`plan_shards`)."""
    if size.rows is None:
        return max(1, round(size.bytes * rows / max(total_bytes, 1)))
    if min_shards > 0:
        return max(1, min(size.rows, max(chunk_size, -(-int(rows) // min_shards))))
    return size.rows


def _plan_text(
    path: str, kind: str, smiles_col: str | None, size: ShardSize, chunk_size: int, min_shards: int
) -> ShardPlan:
    total = os.path.getsize(path)
    with open(path, "rb") as handle:
        header = handle.readline() if kind in ("csv", "tsv") else b""
        data_start = len(header)
        if size.bytes is not None:
            target = size.bytes
        else:
            sample = handle.read(_SAMPLE_BYTES)
            row_bytes = len(sample) / max(sample.count(b"\n"), 1)
            rows = _rows_per_shard(size, (total - data_start) / max(row_bytes, 1), total, chunk_size, min_shards)
            target = max(1, round(row_bytes * rows))
        cuts = [data_start]
        while cuts[-1] + target < total:
            cut = _next_line_start(handle, cuts[-1] + target - 1)
            if cut is None or cut >= total:
                break
            cuts.append(cut)
    cuts.append(total)
    shards = tuple(Shard(i, a, b) for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])))
    return ShardPlan(path, kind, smiles_col, shards, header.decode("latin-1"), total)


def _next_line_start(handle: BinaryIO, offset: int) -> int | None:
    """The offset just after the first line end at or after ``offset`` (None: none)."""
    handle.seek(offset)
    position = offset
    while True:
        block = handle.read(1 << 16)
        if not block:
            return None
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)


def _plan_sdf(path: str, size: ShardSize, chunk_size: int, min_shards: int) -> ShardPlan:
    total = os.path.getsize(path)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        ends = [m.end() for m in _SDF_END.finditer(data)]
    records = len(ends) + (1 if not ends or ends[-1] < total else 0)  # an unterminated last record
    per_shard = _rows_per_shard(size, records, total, chunk_size, min_shards)
    per_shard = -(-per_shard // chunk_size) * chunk_size  # whole chunks: see plan_shards
    cuts, firsts = [0], [0]
    for first in range(per_shard, len(ends), per_shard):
        cuts.append(ends[first - 1])
        firsts.append(first)
    cuts.append(total)
    shards = tuple(Shard(i, a, b, f) for i, (a, b, f) in enumerate(zip(cuts[:-1], cuts[1:], firsts)))
    return ShardPlan(path, "sdf", None, shards, "", total)


def _plan_parquet(path: str, smiles_col: str | None, size: ShardSize, chunk_size: int, min_shards: int) -> ShardPlan:
    parquet = open_parquet(path)
    metadata = parquet.metadata
    total_rows, total = metadata.num_rows, os.path.getsize(path)
    per_shard = _rows_per_shard(size, total_rows, total, chunk_size, min_shards)
    groups = [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]
    cuts = [0]
    if groups and max(groups) <= per_shard:  # whole row groups, as many as fit
        position, current = 0, 0
        for rows in groups:
            if current and current + rows > per_shard:
                cuts.append(position)
                current = 0
            position += rows
            current += rows
    else:
        cuts += list(range(per_shard, total_rows, per_shard))
    cuts.append(total_rows)
    shards = tuple(Shard(i, a, b, a, b - a) for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a)
    return ShardPlan(path, "parquet", smiles_col, shards, "", total, total_rows)


class _Range(io.RawIOBase):
    """Bytes ``[start, stop)`` of a file, counting line ends and noting quotes on the way."""

    def __init__(self, handle: BinaryIO, start: int, stop: int) -> None:
        self._handle = handle
        self._left = stop - start
        self.newlines = 0
        self.quoted = False
        self.last = b""
        handle.seek(start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        data = self._handle.read(min(len(buffer), self._left))
        n = len(data)
        buffer[:n] = data
        self._left -= n
        if n:
            self.newlines += data.count(b"\n")
            self.quoted = self.quoted or b'"' in data
            self.last = data[-1:]
        return n


def iter_shard_chunks(plan: ShardPlan, shard: Shard, chunk_size: int = 2000) -> Iterator[MoleculeChunk]:
    """The rows of one shard as chunks of at most ``chunk_size`` rows, in order."""
    if plan.kind == "parquet":
        yield from iter_parquet(plan.path, plan.smiles_col, chunk_size, rows=(shard.start, shard.stop))
        return
    if not os.path.isfile(plan.path):
        raise ScoremolError(f"input file not found: {plan.path} (a worker must see the input at the same path)")
    with open(plan.path, "rb") as handle:
        window = _Range(handle, shard.start, shard.stop)
        if plan.kind == "sdf":
            yield from iter_sdf(io.BufferedReader(window), chunk_size, first_record=shard.first_record)
        elif plan.kind == "smi":
            yield from iter_smi(io.BufferedReader(window), chunk_size, header=shard.start == 0)
        else:
            yield from _table_shard(plan, window, chunk_size)


def _table_shard(plan: ShardPlan, window: _Range, chunk_size: int) -> Iterator[MoleculeChunk]:
    """CSV/TSV rows of a shard, the header in front; checks that every line was one row."""
    stream = io.BufferedReader(PrefixedStream(plan.header.encode("latin-1"), window))
    rows = 0
    try:
        for chunk in iter_table(stream, "," if plan.kind == "csv" else "\t", plan.smiles_col, chunk_size):
            rows += len(chunk)
            yield chunk
    except ScoremolError as exc:
        if window.quoted:
            raise ScoremolError(f"{exc} ({QUOTED_NEWLINE_HINT})") from None
        raise
    lines = window.newlines + (1 if window.last not in (b"", b"\n") else 0)
    if rows < lines:
        raise ScoremolError(f"{plan.path}: {QUOTED_NEWLINE_HINT}")
