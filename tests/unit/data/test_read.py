"""Every input format, SMILES-column detection, and rows that must never be dropped."""

from __future__ import annotations

import io
import sys

import pytest
from rdkit import Chem

from scoremol.data.atomic import atomic_write
from scoremol.data.read import iter_chunks, read_input
from scoremol.errors import ScoremolError
from scoremol.featurizers.molecule import parse_chunk


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def test_csv_with_detected_column_and_stripped_whitespace(tmp_path):
    path = write(tmp_path, "a.csv", "name,SMILES,y\nethanol,CCO ,1.5\nbenzene, c1ccccc1,2\n")
    chunk = read_input(path)
    assert chunk.smiles_col == "SMILES"
    assert chunk.smiles == ["CCO", "c1ccccc1"]
    assert chunk.frame["name"].tolist() == ["ethanol", "benzene"]
    assert chunk.frame["y"].tolist() == ["1.5", "2"]


def test_explicit_smiles_column(tmp_path):
    path = write(tmp_path, "a.csv", "id,structure\n1,CCO\n2,CCN\n")
    with pytest.raises(ScoremolError, match=r"no SMILES column found.*name it with --smiles-col \(smiles_col in"):
        read_input(path)
    assert read_input(path, smiles_col="structure").smiles == ["CCO", "CCN"]
    with pytest.raises(ScoremolError, match="'nope' not found; columns are: id, structure"):
        read_input(path, smiles_col="nope")


def test_tsv(tmp_path):
    path = write(tmp_path, "a.tsv", "smiles\tname\nCCO\tethanol\nO\twater\n")
    chunk = read_input(path)
    assert chunk.smiles == ["CCO", "O"] and chunk.frame["name"].tolist() == ["ethanol", "water"]


def test_smi_with_names_tabs_blank_lines_and_crlf(tmp_path):
    path = write(tmp_path, "a.smi", "CCO ethanol\r\n\r\nc1ccccc1\tbenzene ring\r\nC1CC\r\nO\r\n")
    chunk = read_input(path)
    assert chunk.smiles == ["CCO", "", "c1ccccc1", "C1CC", "O"]
    assert chunk.frame["name"].tolist() == ["ethanol", "", "benzene ring", "", ""]
    statuses = [p.status for p in parse_chunk(chunk)]
    assert statuses == ["ok", "empty", "ok", "invalid", "ok"]


def test_csv_blank_lines_keep_their_rows(tmp_path):
    path = write(tmp_path, "a.csv", "smiles,y\nCCO,1\n\nxyz,2\n,3\n")
    chunk = read_input(path)
    assert len(chunk) == 4
    assert [p.status for p in parse_chunk(chunk)] == ["ok", "empty", "invalid", "empty"]


def test_bom_and_non_utf8_bytes(tmp_path):
    path = write(tmp_path, "a.csv", b"\xef\xbb\xbfsmiles,name\nCCO,caf\xe9\n")
    chunk = read_input(path)
    assert chunk.smiles_col == "smiles" and chunk.smiles == ["CCO"]
    assert chunk.frame["name"].iloc[0].startswith("caf")


def test_sdf_keeps_properties_and_failed_records(tmp_path):
    good = Chem.MolFromSmiles("CCO")
    good.SetProp("_Name", "ethanol")
    good.SetProp("logS", "1.1")
    block = Chem.MolToMolBlock(good) + "> <logS>\n1.1\n\n$$$$\n"
    broken = "broken\n  junk\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\nnot an atom line\n$$$$\n"
    path = write(tmp_path, "a.sdf", block + broken + block)
    chunk = read_input(path)
    assert len(chunk) == 3
    parsed = parse_chunk(chunk)
    assert [p.status for p in parsed] == ["ok", "invalid", "ok"]
    assert "SDF record 2" in parsed[1].reason
    assert chunk.frame["name"].tolist()[0] == "ethanol"
    assert chunk.frame["logS"].tolist()[0] == "1.1"


def test_sdf_properties_named_like_the_structure_or_title_keep_them(tmp_path):
    mol = Chem.MolFromSmiles("CCO")
    mol.SetProp("_Name", "ethanol")
    block = Chem.MolToMolBlock(mol) + "> <smiles>\nfake\n\n> <name>\nprop name\n\n$$$$\n"
    chunk = read_input(write(tmp_path, "p.sdf", block))
    row = chunk.frame.iloc[0]
    assert row["smiles"] == "CCO" and row["name"] == "ethanol"
    assert row["sdf_smiles"] == "fake" and row["sdf_name"] == "prop name"


def test_an_sdf_on_standard_input_is_recognized(monkeypatch):
    mol = Chem.MolFromSmiles("CCO")
    mol.SetProp("_Name", "ethanol")
    block = (Chem.MolToMolBlock(mol) + "$$$$\n") * 2
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(block.encode())))
    chunk = read_input("-")
    assert chunk.smiles == ["CCO", "CCO"] and chunk.frame["name"].tolist() == ["ethanol", "ethanol"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"CCO\nO\nN\nC V2000x\nCC\n")))
    assert read_input("-").smiles == ["CCO", "O", "N", "C", "CC"]  # SMILES lines stay SMILES


def test_stdin_is_sniffed(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"CCO ethanol\nO water\n")))
    assert read_input("-").smiles == ["CCO", "O"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id,smiles\n1,CCO\n")))
    chunk = read_input("-")
    assert chunk.smiles == ["CCO"] and list(chunk.frame.columns) == ["id", "smiles"]


def test_empty_and_missing_inputs(tmp_path):
    with pytest.raises(ScoremolError, match="not found"):
        read_input(str(tmp_path / "missing.csv"))
    with pytest.raises(ScoremolError, match="empty"):
        read_input(write(tmp_path, "e.csv", ""))
    with pytest.raises(ScoremolError, match="no data rows"):
        read_input(write(tmp_path, "h.csv", "smiles,y\n"))
    with pytest.raises(ScoremolError, match="no data rows"):
        read_input(write(tmp_path, "e.smi", ""))


def test_smiles_col_does_not_apply_to_sdf_or_smi(tmp_path):
    mol = Chem.MolToMolBlock(Chem.MolFromSmiles("CCO")) + "$$$$\n"
    with pytest.raises(ScoremolError, match="smiles_col does not apply to SDF input"):
        read_input(write(tmp_path, "a.sdf", mol), smiles_col="smiles")
    with pytest.raises(ScoremolError, match=r"smiles_col does not apply to \.smi input"):
        read_input(write(tmp_path, "a.smi", "CCO ethanol\n"), smiles_col="structure")


def test_duplicate_column_names_are_an_error(tmp_path):
    with pytest.raises(ScoremolError, match="duplicate column names in header: y"):
        read_input(write(tmp_path, "d.csv", "smiles,y,y\nCCO,1,2\n"))


def test_chunks_preserve_order_and_offsets(tmp_path):
    lines = "".join(f"{'C' * (i % 5 + 1)} m{i}\n" for i in range(25))
    path = write(tmp_path, "many.smi", lines)
    chunks = list(iter_chunks(path, chunk_size=10))
    assert [len(c) for c in chunks] == [10, 10, 5]
    assert [c.start for c in chunks] == [0, 10, 20]
    assert [n for c in chunks for n in c.frame["name"]] == [f"m{i}" for i in range(25)]


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as handle:
            handle.write("partial")
            raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_atomic_write_to_a_device_writes_through():
    with atomic_write("/dev/null") as handle:
        handle.write("discarded")
    import os
    import stat

    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
