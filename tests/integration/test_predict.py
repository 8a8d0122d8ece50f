"""Prediction through the library: every row kept in order, reasons given, column names, streaming."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd

from scoremol.data.read import read_input
from scoremol.inference.predict import OutputOptions, output_columns, predict_chunk, predict_stream
from tests.conftest import ESOL_TARGET, PRED, STD

MESSY = (
    "smiles,name\nCCO,ethanol\n,blank\nnot_a_smiles,bad\n[Na+].CC(=O)[O-],salt\nCCO,ethanol again\nc1ccccc1,benzene\n"
)


def test_rows_order_reasons_and_duplicates(tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "messy.csv"
    src.write_text(MESSY)
    out = predict_chunk(model, read_input(str(src)))
    assert list(out.columns) == ["smiles", "name", PRED, STD, "status", "reason"]
    assert out["name"].tolist() == ["ethanol", "blank", "bad", "salt", "ethanol again", "benzene"]
    assert out["status"].tolist() == ["ok", "empty", "invalid", "ok", "ok", "ok"]
    assert out.loc[2, "reason"].startswith("invalid SMILES")
    assert "fragments" in out.loc[3, "reason"]
    pred = out[PRED]
    assert pred.isna().tolist() == [False, True, True, False, False, False]
    assert pred[0] == pred[4]  # duplicates get the same prediction
    assert (out[STD].dropna() >= 0).all()  # ensemble of 2: a std column


def test_input_columns_are_never_overwritten(tiny_model, esol_path):
    """ESOL carries its measured target: the new names do not collide with it, and an input
    column that already has a prediction column's name keeps it (ours get a prefix)."""
    model, _ = tiny_model
    chunk = read_input(str(esol_path))
    chunk.frame, chunk.smiles = chunk.frame.head(10).copy(), chunk.smiles[:10]
    out = predict_chunk(model, chunk)
    assert out[ESOL_TARGET].tolist() == chunk.frame[ESOL_TARGET].tolist()
    assert out[PRED].notna().all() and f"{ESOL_TARGET}_pred" not in out.columns
    chunk.frame[PRED] = "theirs"
    chunk.frame["status"] = "theirs too"
    clashing = predict_chunk(model, chunk)
    assert (clashing[PRED] == "theirs").all() and (clashing["status"] == "theirs too").all()
    assert np.allclose(clashing[f"scoremol_{PRED}"], out[PRED])
    assert clashing["scoremol_status"].tolist() == ["ok"] * 10 and STD in clashing.columns


def test_column_names_new_legacy_and_on_collision(tiny_model):
    model, _ = tiny_model  # two members: a spread column too
    legacy = OutputOptions(legacy_names=True)

    def names(columns):
        return columns.pred, columns.std, columns.status, columns.reason

    assert names(output_columns(model, ["smiles"])) == ([PRED], [STD], "status", "reason")
    assert names(output_columns(model, ["smiles"], legacy)) == (
        [ESOL_TARGET],
        [f"{ESOL_TARGET}_std"],
        "status",
        "reason",
    )
    # scoremol 0.1 named the prediction after the training column, `<name>_pred` on a collision
    assert names(output_columns(model, ["smiles", ESOL_TARGET], legacy))[:2] == (
        [f"{ESOL_TARGET}_pred"],
        [f"{ESOL_TARGET}_pred_std"],
    )
    assert names(output_columns(model, ["smiles", PRED, STD, "reason"]))[:2] == (
        [f"scoremol_{PRED}"],
        [f"scoremol_{STD}"],
    )
    assert output_columns(model, ["smiles", PRED, "scoremol_" + PRED]).pred == [f"scoremol_scoremol_{PRED}"]


def test_legacy_names_in_the_stream(tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "m.smi"
    src.write_text("CCO\nc1ccccc1\n")
    new, legacy = io.StringIO(), io.StringIO()
    predict_stream(model, str(src), new)
    predict_stream(model, str(src), legacy, options=OutputOptions(legacy_names=True))
    a, b = pd.read_csv(io.StringIO(new.getvalue())), pd.read_csv(io.StringIO(legacy.getvalue()))
    assert list(a.columns) == ["smiles", "name", PRED, STD, "status", "reason"]
    assert list(b.columns) == ["smiles", "name", ESOL_TARGET, f"{ESOL_TARGET}_std", "status", "reason"]
    assert np.array_equal(a[PRED], b[ESOL_TARGET])


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


def test_predicting_with_a_dmpnn_model_does_not_import_torch_geometric():
    """PyG's import costs seconds per command; DMPNN prediction runs on plain torch.
    (A fresh interpreter: this test process has imported PyG long ago.)"""
    code = (
        "import sys\n"
        "from scoremol.models.checkpoint import load_model\n"
        "from scoremol.pretrained import bundled_model_path\n"
        "from scoremol.data.read import smiles_chunk\n"
        "from scoremol.inference.predict import predict_part\n"
        "result = predict_part(load_model(bundled_model_path('fast')), smiles_chunk(['CCO', 'c1ccccc1', 'xx']))\n"
        "assert list(result.graph_row) == [0, 1] and result.mean[0, 0] > result.mean[1, 0], result\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch_geometric')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
