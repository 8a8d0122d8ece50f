"""Cross-validation: fold assignment, no leakage, scaffold groups, aggregation, JSON, baselines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from scoremol.training import cv as cvlib
from scoremol.errors import ScoremolError
from tests.conftest import ESOL_FOLDS, run_cli

SMILES = [
    "c1ccccc1O", "c1ccccc1N", "c1ccccc1Cl", "Cc1ccccc1", "C1CCCCC1O", "C1CCCCC1N", "C1CCNCC1", "C1CCNCC1C",
    "c1ccc2ccccc2c1", "Cc1ccc2ccccc2c1", "CCO", "CCCO", "CCCCO", "CCN", "CC(=O)O", "c1ccncc1", "Cc1ccncc1",
    "O=C1CCCC1", "CC1=CC(=O)CC1", "c1ccoc1",
]


def test_folds_from_the_shared_file_partition_esol():
    folds = cvlib.folds_from_file(ESOL_FOLDS, 1128)
    assert sorted(np.bincount(folds).tolist()) == [225, 225, 226, 226, 226]
    table = pd.read_csv(ESOL_FOLDS)
    assert (folds[table["row"]] == table["fold"]).all()


def test_folds_file_errors(tmp_path):
    bad = tmp_path / "f.csv"
    bad.write_text("index,split\n0,1\n")
    with pytest.raises(ScoremolError, match="needs columns row,fold"):
        cvlib.folds_from_file(bad, 3)
    bad.write_text("row,fold\n0,0\n7,1\n")
    with pytest.raises(ScoremolError, match="outside"):
        cvlib.folds_from_file(bad, 3)
    bad.write_text("row,fold\n0,0\n0,1\n")
    with pytest.raises(ScoremolError, match="twice"):
        cvlib.folds_from_file(bad, 3)


@pytest.mark.parametrize("split", ["random", "scaffold"])
def test_generated_folds_partition_without_leakage(split):
    folds = cvlib.make_folds(SMILES, 4, split, seed=1)
    assert set(folds.tolist()) == {0, 1, 2, 3}
    seen: set[int] = set()
    for f in range(4):
        test = set(np.where(folds == f)[0].tolist())
        assert not test & seen
        seen |= test
    assert seen == set(range(len(SMILES)))
    assert np.array_equal(folds, cvlib.make_folds(SMILES, 4, split, seed=1))  # seeded


def test_scaffold_groups_stay_whole():
    folds = cvlib.make_folds(SMILES, 4, "scaffold", seed=0)
    by_scaffold: dict[str, set[int]] = {}
    for s, f in zip(SMILES, folds):
        scaffold = cvlib.scaffold_of(s)
        if scaffold:
            by_scaffold.setdefault(scaffold, set()).add(int(f))
    assert by_scaffold["c1ccccc1"] and all(len(v) == 1 for v in by_scaffold.values())
    assert len(by_scaffold["c1ccccc1"]) == 1 and len(by_scaffold["c1ccc2ccccc2c1"]) == 1


def test_run_cv_and_aggregation_arithmetic():
    y = np.arange(10, dtype=float)
    folds = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, -1])
    seen_train = []

    def runner(train, test, seed):
        seen_train.append(set(train.tolist()))
        assert not set(train) & set(test) and 9 not in train and 9 not in test
        return y[test] + (1.0 if test[0] < 4 else 3.0), 5.0, 42, []

    results = cvlib.run_cv(folds, y, runner)
    assert [r.fold for r in results] == [0, 1, 2, 3, 4]
    assert [r.rmse for r in results] == [1.0, 1.0, 3.0, 3.0, 3.0]
    s = cvlib.summarize(results)
    assert s["rmse"]["mean"] == pytest.approx(2.2) and s["rmse"]["std"] == pytest.approx(np.std([1, 1, 3, 3, 3]))
    assert s["mae"]["mean"] == pytest.approx(2.2) and s["parameters"] == 42 and s["n_folds"] == 5


def test_regression_metrics_match_definitions():
    m = cvlib.regression_metrics(np.array([1.0, 2.0, np.nan, 4.0]), np.array([1.5, 2.0, 9.0, 3.0]))
    assert m["rmse"] == pytest.approx(np.sqrt((0.25 + 0 + 1) / 3))
    assert m["mae"] == pytest.approx(0.5)


@pytest.fixture
def tiny_csv(tmp_path, esol_path):
    frame = pd.read_csv(esol_path).head(60)
    path = tmp_path / "tiny.csv"
    frame.to_csv(path, index=False)
    return path


def test_cli_cv_json_schema_and_outputs(tiny_csv, tmp_path):
    out_dir = tmp_path / "cv"
    stdout, err, code = run_cli(
        "cv", str(tiny_csv), "--target", "measured log solubility in mols per litre", "--folds", "3",
        "--arch", "gcn", "--hidden", "16", "--epochs", "2", "--ensemble", "1", "--blend-catboost", "0",
        "-o", str(out_dir), "--json",
    )
    assert code == 0, err
    payload = json.loads(stdout)
    assert set(payload) == {"config", "summary", "folds"}
    assert len(payload["folds"]) == 3 and {"rmse", "mae", "r2", "best_epoch", "seconds", "parameters"} <= set(payload["folds"][0])
    assert set(payload["summary"]["rmse"]) == {"mean", "std"}
    assert payload["summary"]["rmse"]["mean"] == pytest.approx(np.mean([f["rmse"] for f in payload["folds"]]))
    assert json.loads((out_dir / "cv_results.json").read_text())["summary"] == payload["summary"]
    oof = pd.read_csv(out_dir / "oof_predictions.csv")
    assert sorted(oof["row"]) == list(range(60))  # every molecule predicted exactly once
    assert len(pd.read_csv(out_dir / "cv_folds.csv")) == 3
    assert {"epoch", "val_rmse", "fold"} <= set(pd.read_csv(out_dir / "cv_history.csv").columns)


def test_cli_cv_baselines_on_a_tiny_set(tiny_csv, tmp_path):
    target = "measured log solubility in mols per litre"
    for extra in (["--arch", "catboost", "--morgan"], ["--arch", "score-mlp", "--hidden", "16", "--epochs", "2", "--ensemble", "1"],
                  ["--arch", "gcn", "--hidden", "16", "--epochs", "2", "--ensemble", "2", "--blend-catboost", "0.3"],
                  ["--arch", "mlp", "--mode", "base", "--hidden", "16", "--epochs", "2", "--ensemble", "1",
                   "--blend-catboost", "0", "--split", "scaffold"]):
        stdout, err, code = run_cli("cv", str(tiny_csv), "-t", target, "--folds", "3", "--json", *extra, cwd=tmp_path)
        assert code == 0, err
        assert np.isfinite(json.loads(stdout)["summary"]["rmse"]["mean"])
    assert not (tmp_path / "catboost_info").exists()


def test_cli_cv_catboost_defaults_to_fixed_trees_on_all_training_rows(tiny_csv, tmp_path):
    """CatBoost's baseline is the blended tree's recipe unless a validation split is asked for."""
    target = "measured log solubility in mols per litre"
    stdout, err, code = run_cli("cv", str(tiny_csv), "-t", target, "--folds", "3", "--json", "--arch", "catboost",
                                cwd=tmp_path)
    assert code == 0, err
    payload = json.loads(stdout)
    assert payload["config"]["val_fraction"] == 0.0
    assert {f["best_epoch"] for f in payload["folds"]} == {2000.0}  # every tree kept: nothing stopped early
    stdout, err, code = run_cli("cv", str(tiny_csv), "-t", target, "--folds", "3", "--json", "--arch", "catboost",
                                "--val-fraction", "0.2", cwd=tmp_path)
    assert code == 0, err
    payload = json.loads(stdout)
    assert payload["config"]["val_fraction"] == 0.2
    assert max(f["best_epoch"] for f in payload["folds"]) < 3000  # early stopping on the held-out fifth
