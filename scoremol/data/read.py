"""Read molecules from CSV/TSV/SMI/SDF/Parquet files or standard input.

Every subcommand reads through :func:`iter_chunks`, so every subcommand handles the same
formats, the same SMILES-column detection and the same quirks (UTF-8 BOM, Windows line
endings, trailing whitespace, blank lines, non-UTF-8 bytes). A row is never dropped:
a blank line is a row with an empty SMILES, which the parser later reports as such.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import pandas as pd
from rdkit import Chem

from scoremol.data.chunk import SMILES_NAMES, MoleculeChunk, check_header, find_smiles_column, smiles_chunk
from scoremol.data.parquet import PYARROW_HINT, iter_parquet, open_parquet, parquet_module
from scoremol.data.stream import (
    DECOMPRESSION_ERRORS,
    PrefixedStream,
    open_binary,
    text_input,
    without_compression_suffix,
)
from scoremol.errors import ScoremolError

__all__ = [
    "FORMATS",
    "PYARROW_HINT",
    "PrefixedStream",
    "SMILES_NAMES",
    "MoleculeChunk",
    "check_header",
    "detect_format",
    "find_smiles_column",
    "iter_chunks",
    "iter_parquet",
    "iter_sdf",
    "iter_smi",
    "iter_table",
    "open_parquet",
    "parquet_module",
    "read_input",
    "smiles_chunk",
    "sniff_format",
    "sniff_head",
]

FORMATS = ("csv", "tsv", "smi", "sdf", "parquet")
_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".smi": "smi",
    ".smiles": "smi",
    ".ism": "smi",
    ".can": "smi",
    ".txt": "smi",
    ".sdf": "sdf",
    ".sd": "sdf",
    ".mol": "sdf",
    ".parquet": "parquet",
    ".pq": "parquet",
}


@dataclass
class InputSpec:
    """Where molecules come from and how to read them."""

    path: str  # a file path or "-" for standard input
    fmt: str | None = None  # one of FORMATS; None = from the extension, else sniffed
    smiles_col: str | None = None
    extra: dict = field(default_factory=dict)


def detect_format(path: str, fmt: str | None = None) -> str | None:
    """The input format from ``fmt`` or the file extension (None: sniff the content)."""
    if fmt:
        if fmt not in FORMATS:
            raise ScoremolError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return fmt
    if path == "-":
        return None
    return _EXTENSIONS.get(without_compression_suffix(path).suffix.lower())


def sniff_format(first_line: bytes, smiles_col: str | None) -> str:
    """Guess csv/tsv/smi from the first line (a header naming the SMILES column => table)."""
    text = first_line.decode("utf-8-sig", errors="replace").strip()
    wanted = {smiles_col.lower()} if smiles_col else {"smiles"}
    for sep, kind in (("\t", "tsv"), (",", "csv")):
        tokens = [t.strip().strip('"').lower() for t in text.split(sep)]
        if len(tokens) > 1 and wanted & set(tokens):
            return kind
    return "smi"


def sniff_head(stream: BinaryIO, smiles_col: str | None) -> tuple[str, bytes]:
    """The format of a text input from its first lines, and the bytes read to tell it."""
    head = stream.readline()
    if not head:
        raise ScoremolError("input is empty")
    kind = sniff_format(head, smiles_col)
    if kind == "smi":  # or an SDF: its first line is a free title, its fourth the counts line
        head += b"".join(stream.readline() for _ in range(3))
        kind = "sdf" if is_molfile_start(head) else kind
    return kind, head


def is_molfile_start(head: bytes) -> bool:
    """Whether ``head`` (an input's first lines) starts a molfile, so the input is an SDF:
    its fourth line is a V2000 or V3000 counts line."""
    lines = head.splitlines()
    return len(lines) >= 4 and lines[3].rstrip().endswith((b"V2000", b"V3000"))


def iter_table(stream: BinaryIO, sep: str, smiles_col: str | None, chunk_size: int) -> Iterator[MoleculeChunk]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    try:
        first = text.readline()
        if not first.strip():
            raise ScoremolError("input is empty (no header line)")
        header = [h.strip() for h in next(csv.reader([first], delimiter=sep))]
        check_header(header)
        col = find_smiles_column(header, smiles_col)
        reader = pd.read_csv(
            _ChainText(first, text),
            sep=sep,
            dtype=str,
            keep_default_na=False,
            skip_blank_lines=False,
            chunksize=chunk_size,
        )
        with reader:
            start = 0
            for frame in reader:
                if frame.empty:
                    continue
                frame.columns = header[: len(frame.columns)] + list(frame.columns[len(header) :])
                smiles = [s.strip() for s in frame[col].tolist()]
                yield MoleculeChunk(frame.reset_index(drop=True), smiles, start, col)
                start += len(frame)
    except pd.errors.ParserError as exc:
        raise ScoremolError(f"malformed table: {str(exc).strip().splitlines()[-1]}") from exc
    finally:
        text.detach()  # the caller owns (and closes) the byte stream


class _ChainText(io.TextIOBase):
    """A text stream that yields ``first`` and then the rest of ``stream`` (pandas input)."""

    def __init__(self, first: str, stream: io.TextIOBase) -> None:
        self._first = first
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:  # type: ignore[override]
        if self._first:
            head, self._first = self._first, ""
            if size is None or size < 0:
                return head + self._stream.read()
            return head
        return self._stream.read(size if size is not None else -1)

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        if self._first:
            head, self._first = self._first, ""
            return head
        return self._stream.readline(size)

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def iter_smi(stream: BinaryIO, chunk_size: int, header: bool = True) -> Iterator[MoleculeChunk]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline=None)
    try:
        yield from _smi_chunks(text, chunk_size, header)
    finally:
        text.detach()  # the caller owns (and closes) the byte stream


def _smi_chunks(text: io.TextIOBase, chunk_size: int, header: bool = True) -> Iterator[MoleculeChunk]:
    """Rows of a .smi text; ``header``: the first line may be a header (false for a shard
    that starts mid-file, whose first line is data whatever it says)."""
    start = 0
    smiles: list[str] = []
    names: list[str] = []
    first = header
    for line in text:
        line = line.strip()
        if first:
            first = False
            if line.split(maxsplit=1)[:1] and line.split(maxsplit=1)[0].lower() == "smiles":
                continue  # a header line such as "SMILES Name"
        parts = line.split(maxsplit=1)
        smiles.append(parts[0] if parts else "")
        names.append(parts[1].strip() if len(parts) > 1 else "")
        if len(smiles) >= chunk_size:
            yield MoleculeChunk(pd.DataFrame({"smiles": smiles, "name": names}), smiles, start)
            start += len(smiles)
            smiles, names = [], []
    if smiles:
        yield MoleculeChunk(pd.DataFrame({"smiles": smiles, "name": names}), smiles, start)


def iter_sdf(stream: BinaryIO, chunk_size: int, first_record: int = 0) -> Iterator[MoleculeChunk]:
    """Records of an SDF; ``first_record`` numbers them in messages (a shard's offset)."""
    supplier = Chem.ForwardSDMolSupplier(stream, sanitize=True, removeHs=True)
    start = 0
    records: list[dict] = []
    mols: list[Chem.Mol | None] = []
    errors: list[str] = []

    def flush() -> MoleculeChunk:
        frame = pd.DataFrame.from_records(records).fillna("")
        smiles = frame["smiles"].tolist()
        return MoleculeChunk(frame, smiles, start, "smiles", mols, errors)

    index = first_record
    while True:
        try:
            mol = next(supplier)
        except StopIteration:
            break
        except Exception as exc:  # a record RDKit cannot even split
            mol, err = None, f"SDF record {index + 1} could not be read: {exc}".splitlines()[0]
        else:
            err = "" if mol is not None else f"SDF record {index + 1} could not be parsed"
        record = {"smiles": "", "name": ""}
        if mol is not None:
            record["smiles"] = Chem.MolToSmiles(mol)
            record["name"] = mol.GetProp("_Name") if mol.HasProp("_Name") else ""
            for key, value in mol.GetPropsAsDict(includePrivate=False, includeComputed=False).items():
                while key in record:  # a property called smiles or name keeps the structure's and title's
                    key = f"sdf_{key}"
                record[key] = str(value)
        records.append(record)
        mols.append(mol)
        errors.append(err)
        index += 1
        if len(records) >= chunk_size:
            yield flush()
            start += len(records)
            records, mols, errors = [], [], []
    if records:
        yield flush()


def iter_chunks(
    path: str,
    smiles_col: str | None = None,
    fmt: str | None = None,
    chunk_size: int = 10_000,
) -> Iterator[MoleculeChunk]:
    """Stream the rows of an input as :class:`MoleculeChunk` blocks, in order."""
    kind = detect_format(path, fmt)
    stream = open_binary(path)
    with contextlib.ExitStack() as stack:
        if path != "-":
            stack.enter_context(stream)
        if kind == "parquet":
            if path == "-":
                raise ScoremolError("Parquet input must be a file, not standard input")
            yield from iter_parquet(path, smiles_col, chunk_size)
            return
        stream, compression = text_input(stream)
        try:
            yield from _iter_text(stream, kind, smiles_col, chunk_size)
        except DECOMPRESSION_ERRORS as exc:
            if compression is None:
                raise
            raise ScoremolError(f"{compression} input could not be read: {exc}") from exc


def _iter_text(stream: BinaryIO, kind: str | None, smiles_col: str | None, chunk_size: int) -> Iterator[MoleculeChunk]:
    """The rows of a text input (CSV, TSV, SMI or SDF; None: sniffed from its first line)."""
    if kind is None:
        kind, head = sniff_head(stream, smiles_col)
        stream = io.BufferedReader(PrefixedStream(head, stream))
    if kind == "sdf":
        if smiles_col is not None:
            raise ScoremolError("smiles_col does not apply to SDF input")
        yield from iter_sdf(stream, chunk_size)
    elif kind == "smi":
        if smiles_col not in (None, "smiles"):
            raise ScoremolError("smiles_col does not apply to .smi input (SMILES is the first field)")
        yield from iter_smi(stream, chunk_size)
    else:
        yield from iter_table(stream, "," if kind == "csv" else "\t", smiles_col, chunk_size)


def read_input(path: str, smiles_col: str | None = None, fmt: str | None = None) -> MoleculeChunk:
    """Read a whole input into one chunk (for training data, which must fit in memory)."""
    chunks = list(iter_chunks(path, smiles_col, fmt, chunk_size=1 << 30))
    if not chunks:
        raise ScoremolError(f"no data rows in {'standard input' if path == '-' else path}")
    if len(chunks) == 1:
        return chunks[0]
    frame = pd.concat([c.frame for c in chunks], ignore_index=True).fillna("")
    smiles = [s for c in chunks for s in c.smiles]
    mols = None if chunks[0].mols is None else [m for c in chunks for m in c.mols or []]
    errors = None if chunks[0].errors is None else [e for c in chunks for e in c.errors or []]
    return MoleculeChunk(frame, smiles, 0, chunks[0].smiles_col, mols, errors)
