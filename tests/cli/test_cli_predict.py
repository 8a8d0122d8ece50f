"""`scoremol predict`: inputs (files, stdin, data set names, SMILES arguments), the bundled
models, output columns, and one-line errors that leave no output file."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd

from tests.conftest import ESOL_TARGET, PRED, ROOT, STD, run_cli

MESSY = (
    "smiles,name\nCCO,ethanol\n,blank\nnot_a_smiles,bad\n[Na+].CC(=O)[O-],salt\nCCO,ethanol again\nc1ccccc1,benzene\n"
)
EXAMPLES = ROOT / "data" / "examples.smi"


def _frame(stdout: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(stdout), keep_default_na=False)


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
    frame = _frame(stdout)
    assert list(frame.columns) == ["smiles", "name", PRED, STD, "status", "reason"]
    assert len(frame) == 6 and frame["status"].tolist() == ["ok", "empty", "invalid", "ok", "ok", "ok"]
    assert "predicted 4/6 rows (2 without a prediction, see the reason column)" in err


def test_the_reason_column_is_mentioned_only_when_a_row_failed(tiny_model):
    _, model_path = tiny_model
    _, err, code = run_cli("predict", "-", "--model", str(model_path), stdin="CCO\nc1ccccc1\n")
    assert code == 0, err
    assert "predicted 2/2 rows in" in err and "reason" not in err


def test_smiles_as_arguments(tiny_model):
    _, model_path = tiny_model
    stdout, err, code = run_cli("predict", "CCO", "c1ccccc1", "notasmiles", "--model", str(model_path))
    assert code == 0, err
    frame = _frame(stdout)
    assert frame["smiles"].tolist() == ["CCO", "c1ccccc1", "notasmiles"]
    assert frame["status"].tolist() == ["ok", "ok", "invalid"]
    assert frame[PRED][2] == "" and np.isfinite(frame[PRED][:2].astype(float)).all()
    assert "predicted 2/3 rows" in err and "see the reason column" in err
    stdout, err, code = run_cli("predict", "CCO", "--model", str(model_path))  # one SMILES, not a file
    assert code == 0 and _frame(stdout)["smiles"].tolist() == ["CCO"], err


def test_a_missing_file_is_a_one_line_error(tiny_model, tmp_path):
    _, model_path = tiny_model
    cases = (
        ("missing.csv", "input file not found: missing.csv"),
        ("notasmiles", "input file not found: notasmiles (nor a data set name or a valid SMILES)"),
    )
    for missing, message in cases:
        stdout, err, code = run_cli("predict", missing, "--model", str(model_path), cwd=tmp_path)
        assert code == 1 and stdout == "", err
        assert err.strip() == f"scoremol: error: {message}"


def test_a_data_set_name_with_the_bundled_fast_model():
    stdout, err, code = run_cli("predict", "esol", "--model", "esol-fast")
    assert code == 0, err
    assert "using the bundled model 'esol-fast' (ESOL, 1,128 molecules" in err
    frame = _frame(stdout)
    assert len(frame) == 1128 and (frame["status"] == "ok").all()
    assert {ESOL_TARGET, PRED, "status", "reason"} <= set(frame.columns) and STD not in frame.columns
    rmse = np.sqrt(np.mean((frame[PRED].astype(float) - frame[ESOL_TARGET].astype(float)) ** 2))
    assert rmse < 0.6  # the model was trained on these molecules


def test_predict_without_model_uses_the_bundled_one():
    stdout, err, code = run_cli("predict", str(EXAMPLES))
    assert code == 0, err
    assert "using the bundled model 'multitask' (AqSolDB, Biogen pH 6.8, logD 7.4" in err and "--model chooses" in err
    frame = _frame(stdout).set_index("name")
    assert len(frame) == 22 and (frame["status"] == "ok").all()
    assert list(frame.columns[1:4]) == ["logS_pred", "logSol_pH6.8_pred", "logD_pred"]  # logS_pred stays third
    logs = frame[PRED].astype(float)
    assert logs["naphthalene"] < logs["benzene"] < logs["ethanol"]
    assert (frame[STD].astype(float) >= 0).all()


def test_target_chooses_the_columns_of_a_multi_task_model():
    stdout, err, code = run_cli("predict", "CCO", "c1ccccc1", "-m", "fast", "-t", "logD", "--ugml")
    assert code == 0, err
    frame = _frame(stdout)
    # no solubility, in mol/L or ug/mL (one network: no _std)
    assert list(frame.columns) == [
        "smiles",
        "name",
        "logD_pred",
        "logD_lo",
        "logD_hi",
        "similarity",
        "domain",
        "status",
        "reason",
    ]
    stdout, err, code = run_cli("predict", "CCO", "-m", "fast", "-t", "BBB")
    assert code == 1 and stdout == ""
    assert "--target BBB: this model predicts logS, logSol_pH6.8, logD" in err and "Traceback" not in err


def test_a_model_file_named_like_a_bundled_model_wins(tmp_path):
    (tmp_path / "fast").write_bytes(b"not a model")
    _, err, code = run_cli("predict", str(EXAMPLES), "--model", "fast", cwd=tmp_path)
    assert code == 1 and "not a readable scoremol model" in err and "Traceback" not in err


def test_legacy_names(tiny_model, esol_path, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / "in.smi"
    src.write_text("CCO ethanol\nc1ccccc1 benzene\n")
    new, err, code = run_cli("predict", str(src), "--model", str(model_path))
    assert code == 0, err
    legacy, err, code = run_cli("predict", str(src), "--model", str(model_path), "--legacy-names")
    assert code == 0, err
    a, b = _frame(new), _frame(legacy)
    assert list(b.columns) == ["smiles", "name", ESOL_TARGET, f"{ESOL_TARGET}_std", "status", "reason"]
    assert b[ESOL_TARGET].tolist() == a[PRED].tolist()
    # an input that carries the training column: the legacy prediction becomes <name>_pred
    small = tmp_path / "small.csv"
    pd.read_csv(esol_path).head(5).to_csv(small, index=False)
    legacy, err, code = run_cli("predict", str(small), "--model", str(model_path), "--legacy-names")
    assert code == 0, err
    frame = _frame(legacy)
    assert f"{ESOL_TARGET}_pred" in frame.columns and f"{ESOL_TARGET}_pred_std" in frame.columns
    assert frame[ESOL_TARGET].tolist() == pd.read_csv(small, keep_default_na=False)[ESOL_TARGET].tolist()


def test_an_input_column_named_like_a_prediction_column_is_kept(tiny_model):
    _, model_path = tiny_model
    stdout, err, code = run_cli("predict", "-", "--model", str(model_path), stdin="smiles,logS_pred\nCCO,theirs\n")
    assert code == 0, err
    frame = _frame(stdout)
    assert frame[PRED].tolist() == ["theirs"] and np.isfinite(frame[f"scoremol_{PRED}"].astype(float)).all()


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


def test_failed_predict_keeps_the_previous_file(tiny_model, tmp_path):
    _, model_path = tiny_model
    out = tmp_path / "pred.csv"
    out.write_text("previous results\n")
    (tmp_path / "empty.csv").write_text("")
    _, err, code = run_cli("predict", str(tmp_path / "empty.csv"), "--model", str(model_path), "-o", str(out))
    assert code == 1 and "input is empty" in err
    assert out.read_text() == "previous results\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_compressed_library_predicts_as_the_plain_file(tiny_model, tmp_path):
    _, model_path = tiny_model
    packed = tmp_path / "library.smi.gz"
    packed.write_bytes(gzip.compress(EXAMPLES.read_bytes()))
    plain, _, code = run_cli("predict", str(EXAMPLES), "--model", str(model_path))
    assert code == 0
    out, err, code = run_cli("predict", str(packed), "--model", str(model_path))
    assert code == 0, err
    assert out == plain and len(_frame(out)) == len(EXAMPLES.read_text().splitlines())
    workbook = tmp_path / "library.xlsx"
    workbook.write_bytes(b"PK\x03\x04" + bytes(60))
    out, err, code = run_cli("predict", str(workbook), "--model", str(model_path), "-o", str(tmp_path / "o.csv"))
    assert code == 1 and out == "" and not (tmp_path / "o.csv").exists()
    assert err.strip() == "scoremol: error: input is a ZIP archive (an Excel workbook is one); export the table as CSV"
