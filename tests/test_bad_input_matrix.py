"""The bad-input matrix: every case has an expected outcome, every row is accounted for.

Molecule-level cases run in-process through ``featurize`` and ``predict`` (same rows out
as in, status and reason as expected); file-level cases run the real command line and
expect either a complete output or a one-line error with no traceback.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.data.read import read_input
from scoremol.inference.predict import predict_stream
from tests.conftest import ESOL_TARGET, run_cli

# (case, SMILES, expected status, a fragment of the expected reason ("" = no reason))
MOLECULES = [
    ("invalid SMILES", "C1CC", "invalid", "invalid SMILES"),
    ("unbalanced aromatic ring", "c1ccccc", "invalid", "invalid SMILES"),
    ("pentavalent carbon", "C(C)(C)(C)(C)C", "invalid", "invalid SMILES"),
    ("empty", "", "empty", "empty SMILES"),
    ("whitespace only", "   ", "empty", "empty SMILES"),
    ("single atom", "C", "ok", ""),
    ("hydrogen only", "[H][H]", "ok", ""),
    ("salt", "CC(=O)[O-].[Na+]", "ok", "kept largest of 2 fragments; neutralized"),
    ("mixture", "CCO.c1ccccc1", "ok", "kept largest of 2 fragments"),
    ("disconnected fragments", "C.C", "ok", "kept largest of 2 fragments"),
    ("metal", "[Fe]", "ok", "contains Fe"),
    ("organometallic", "C[Hg]C", "ok", "contains Hg"),
    ("metallocene", "[Fe+2].c1cc[cH-]c1.c1cc[cH-]c1", "ok", "kept largest of 3 fragments"),
    ("charged species", "C[N+](C)(C)C", "ok", ""),
    ("isotopes", "[13CH3][2H]", "ok", ""),
    ("explicit hydrogens", "[H]OC([H])([H])[H]", "ok", ""),
    ("very large molecule", "C" * 320, "ok", ""),
    ("polymer wildcard", "*CC*", "invalid", "wildcard"),
    ("R-group wildcard", "[*]c1ccccc1", "invalid", "wildcard"),
]


@pytest.mark.parametrize("case,smiles,status,reason", MOLECULES, ids=[m[0] for m in MOLECULES])
def test_molecule_cases_in_featurize_and_predict(case, smiles, status, reason, tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "in.csv"
    pd.DataFrame({"id": ["before", case, "after"], "smiles": ["CCO", smiles, "c1ccccc1"]}).to_csv(src, index=False)
    data = featurize_chunk(read_input(str(src)), FeaturizerSettings(descriptors=True, descriptor_set="fast"))
    assert data.num_rows == 3 and data.status == ["ok", status, "ok"]
    assert reason in data.reason[1] and (reason or data.reason[1] == "")
    out = io.StringIO()
    summary = predict_stream(model, str(src), out)
    frame = pd.read_csv(io.StringIO(out.getvalue()), keep_default_na=False)
    assert summary.rows == 3 and frame["id"].tolist() == ["before", case, "after"]
    assert frame["status"].tolist() == ["ok", status, "ok"]
    value = frame[ESOL_TARGET][1]
    if status == "ok":
        assert np.isfinite(float(value))
    else:
        assert value == ""  # no prediction, the reason says why


def test_very_large_molecule_has_all_its_atoms():
    data = featurize_chunk(read_input_from_list(["C" * 320]), FeaturizerSettings())
    assert data.atom_ptr[-1] == 320 and data.edge_ptr[-1] == 2 * 319


def read_input_from_list(smiles):
    from scoremol.data.read import MoleculeChunk

    return MoleculeChunk(pd.DataFrame({"smiles": smiles}), list(smiles), 0)


# -- file-level cases through the command line ------------------------------------------

SDF_GOOD = "ethanol\n  RDKit          2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n" \
    "    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n" \
    "    2.5981   -0.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n$$$$\n"
SDF_BAD = "broken\n  RDKit          2D\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n" \
    "    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n" \
    "  1  5  1  0\nM  END\n$$$$\n"

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


def test_stdin_closed_early_is_quiet(tiny_model, tmp_path):
    """`scoremol predict big.smi | head -3`: the reader goes away; no traceback, no noise."""
    import subprocess
    import sys

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
    from scoremol.models.checkpoint import load_model

    assert load_model(model).metrics["n_train_molecules"] == 4


def test_all_targets_missing_is_a_one_line_error(tmp_path):
    src = tmp_path / "train.csv"
    src.write_text("smiles,y\nCCO,\nCCCO,abc\n")
    _, err, rc = run_cli("train", str(src), "--target", "y", "--epochs", "2", "-o", str(tmp_path / "m.pt"))
    assert rc == 1 and "numeric target" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.pt").exists()


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
        meta["format_version"] += 1
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
