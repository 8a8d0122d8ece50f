"""An input's bytes as the molecule text they hold: decompressed, or refused with a reason.

Screening libraries travel compressed (``library.smi.gz``, ``enamine.cxsmiles.bz2``), so
gzip, bzip2 and xz inputs are read as they stream, recognized by their first bytes (a
pipe on standard input works as well as a file). Other binary files would otherwise
become rows of garbage that "fail to parse" one by one, or, worse, a stray ``P`` that
parses: an Excel workbook, a zstd archive, a Parquet file under another name or a UTF-16
text each get a one-line error saying what to do instead.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from scoremol.errors import ScoremolError

#: How many leading bytes are looked at to recognize compression and binary content.
SNIFF_BYTES = 8192
#: File name endings of compressed inputs: the format is the ending before them.
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")

#: Compressions read transparently, by their magic bytes.
_DECOMPRESSORS: dict[bytes, tuple[str, Callable[[BinaryIO], BinaryIO]]] = {
    b"\x1f\x8b": ("gzip", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    b"BZh": ("bzip2", lambda raw: bz2.BZ2File(raw)),
    b"\xfd7zXZ\x00": ("xz", lambda raw: lzma.LZMAFile(raw)),
}
#: Binary formats that hold no molecule text, by their magic bytes, and what to do instead.
_NOT_TEXT = {
    b"PK\x03\x04": "a ZIP archive (an Excel workbook is one); export the table as CSV",
    b"\x28\xb5\x2f\xfd": "zstd-compressed; decompress it first (zstd -d) or use gzip, bzip2 or xz",
    b"PAR1": "a Parquet file; name it .parquet or pass the format (--format parquet)",
}
_MAGIC_NUMBERS = (*_DECOMPRESSORS, *_NOT_TEXT)
#: What a broken compressed stream raises while it is read.
DECOMPRESSION_ERRORS = (EOFError, OSError, lzma.LZMAError)


class PrefixedStream(io.RawIOBase):
    """A byte stream that replays bytes already read (for sniffing) before the rest."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = prefix
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def open_binary(path: str) -> BinaryIO:
    """The raw bytes of a file, or of standard input for ``-`` (the caller closes a file)."""
    if path == "-":
        return sys.stdin.buffer
    p = Path(path)
    if not p.exists():
        raise ScoremolError(f"input file not found: {path}")
    if p.is_dir():
        raise ScoremolError(f"input is a directory, not a file: {path}")
    return open(p, "rb")


def peek(stream: BinaryIO, size: int = SNIFF_BYTES) -> tuple[bytes, BinaryIO]:
    """The leading bytes of ``stream`` that are there at once (up to ``size``), and a stream
    that still yields them. It waits for more only while they could still begin one of the
    magic numbers looked for, so a pipe that sends a line at a time is not held up."""
    read = getattr(stream, "read1", stream.read)
    head = b""
    while any(len(head) < len(magic) and magic.startswith(head) for magic in _MAGIC_NUMBERS):
        more = read(size - len(head))
        if not more:
            break
        head += more
    return head, io.BufferedReader(PrefixedStream(head, stream))


def _decompressor(head: bytes) -> tuple[str, Callable[[BinaryIO], BinaryIO]] | None:
    """The compression whose magic bytes ``head`` starts with and how to open it, if any."""
    return next((found for magic, found in _DECOMPRESSORS.items() if head.startswith(magic)), None)


def compression_of(head: bytes) -> str | None:
    """The compression (gzip, bzip2, xz) whose magic bytes ``head`` starts with, if any."""
    found = _decompressor(head)
    return None if found is None else found[0]


def text_input(stream: BinaryIO) -> tuple[BinaryIO, str | None]:
    """``stream`` as the text it holds, and its compression (None when plain): a gzip,
    bzip2 or xz stream is decompressed as it is read (one layer: a compressed archive
    inside is refused like any binary); anything else that is not text is refused."""
    head, stream = peek(stream)
    found, kind = _decompressor(head), None
    if found is not None:
        kind, open_decompressed = found
        try:
            head, stream = peek(open_decompressed(stream))
        except DECOMPRESSION_ERRORS as exc:
            raise ScoremolError(f"{kind} input could not be read: {exc}") from exc
    inside = f"{kind}-compressed input holds " if kind else "input is "
    for magic, why in _NOT_TEXT.items():
        if head.startswith(magic):
            raise ScoremolError(f"{inside}{why}")
    if b"\0" in head:
        what = f"{kind}-compressed input holds no text" if kind else "input is not text"
        raise ScoremolError(f"{what} (it has NUL bytes); a UTF-16 file must be saved as UTF-8")
    return stream, kind


def without_compression_suffix(path: str) -> Path:
    """``path`` without a trailing .gz, .bz2 or .xz (whose ending names the format)."""
    p = Path(path)
    return p.with_suffix("") if p.suffix.lower() in COMPRESSED_SUFFIXES else p


__all__ = [
    "COMPRESSED_SUFFIXES",
    "DECOMPRESSION_ERRORS",
    "PrefixedStream",
    "compression_of",
    "open_binary",
    "peek",
    "text_input",
    "without_compression_suffix",
]
