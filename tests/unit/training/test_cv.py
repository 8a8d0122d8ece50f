"""Cross-validation internals: fold assignment, no leakage, scaffold groups, aggregation, metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoremol.data.splits import SPLITS, folds_from_file, make_folds, scaffold_of
from scoremol.errors import ScoremolError
from scoremol.training import cv as cvlib
from scoremol.training.metrics import regression_metrics
from tests.conftest import ESOL_FOLDS

SMILES = [
    "c1ccccc1O",
    "c1ccccc1N",
    "c1ccccc1Cl",
    "Cc1ccccc1",
    "C1CCCCC1O",
    "C1CCCCC1N",
    "C1CCNCC1",
    "C1CCNCC1C",
    "c1ccc2ccccc2c1",
    "Cc1ccc2ccccc2c1",
    "CCO",
    "CCCO",
    "CCCCO",
    "CCN",
    "CC(=O)O",
    "c1ccncc1",
    "Cc1ccncc1",
    "O=C1CCCC1",
    "CC1=CC(=O)CC1",
    "c1ccoc1",
]


def test_folds_from_the_shared_file_partition_esol():
    folds = folds_from_file(ESOL_FOLDS, 1128)
    assert sorted(np.bincount(folds).tolist()) == [225, 225, 226, 226, 226]
    table = pd.read_csv(ESOL_FOLDS)
    assert (folds[table["row"]] == table["fold"]).all()


def test_folds_file_errors(tmp_path):
    bad = tmp_path / "f.csv"
    bad.write_text("index,split\n0,1\n")
    with pytest.raises(ScoremolError, match="needs columns row,fold"):
        folds_from_file(bad, 3)
    bad.write_text("row,fold\n0,0\n7,1\n")
    with pytest.raises(ScoremolError, match="outside"):
        folds_from_file(bad, 3)
    bad.write_text("row,fold\n0,0\n0,1\n")
    with pytest.raises(ScoremolError, match="twice"):
        folds_from_file(bad, 3)
    cases = {
        "row,fold\n": "has no rows",
        "row,fold\n0,-1\n1,0\n2,1\n": "negative folds",  # -1 marks a row left out: no fold may be it
        "row,fold\n0,0\n1,0\n2,0\n": "has one fold",
        "row,fold\n0,0.5\n1,1.5\n2,2.5\n": "non-integer",
        "row,fold\n0,0\n1,x\n": "non-integer",
    }
    for text, message in cases.items():
        bad.write_text(text)
        with pytest.raises(ScoremolError, match=message):
            folds_from_file(bad, 3)


def test_a_scaffold_split_allows_no_more_folds_than_scaffolds():
    scaffolds = len({scaffold_of(s) or f"acyclic {i}" for i, s in enumerate(SMILES)})
    assert len(set(make_folds(SMILES, scaffolds, "scaffold").tolist())) == scaffolds
    with pytest.raises(ScoremolError, match=f"allows at most {scaffolds} folds"):
        make_folds(SMILES, scaffolds + 1, "scaffold")


def test_json_safe_writes_null_for_what_json_cannot_hold():
    import json
    import math

    payload = cvlib.json_safe({"r2": math.nan, "folds": [{"x": np.float64("inf"), "y": 1.5}], "n": 3})
    assert json.dumps(payload, allow_nan=False) == '{"r2": null, "folds": [{"x": null, "y": 1.5}], "n": 3}'
    assert math.isnan(cvlib._mean_std([math.nan, math.nan])["mean"])
    assert cvlib._mean_std([1.0, 3.0, math.nan]) == {"mean": 2.0, "std": 1.0}


@pytest.mark.parametrize("split", ["random", "scaffold"])
def test_generated_folds_partition_without_leakage(split):
    folds = make_folds(SMILES, 4, split, seed=1)
    assert set(folds.tolist()) == {0, 1, 2, 3}
    seen: set[int] = set()
    for f in range(4):
        test = set(np.where(folds == f)[0].tolist())
        assert not test & seen
        seen |= test
    assert seen == set(range(len(SMILES)))
    assert np.array_equal(folds, make_folds(SMILES, 4, split, seed=1))  # seeded


def test_scaffold_groups_stay_whole():
    folds = make_folds(SMILES, 4, "scaffold", seed=0)
    by_scaffold: dict[str, set[int]] = {}
    for s, f in zip(SMILES, folds):
        scaffold = scaffold_of(s)
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


def test_generated_folds_errors():
    assert SPLITS == ("random", "scaffold")
    with pytest.raises(ScoremolError, match=r"folds must be between 2 and the number of molecules \(20\)"):
        make_folds(SMILES, 1)
    with pytest.raises(ScoremolError, match="folds must be between 2"):
        make_folds(SMILES, 21)
    with pytest.raises(ScoremolError, match="unknown split 'cluster'; choose one of random, scaffold"):
        make_folds(SMILES, 3, "cluster")


def test_run_cv_refolds_each_repeat_with_a_new_seed():
    y = np.arange(6, dtype=float)
    calls = []

    def runner(train, test, seed):
        calls.append(seed)
        return y[test], 1.0, 0, []

    results = cvlib.run_cv(
        np.array([0, 0, 1, 1, 2, 2]), y, runner, repeats=2, seed=5, refold=lambda r: np.array([1, 0, 1, 0, 1, 0])
    )
    assert [(r.repeat, r.fold) for r in results] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert calls == [5, 5, 5, 1005, 1005]
    assert results[3].test_rows.tolist() == [1, 3, 5]


def test_regression_metrics_match_definitions():
    m = regression_metrics(np.array([1.0, 2.0, np.nan, 4.0]), np.array([1.5, 2.0, 9.0, 3.0]))
    assert m["rmse"] == pytest.approx(np.sqrt((0.25 + 0 + 1) / 3))
    assert m["mae"] == pytest.approx(0.5)
    assert m["r2"] == pytest.approx(1 - 1.25 / np.sum((np.array([1.0, 2.0, 4.0]) - 7 / 3) ** 2))
    empty = regression_metrics(np.array([np.nan]), np.array([1.0]))
    assert all(np.isnan(v) for v in empty.values())
