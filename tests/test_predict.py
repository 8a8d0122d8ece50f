"""Prediction: every row kept in order, reasons given, streaming, stdin/stdout pipelines."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd

from scoremol.data.read import read_input
from scoremol.inference.predict import predict_chunk, predict_stream
from tests.conftest import ESOL_TARGET, run_cli

MESSY = "smiles,name\nCCO,ethanol\n,blank\nnot_a_smiles,bad\n[Na+].CC(=O)[O-],salt\nCCO,ethanol again\nc1ccccc1,benzene\n"


def test_rows_order_reasons_and_duplicates(tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "messy.csv"
    src.write_text(MESSY)
    out = predict_chunk(model, read_input(str(src)))
    assert out["name"].tolist() == ["ethanol", "blank", "bad", "salt", "ethanol again", "benzene"]
    assert out["status"].tolist() == ["ok", "empty", "invalid", "ok", "ok", "ok"]
    assert out.loc[2, "reason"].startswith("invalid SMILES")
    assert "fragments" in out.loc[3, "reason"]
    pred = out[ESOL_TARGET]
    assert pred.isna().tolist() == [False, True, True, False, False, False]
    assert pred[0] == pred[4]  # duplicates get the same prediction
    assert (out[f"{ESOL_TARGET}_std"].dropna() >= 0).all()  # ensemble of 2: a std column


def test_existing_target_column_is_not_overwritten(tiny_model, esol_path):
    model, _ = tiny_model
    chunk = read_input(str(esol_path))
    chunk.frame, chunk.smiles = chunk.frame.head(10), chunk.smiles[:10]
    out = predict_chunk(model, chunk)
    assert out[ESOL_TARGET].tolist() == chunk.frame[ESOL_TARGET].tolist()
    assert f"{ESOL_TARGET}_pred" in out.columns and out[f"{ESOL_TARGET}_pred"].notna().all()


def test_chunked_stream_equals_one_chunk(tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "m.smi"
    src.write_text("".join(f"{'C' * (i % 7 + 1)}O m{i}\n" for i in range(23)) + "\nxx bad\n")
    small, large = io.StringIO(), io.StringIO()
    s1 = predict_stream(model, str(src), small, chunk_size=4)
    s2 = predict_stream(model, str(src), large, chunk_size=1000)
    assert small.getvalue() == large.getvalue()
    assert (s1.rows, s1.predicted, s1.failed) == (s2.rows, 23, 2)
    frame = pd.read_csv(io.StringIO(small.getvalue()), keep_default_na=False)
    assert len(frame) == 25 and frame["name"].tolist()[:3] == ["m0", "m1", "m2"]


def test_cli_round_trip_file_and_pipeline(tiny_model, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / "messy.csv"
    src.write_text(MESSY)
    out_file = tmp_path / "pred.csv"
    _, err, code = run_cli("predict", str(src), "--model", str(model_path), "-o", str(out_file))
    assert code == 0, err
    from_file = out_file.read_text()
    stdout, err, code = run_cli("predict", "-", "--model", str(model_path), stdin=MESSY)
    assert code == 0, err
    assert stdout == from_file  # only data on stdout, identical to the file
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False)
    assert len(frame) == 6 and frame["status"].tolist() == ["ok", "empty", "invalid", "ok", "ok", "ok"]
    assert "predicted 4/6 rows" in err


def test_cli_errors_leave_no_output_file(tiny_model, tmp_path):
    _, model_path = tiny_model
    (tmp_path / "empty.csv").write_text("smiles\n")
    out_file = tmp_path / "pred.csv"
    _, err, code = run_cli("predict", str(tmp_path / "empty.csv"), "--model", str(model_path), "-o", str(out_file))
    assert code == 1 and "no data rows" in err and not out_file.exists()
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a model")
    _, err, code = run_cli("predict", str(tmp_path / "empty.csv"), "--model", str(bad))
    assert code == 1 and "not a readable scoremol model" in err and "Traceback" not in err


def test_predicting_with_a_dmpnn_model_does_not_import_torch_geometric():
    """PyG's import costs seconds per command; DMPNN prediction runs on plain torch."""
    code = (
        "import sys\n"
        "from scoremol.models.checkpoint import load_model\n"
        "from scoremol.pretrained import bundled_model_path\n"
        "from scoremol.inference.predict import iter_predictions\n"
        "values = list(iter_predictions(load_model(bundled_model_path('fast')), ['CCO', 'c1ccccc1', 'xx']))\n"
        "assert values[0] > values[1] and values[2] != values[2], values\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch_geometric')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
