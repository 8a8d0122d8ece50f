"""Compressed inputs read as if they were plain; binary inputs refused with one line."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys

import pytest

from scoremol.data.read import detect_format, iter_chunks, read_input
from scoremol.data.stream import compression_of, text_input
from scoremol.errors import ScoremolError

SMI = "CCO ethanol\nc1ccccc1 benzene\n\nO water\n"
CSV = 'id,smiles,note\n1,CCO,"a, b"\n2,c1ccccc1,\n'
SDF = (
    "\n     RDKit          2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
    + "".join(
        f"{x:10.4f}    0.0000    0.0000 {e}   0  0  0  0  0  0  0  0  0  0  0  0\n"
        for x, e in ((0.0, "C"), (1.5, "C"), (3.0, "O"))
    )
    + "  1  2  1  0\n  2  3  1  0\nM  END\n>  <name>\nethanol\n\n$$$$\n"
)
COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def write(tmp_path, name: str, content: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


def rows(path: str, **kwargs) -> tuple[list[str], list[list[str]]]:
    chunk = read_input(path, **kwargs)
    return chunk.smiles, chunk.frame.astype(str).values.tolist()


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize(("name", "text"), [("lib.smi", SMI), ("lib.csv", CSV), ("lib.sdf", SDF)])
def test_compressed_inputs_give_the_rows_of_the_plain_file(tmp_path, suffix, name, text):
    plain = write(tmp_path, name, text.encode())
    packed = write(tmp_path, f"{name}.{suffix}", COMPRESS[suffix](text.encode()))
    assert detect_format(packed) == detect_format(plain)  # the ending before .gz names the format
    assert rows(packed) == rows(plain)
    assert len(rows(plain)[0]) >= 1


def test_a_compressed_file_without_a_format_ending_is_sniffed(tmp_path):
    assert detect_format("library.gz") is None
    assert rows(write(tmp_path, "library.gz", gzip.compress(CSV.encode()))) == rows(
        write(tmp_path, "library.csv", CSV.encode())
    )


def test_compressed_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(SMI.encode()))))
    assert read_input("-").smiles == ["CCO", "c1ccccc1", "", "O"]


def test_large_compressed_input_streams_in_chunks(tmp_path):
    text = "".join(f"{'C' * (1 + i % 20)}O mol{i}\n" for i in range(30_000))
    path = write(tmp_path, "big.smi.gz", gzip.compress(text.encode()))
    chunks = list(iter_chunks(path, chunk_size=7_000))
    assert [len(c) for c in chunks] == [7_000] * 4 + [2_000]
    assert chunks[-1].smiles[-1] == "C" * (1 + 29_999 % 20) + "O"


def test_a_truncated_compressed_input_is_one_line_error(tmp_path):
    text = "".join(f"C{'C' * (i % 7)}N mol{i}\n" for i in range(20_000)).encode()
    packed = gzip.compress(text)
    path = write(tmp_path, "cut.smi.gz", packed[: len(packed) // 2])
    with pytest.raises(ScoremolError, match=r"^gzip input could not be read: .*end-of-stream"):
        read_input(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"PK\x03\x04" + b"\0" * 40, "input is a ZIP archive .*export the table as CSV"),
        (b"\x28\xb5\x2f\xfd" + b"\0" * 40, "input is zstd-compressed; decompress it first"),
        (b"PAR1" + b"\0" * 40, r"input is a Parquet file; name it \.parquet"),
        ("CCO\nO\n".encode("utf-16"), "input is not text .*UTF-16 file must be saved as UTF-8"),
        (b"\x7fELF\x02\x01\x01\0\0\0P\n", "input is not text"),
        (gzip.compress(b"PK\x03\x04" + b"\0" * 40), "gzip-compressed input holds a ZIP archive"),
        (gzip.compress(b"CCO\0\0"), "gzip-compressed input holds no text"),
    ],
)
def test_binary_inputs_are_refused_with_what_to_do(tmp_path, content, message):
    with pytest.raises(ScoremolError, match=message):
        read_input(write(tmp_path, "input.csv", content))


def test_text_input_names_the_compression():
    for suffix, compress in COMPRESS.items():
        head = compress(b"CCO\n")
        assert compression_of(head) == {"gz": "gzip", "bz2": "bzip2", "xz": "xz"}[suffix]
        stream, kind = text_input(io.BytesIO(head))
        assert stream.read() == b"CCO\n" and kind == compression_of(head)
    stream, kind = text_input(io.BytesIO(b"CCO\n"))
    assert stream.read() == b"CCO\n" and kind is None and compression_of(b"CCO") is None


class _Pipe(io.RawIOBase):
    """A pipe whose writer sent ``first`` and has not sent more yet: reading on blocks."""

    def __init__(self, first: bytes) -> None:
        self.parts = [first]

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        if not self.parts:
            raise AssertionError("waited for more input than a format check needs")
        return self.parts.pop(0)


def test_a_pipe_is_not_held_up_for_more_than_its_first_line():
    stream, kind = text_input(_Pipe(b"CCO ethanol\n"))
    assert kind is None and stream.readline() == b"CCO ethanol\n"
    with pytest.raises(AssertionError, match="waited"):  # one byte could still begin a gzip header
        text_input(_Pipe(b"\x1f"))
