"""Cross-validation through the library: ``cross_validate`` runs a spec on every fold and
``write_outputs`` writes what ``scoremol cv -o`` writes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from scoremol.errors import ScoremolError
from scoremol.featurizers.cache import featurize_input
from scoremol.spec import TrainingSpec
from scoremol.training.cv import CVRun, cross_validate
from scoremol.training.cv_files import write_outputs
from scoremol.training.setup import feature_plan
from tests.conftest import ESOL_TARGET, esol_head

SPEC = TrainingSpec(preset="fast", arch="gcn", hidden=16, epochs=2)


@pytest.fixture(scope="module")
def small_data(esol_path, tmp_path_factory):
    path = esol_head(esol_path, 45, tmp_path_factory.mktemp("cv"))
    data, _ = featurize_input(str(path), feature_plan(SPEC).settings, use_cache=False)
    return data


def test_cross_validate_a_spec(small_data, tmp_path):
    seen = []
    run = cross_validate(small_data, ESOL_TARGET, SPEC, folds=3, on_fold=seen.append, input_name="esol_45.csv")
    assert isinstance(run, CVRun) and [r.fold for r in run.results] == [0, 1, 2] and seen == run.results
    assert sorted(np.concatenate([r.test_rows for r in run.results]).tolist()) == list(range(45))
    assert all(r.n_train + r.n_test == 45 and r.best_epoch == 2 for r in run.results)
    assert run.config["spec"] == SPEC.resolved().to_dict() and run.config["input"] == "esol_45.csv"
    assert (run.config["split"], run.config["folds"], run.config["folds_file"]) == ("random", 3, None)
    summary = run.summary
    assert summary["n_folds"] == 3 and summary["rmse"]["mean"] == pytest.approx(np.mean([r.rmse for r in run.results]))
    payload = write_outputs(tmp_path, run, small_data, ESOL_TARGET)
    assert payload == run.payload() == json.loads((tmp_path / "cv_results.json").read_text())
    oof = pd.read_csv(tmp_path / "oof_predictions.csv")
    truth = small_data.column_values(ESOL_TARGET)
    assert np.allclose(oof.sort_values("row")["y_true"], truth, atol=1e-4)
    # the fold's RMSE is the RMSE of its out-of-fold predictions
    fold0 = oof[oof["fold"] == 0]
    assert np.sqrt(np.mean((fold0["y_pred"] - fold0["y_true"]) ** 2)) == pytest.approx(run.results[0].rmse, rel=1e-4)


def test_repeats_and_folds_files(small_data, tmp_path):
    run = cross_validate(small_data, ESOL_TARGET, SPEC, folds=3, repeats=2, split="scaffold")
    assert [(r.repeat, r.fold) for r in run.results] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    folds_file = tmp_path / "folds.csv"
    folds_file.write_text("row,fold\n" + "".join(f"{i},{i % 2}\n" for i in range(40)))  # rows 40-44 left out
    run = cross_validate(small_data, ESOL_TARGET, SPEC, folds_file=folds_file)
    assert run.config["split"] == "file" and run.config["folds"] == 2 and run.config["rows_without_fold"] == 5
    assert sum(r.n_test for r in run.results) == 40 and all(r.n_train == 20 for r in run.results)
    with pytest.raises(ScoremolError, match="cannot be combined with a folds file"):
        cross_validate(small_data, ESOL_TARGET, SPEC, folds_file=folds_file, repeats=2)
    with pytest.raises(ScoremolError, match="repeats must be at least 1"):
        cross_validate(small_data, ESOL_TARGET, SPEC, repeats=0)
