"""The bad-input matrix, file by file, through the command line: each case ends in a
complete output or a one-line error with no traceback and no output file. (Molecule-level
cases are in ``tests/integration/test_bad_molecules.py``.)"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest
import torch

from scoremol.models.checkpoint import load_model
from scoremol.models.metadata import FORMAT_VERSION
from tests.conftest import run_cli

SDF_GOOD = (
    "ethanol\n  RDKit          2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
    "    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n"
    "    2.5981   -0.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n$$$$\n"
)
SDF_BAD = (
    "broken\n  RDKit          2D\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n"
    "    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n"
    "  1  5  1  0\nM  END\n$$$$\n"
)

# (case, file name, bytes, extra CLI args, expected exit code, expected rows or error fragment)
FILES = [
    ("header-only CSV", "h.csv", b"smiles,name\n", [], 1, "no data rows"),
    ("empty file", "e.csv", b"", [], 1, "empty"),
    ("missing SMILES column", "m.csv", b"name,value\nethanol,1\n", [], 1, "SMILES column"),
    ("misspelt --smiles-col", "s.csv", b"smiles,name\nCCO,ethanol\n", ["--smiles-col", "smile"], 1, "smile"),
    ("duplicate column names", "d.csv", b"smiles,y,y\nCCO,1,2\n", [], 1, "duplicate column names"),
    ("Windows line endings", "w.csv", b"smiles,name\r\nCCO,ethanol\r\nO,water\r\n", [], 0, 2),
    ("UTF-8 BOM", "b.csv", b"\xef\xbb\xbfsmiles,name\nCCO,ethanol\n", [], 0, 1),
    ("non-UTF-8 bytes", "n.csv", b"smiles,name\nCCO,\xe9thanol\nO,water\n", [], 0, 2),
    ("blank lines in CSV", "l.csv", b"smiles,name\nCCO,a\n\nO,b\n", [], 0, 3),
    ("SDF with a record that fails", "r.sdf", (SDF_GOOD + SDF_BAD + SDF_GOOD).encode(), [], 0, 3),
    (".smi with tabs", "t.smi", b"CCO\tethanol\nc1ccccc1\tbenzene\n", [], 0, 2),
    ("single molecule", "one.smi", b"CCO\n", [], 0, 1),
]


@pytest.mark.parametrize("case,name,content,args,code,expected", FILES, ids=[f[0] for f in FILES])
def test_file_cases_through_the_cli(case, name, content, args, code, expected, tiny_model, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / name
    src.write_bytes(content)
    out_file = tmp_path / "out.csv"
    _, err, rc = run_cli("predict", str(src), "--model", str(model_path), "-o", str(out_file), *args)
    assert rc == code, err
    assert "Traceback" not in err
    if code == 0:
        frame = pd.read_csv(out_file, keep_default_na=False)
        assert len(frame) == expected and {"status", "reason"} <= set(frame.columns)
    else:
        assert expected in err and len(err.strip().splitlines()) == 1 and not out_file.exists()


def test_sdf_failed_record_keeps_its_row(tiny_model, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / "r.sdf"
    src.write_text(SDF_GOOD + SDF_BAD + SDF_GOOD)
    stdout, err, rc = run_cli("predict", str(src), "--model", str(model_path))
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False)
    assert rc == 0 and frame["status"].tolist() == ["ok", "invalid", "ok"], err


@pytest.mark.slow
def test_stdin_closed_early_is_quiet(tiny_model, tmp_path):
    """`scoremol predict big.smi | head -3`: the reader goes away; no traceback, no noise.
    (A real pipe to a real process: this cannot run in-process.)"""
    _, model_path = tiny_model
    src = tmp_path / "big.smi"
    src.write_text("".join(f"{'C' * (i % 9 + 1)}O m{i}\n" for i in range(6000)))
    cmd = f"{sys.executable} -m scoremol predict {src} --model {model_path} --chunk-size 500 | head -3"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert len(proc.stdout.splitlines()) == 3
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_non_numeric_and_nan_targets_are_left_out_of_training(tmp_path):
    src = tmp_path / "train.csv"
    rows = ["smiles,y", "CCO,-0.5", "CCCO,-0.9", "CCCCO,abc", "CCCCCO,", "CCCCCCO,nan", "c1ccccc1,-1.6", "CC(C)O,-0.4"]
    src.write_text("\n".join(rows) + "\n")
    model = tmp_path / "m.pt"
    _, err, rc = run_cli("train", str(src), "--target", "y", "--epochs", "2", "--hidden", "16", "-o", str(model))
    assert rc == 0, err
    assert load_model(model).metrics["n_train_molecules"] == 4


def test_all_targets_missing_is_a_one_line_error(tmp_path):
    src = tmp_path / "train.csv"
    src.write_text("smiles,y\nCCO,\nCCCO,abc\n")
    _, err, rc = run_cli("train", str(src), "--target", "y", "--epochs", "2", "-o", str(tmp_path / "m.pt"))
    assert rc == 1 and "no usable target values" in err and "rows 2 ('abc')" in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "m.pt").exists()


@pytest.mark.parametrize("damage", ["truncated", "corrupted", "newer version", "not a model", "empty"])
def test_damaged_model_files(damage, tiny_model, tmp_path):
    _, model_path = tiny_model
    raw = model_path.read_bytes()
    bad = tmp_path / "bad.pt"
    if damage == "truncated":
        bad.write_bytes(raw[: len(raw) // 2])
    elif damage == "corrupted":
        mid = len(raw) // 2
        bad.write_bytes(raw[:mid] + bytes(b ^ 0xFF for b in raw[mid : mid + 4096]) + raw[mid + 4096 :])
    elif damage == "newer version":
        raw_payload = torch.load(model_path, weights_only=True)
        meta = json.loads(raw_payload["meta"])
        meta["format_version"] = FORMAT_VERSION + 1
        torch.save({"meta": json.dumps(meta), "weights": raw_payload["weights"]}, bad)
    elif damage == "not a model":
        bad.write_text("smiles\nCCO\n")
    else:
        bad.write_bytes(b"")
    src = tmp_path / "in.smi"
    src.write_text("CCO\n")
    _, err, rc = run_cli("predict", str(src), "--model", str(bad))
    assert rc == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    if damage == "newer version":
        assert "newer" in err
