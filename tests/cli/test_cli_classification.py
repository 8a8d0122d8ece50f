"""The command line with a yes/no target: the summary says how it read it, predict writes its
probability, class and set, cv its classification metrics, --threshold refuses it."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from scoremol.data.registry import resolve
from tests.conftest import run_cli

TINY = ["--arch", "gcn", "--hidden", "16", "--epochs", "2", "--no-descriptors", "--blend-catboost", "0"]


@pytest.fixture(scope="module")
def ames_csv(tmp_path_factory):
    """240 Ames molecules with their 0/1 labels (a shared PharmaBench sample)."""
    frame = pd.read_csv(resolve("pharmabench-ames")).sample(240, random_state=0)
    path = tmp_path_factory.mktemp("ames") / "ames.csv"
    pd.DataFrame({"smiles": frame.Smiles_unify, "mutagenic": frame.value}).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_train_predict_and_cv_a_yes_no_column(ames_csv, tmp_path):
    model = tmp_path / "m.pt"
    _, err, rc = run_cli("train", str(ames_csv), "-t", "mutagenic", *TINY, "--ensemble", "2", "-o", str(model))
    assert rc == 0, err
    assert "mutagenic: classification, classes 0 / 1 (positive)" in err and "--task-type mutagenic=regression" in err
    out, err, rc = run_cli("predict", "CCO", "c1ccc2cc3ccccc3cc2c1", "--model", str(model))
    assert rc == 0, err
    frame = pd.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)
    assert ["mutagenic_prob", "mutagenic_class", "mutagenic_set"] == [c for c in frame.columns if "mutagenic" in c]
    assert set(frame.mutagenic_class) <= {"0", "1"} and all(s.startswith("{") for s in frame.mutagenic_set)
    _, err, rc = run_cli("predict", "CCO", "--model", str(model), "--threshold", "0.5")
    assert rc == 1 and "no meaning for the yes/no target mutagenic" in err and len(err.strip().splitlines()) == 1
    out, err, rc = run_cli("cv", str(ames_csv), "-t", "mutagenic", *TINY, "--ensemble", "1", "--folds", "2", "--json")
    assert rc == 0, err
    summary = json.loads(out)["summary"]
    assert {"auroc", "auprc", "balanced_accuracy", "brier", "ece"} <= set(summary) and "AUROC" in err


def test_task_type_regresses_a_zero_one_column_and_names_unknown_targets(ames_csv, tmp_path):
    model = tmp_path / "r.pt"
    args = ("train", str(ames_csv), "-t", "mutagenic", *TINY, "--ensemble", "1", "--no-calibrate", "-o", str(model))
    _, err, rc = run_cli(*args, "--task-type", "mutagenic=regression")
    assert rc == 0, err
    assert "classification" not in err
    out, err, rc = run_cli("predict", "CCO", "--model", str(model))
    assert rc == 0 and "mutagenic_pred" in out.splitlines()[0]
    _, err, rc = run_cli(*args, "--task-type", "other=classification")
    assert rc == 1 and "--task-type names other" in err
