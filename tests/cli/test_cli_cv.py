"""`scoremol cv`: the JSON document, output files, baselines, and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from scoremol.models.catboost import FIXED_TREES, MAX_TREES
from scoremol.spec import TrainingSpec
from tests.conftest import ESOL_TARGET, esol_head, run_cli, tiny_net_flags

SMALL_NET = tiny_net_flags(2)


@pytest.fixture
def tiny_csv(tmp_path, esol_path):
    return esol_head(esol_path, 60, tmp_path)


def test_cli_cv_json_schema_and_outputs(tiny_csv, tmp_path):
    out_dir = tmp_path / "cv"
    stdout, err, code = run_cli(
        "cv", str(tiny_csv), "--target", ESOL_TARGET, "--folds", "3", *SMALL_NET, "-o", str(out_dir), "--json"
    )
    assert code == 0, err
    payload = json.loads(stdout)
    assert set(payload) == {"config", "summary", "folds"}
    assert len(payload["folds"]) == 3
    assert {"rmse", "mae", "r2", "best_epoch", "seconds", "parameters"} <= set(payload["folds"][0])
    assert set(payload["summary"]["rmse"]) == {"mean", "std"}
    assert payload["summary"]["rmse"]["mean"] == pytest.approx(np.mean([f["rmse"] for f in payload["folds"]]))
    # the configuration is the resolved spec (what `train` with the same options builds)
    config = payload["config"]
    assert {"model", "train"}.isdisjoint(config)
    assert (config["target"], config["folds"], config["split"], config["repeats"]) == (ESOL_TARGET, 3, "random", 1)
    expected = TrainingSpec(arch="gcn", hidden=16, epochs=2, ensemble=1, blend_catboost=0.0).resolved().to_dict()
    assert config["spec"] == expected
    assert json.loads((out_dir / "cv_results.json").read_text())["summary"] == payload["summary"]
    oof = pd.read_csv(out_dir / "oof_predictions.csv")
    assert sorted(oof["row"]) == list(range(60))  # every molecule predicted exactly once
    assert len(pd.read_csv(out_dir / "cv_folds.csv")) == 3
    assert {"epoch", "train_loss", "fold"} <= set(pd.read_csv(out_dir / "cv_history.csv").columns)
    assert "fold 2 (repeat 0): RMSE" in err


SLOW = pytest.mark.slow
BASELINES = [
    pytest.param(["--arch", "catboost", "--morgan"], id="catboost-morgan", marks=SLOW),
    pytest.param(
        ["--arch", "score-mlp", "--hidden", "16", "--epochs", "2", "--ensemble", "1"], id="score-mlp", marks=SLOW
    ),
    pytest.param(
        ["--arch", "gcn", "--hidden", "16", "--epochs", "2", "--ensemble", "2", "--blend-catboost", "0.3"],
        id="gcn-blend",
        marks=SLOW,
    ),
    pytest.param(
        [
            "--arch",
            "mlp",
            "--mode",
            "base",
            "--hidden",
            "16",
            "--epochs",
            "2",
            "--ensemble",
            "1",
            "--blend-catboost",
            "0",
            "--split",
            "scaffold",
        ],
        id="mlp-scaffold",
    ),
]


@pytest.mark.parametrize("extra", BASELINES)
def test_cli_cv_baselines_on_a_tiny_set(extra, tiny_csv, tmp_path):
    stdout, err, code = run_cli("cv", str(tiny_csv), "-t", ESOL_TARGET, "--folds", "3", "--json", *extra, cwd=tmp_path)
    assert code == 0, err
    payload = json.loads(stdout)
    assert np.isfinite(payload["summary"]["rmse"]["mean"]) and len(payload["folds"]) == 3
    assert payload["config"]["spec"]["arch"] == extra[1]
    assert not (tmp_path / "catboost_info").exists()  # CatBoost writes no stray folder


@pytest.mark.slow
def test_cli_cv_catboost_defaults_to_fixed_trees_on_all_training_rows(tiny_csv, tmp_path):
    """CatBoost's baseline is the blended tree's recipe unless a validation split is asked for."""
    stdout, err, code = run_cli(
        "cv", str(tiny_csv), "-t", ESOL_TARGET, "--folds", "3", "--json", "--arch", "catboost", cwd=tmp_path
    )
    assert code == 0, err
    spec = json.loads(stdout)["config"]["spec"]
    assert (spec["val_fraction"], spec["ensemble"], spec["blend_catboost"]) == (0.0, 1, 0.0)
    assert spec["descriptor_set"] == "tree"
    assert {f["best_epoch"] for f in json.loads(stdout)["folds"]} == {float(FIXED_TREES)}  # every tree kept
    stdout, err, code = run_cli(
        "cv",
        str(tiny_csv),
        "-t",
        ESOL_TARGET,
        "--folds",
        "3",
        "--json",
        "--arch",
        "catboost",
        "--val-fraction",
        "0.2",
        cwd=tmp_path,
    )
    assert code == 0, err
    payload = json.loads(stdout)
    assert payload["config"]["spec"]["val_fraction"] == 0.2
    assert max(f["best_epoch"] for f in payload["folds"]) < MAX_TREES  # early stopping on the held-out fifth


def test_cli_cv_a_misspelled_split_fails_at_parse_time(tiny_csv):
    _, err, code = run_cli("cv", str(tiny_csv), "-t", ESOL_TARGET, "--split", "cluster")
    assert code == 2 and "is not one of 'random', 'scaffold'" in " ".join(err.split()), err


def test_cli_cv_errors_are_one_line(tiny_csv, tmp_path):
    folds_file = tmp_path / "folds.csv"
    folds_file.write_text("row,fold\n" + "".join(f"{i},{i % 3}\n" for i in range(60)))
    cases = [
        (["--folds", "1"], "folds must be between 2 and the number of molecules (60)"),
        (["--repeats", "0"], "repeats must be at least 1"),
        (["--folds-file", str(folds_file), "--repeats", "2"], "cannot be combined with a folds file"),
        (["--folds-file", str(tmp_path / "missing.csv")], "folds file not found"),
        (["--arch", "catboost", "-t", "Molecular Weight"], "the CatBoost baseline cross-validates one target"),
        (["--folds-file", str(folds_file), "--folds", "3"], "--folds and --folds-file both choose the folds"),
        (["--split", "scaffold", "--folds", "59"], "allows at most"),
    ]
    for extra, message in cases:
        _, err, code = run_cli("cv", str(tiny_csv), "-t", ESOL_TARGET, *SMALL_NET, *extra)
        assert code == 1 and message in err, (extra, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_cli_cv_leave_one_out_writes_strict_json_and_says_what_a_folds_file_leaves_out(tiny_csv, tmp_path):
    """One-molecule folds have no R2: JSON gets null (NaN is no JSON), and no numpy warning
    reaches the terminal; rows a folds file leaves out are said, not silently dropped."""
    head = tmp_path / "twelve.csv"
    pd.read_csv(tiny_csv).head(12).to_csv(head, index=False)
    out_dir = tmp_path / "loo"
    stdout, err, code = run_cli(
        "cv", str(head), "-t", ESOL_TARGET, "--folds", "12", *tiny_net_flags(1), "--json", "-o", str(out_dir)
    )
    assert code == 0, err
    strict = json.loads(stdout, parse_constant=lambda token: pytest.fail(f"{token} is not JSON"))
    assert strict["summary"]["r2"] == {"mean": None, "std": None}
    json.loads((out_dir / "cv_results.json").read_text(), parse_constant=lambda token: pytest.fail(token))
    assert "RuntimeWarning" not in err and "Mean of empty slice" not in err
    folds_file = tmp_path / "folds.csv"
    folds_file.write_text("row,fold\n" + "".join(f"{i},{i % 2}\n" for i in range(10)))  # rows 10, 11 left out
    _, err, code = run_cli("cv", str(head), "-t", ESOL_TARGET, *tiny_net_flags(1), "--folds-file", str(folds_file))
    assert code == 0 and "2 molecule(s) have no fold in" in err, err
