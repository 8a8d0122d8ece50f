"""Where a run writes is checked before any work: no input is overwritten, no two outputs
share a file, and a path that cannot be written fails at once with a one-line reason."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from scoremol.data.destination import check_destination
from tests.conftest import run_cli, tiny_net_flags

SMALL = "smiles,y\n" + "".join(f"{'C' * (i % 7 + 1)}O,{-i / 10}\n" for i in range(30))


def test_predict_refuses_to_write_over_its_input(tiny_model, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / "in.csv"
    src.write_text("smiles\nCCO\n")
    _, err, code = run_cli("predict", str(src), "--model", str(model_path), "-o", str(src))
    assert code == 1 and "-o" in err and "also what this run reads" in err and "Traceback" not in err
    assert src.read_text() == "smiles\nCCO\n"


def test_predict_refuses_a_report_over_its_input_or_output(tiny_model, tmp_path):
    _, model_path = tiny_model
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("smiles\nCCO\n")
    _, err, code = run_cli("predict", str(src), "--model", str(model_path), "--report", str(src))
    assert code == 1 and "--report" in err and src.read_text() == "smiles\nCCO\n"
    _, err, code = run_cli("predict", str(src), "--model", str(model_path), "-o", str(out), "--report", str(out))
    assert code == 1 and "-o and --report name the same file" in err
    assert not out.exists()


def test_predict_refuses_a_folder_or_an_unwritable_place_before_the_work(tiny_model, tmp_path):
    _, model_path = tiny_model
    _, err, code = run_cli("predict", "CCO", "--model", str(model_path), "-o", str(tmp_path))
    assert code == 1 and "is a folder; give a file name" in err
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    _, err, code = run_cli("predict", "CCO", "--model", str(model_path), "-o", str(blocker / "out.csv"))
    assert code == 1 and "cannot write -o" in err and "Traceback" not in err
    out = tmp_path / "ok.csv"
    _, err, code = run_cli(
        "predict", "CCO", "--model", str(model_path), "-o", str(out), "--report", str(blocker / "r.html")
    )
    assert code == 1 and "cannot write --report" in err
    assert not out.exists()  # refused before the predictions were written


def test_train_refuses_to_write_its_model_over_an_input_before_training(tmp_path):
    src = tmp_path / "train.csv"
    src.write_text(SMALL)
    _, err, code = run_cli("train", str(src), "--target", "y", *tiny_net_flags(1), "-o", str(src))
    assert code == 1 and "also what this run reads" in err
    assert src.read_text() == SMALL


def test_featurize_and_cv_check_their_outputs(tmp_path):
    src = tmp_path / "train.csv"
    src.write_text(SMALL)
    _, err, code = run_cli("featurize", str(src), "-o", str(src))
    assert code == 1 and "also what this run reads" in err and src.read_text() == SMALL
    _, err, code = run_cli("cv", str(src), "--target", "y", *tiny_net_flags(1), "-o", str(src))
    assert code == 1 and "is a file; give a folder" in err


def test_check_destination_lets_standard_output_devices_and_new_folders_through(tmp_path):
    for path in (None, "-", os.devnull, tmp_path / "new" / "deeper" / "out.csv"):
        check_destination(path, "-o", reads=["", None, "esol"])
    check_destination(tmp_path / "new_folder", "-o", folder=True)
    assert not (tmp_path / "new").exists()  # checking writes nothing that stays
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".scoremol-probe")]


def test_explain_leaves_no_files_of_an_earlier_run(tiny_model, tmp_path):
    _, model_path = tiny_model
    folder = tmp_path / "why"
    _, err, code = run_cli("explain", "CCO", "c1ccccc1O", "CCCC", "--model", str(model_path), "-o", str(folder))
    assert code == 0, err
    assert len(list(folder.glob("mol*.svg"))) == 3
    (folder / "notes.txt").write_text("mine")  # not an explain file: kept
    _, err, code = run_cli("explain", "CCN", "--model", str(model_path), "-o", str(folder))
    assert code == 0, err
    index = pd.read_csv(folder / "explanations.csv")
    assert index["files"].tolist() == ["mol0001"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["explanations.csv", "notes.txt"] + [f"mol0001.{e}" for e in ("json", "csv", "svg", "png")]
    )


def test_a_missing_file_among_smiles_arguments_is_an_error_not_a_row(tiny_model, tmp_path):
    _, model_path = tiny_model
    _, err, code = run_cli("predict", "CCO", str(tmp_path / "library.csv"), "--model", str(model_path))
    assert code == 1 and "input file not found" in err and "library.csv" in err


def test_a_folder_given_as_the_model_says_so(tmp_path):
    _, err, code = run_cli("predict", "CCO", "--model", str(tmp_path))
    assert code == 1 and "is a folder, not a model file" in err


def test_probe_files_never_stay(tmp_path):
    check_destination(tmp_path / "x.csv", "-o")
    assert list(Path(tmp_path).iterdir()) == []
