"""Intervals and the domain end to end: calibrated in training, saved, served by predict."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.inference.predict import OutputOptions, predict_chunk, predict_stream
from scoremol.training.holdout import HOLDOUT_FOLDS, MIN_HELD_OUT, holdout_folds
from tests.conftest import ESOL_TARGET, PRED, quick_config, run_cli

SMALL = dict(arch="gcn", mode="score", hidden=16, head_hidden=(8,), use_descriptors=False)


@pytest.fixture(scope="module")
def calibrated(esol_data, tmp_path_factory):
    """Two small members on 300 ESOL molecules, each holding out its own tenth."""
    from scoremol.models.checkpoint import save_model
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import train_model

    config = quick_config(epochs=4, ensemble=2, val_fraction=0.0, calibrate=True)
    model = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), config, rows=np.arange(300))
    path = tmp_path_factory.mktemp("calibrated") / "model.pt"
    save_model(model, path)
    return model, path


def test_folds_are_balanced_seeded_and_skipped_when_too_small():
    folds = holdout_folds(1000, ensemble=4, val_fraction=0.0, seed=3)
    assert np.bincount(folds).tolist() == [100] * HOLDOUT_FOLDS
    assert np.array_equal(folds, holdout_folds(1000, 4, 0.0, 3))
    assert not np.array_equal(folds, holdout_folds(1000, 4, 0.0, 4))
    assert np.bincount(holdout_folds(1000, 1, 0.2, 0)).tolist() == [200] * 5  # folds follow a validation split
    assert holdout_folds(MIN_HELD_OUT * 10 - 10, ensemble=1, val_fraction=0.0, seed=0) is None


def test_folds_hold_out_only_eligible_molecules():
    eligible = np.zeros(1000, dtype=bool)
    eligible[::4] = True  # 250 molecules may be held out
    folds = holdout_folds(1000, ensemble=2, val_fraction=0.0, seed=0, eligible=eligible)
    assert np.bincount(folds[eligible]).tolist() == [100, 100, 50]  # a tenth each; the rest always train
    assert (folds[~eligible] == 2).all()  # fold 2 is no member's
    # fewer eligible than a tenth: all of them, split between the members
    few = np.zeros(1000, dtype=bool)
    few[:60] = True
    assert np.bincount(holdout_folds(1000, 2, 0.0, 0, few)[few]).tolist() == [30, 30]
    assert holdout_folds(1000, 2, 0.0, 0, np.arange(1000) < MIN_HELD_OUT - 1) is None


def test_scaffold_holdout_keeps_each_scaffold_in_one_fold(esol_data):
    from scoremol.data.splits import scaffold_of
    from scoremol.training.config import TrainConfig
    from scoremol.training.fit import calibration_folds

    smiles = esol_data.graph_smiles(np.arange(400))
    config = TrainConfig(ensemble=4, val_fraction=0.0, calibrate=True, seed=0, holdout="scaffold")
    folds, _ = calibration_folds(400, config, smiles=smiles)
    scaffolds = pd.Series([scaffold_of(s) for s in smiles])
    ringed = scaffolds != ""  # acyclic molecules are groups of one
    assert (pd.Series(folds)[ringed].groupby(scaffolds[ringed]).nunique() == 1).all()
    assert sorted(set(folds.tolist())) == list(range(HOLDOUT_FOLDS)) and np.bincount(folds).min() >= 30
    random, _ = calibration_folds(400, dataclasses.replace(config, holdout="random"), smiles=smiles)
    split = pd.Series(random)[ringed].groupby(scaffolds[ringed]).nunique()
    assert (split > 1).any()  # a random holdout splits some series, which is what scaffold avoids


def test_calibration_folds_fall_back_to_a_random_fold_when_too_few_are_eligible():
    from scoremol.training.config import TrainConfig
    from scoremol.training.fit import calibration_folds

    config = TrainConfig(ensemble=2, val_fraction=0.0, calibrate=True, seed=0)
    many = np.arange(1000) % 4 == 0
    folds, only_eligible = calibration_folds(1000, config, many)
    assert only_eligible and (folds[~many] == 2).all()
    folds, only_eligible = calibration_folds(1000, config, np.arange(1000) < MIN_HELD_OUT - 1)
    assert not only_eligible and np.array_equal(folds, holdout_folds(1000, 2, 0.0, 0))
    assert calibration_folds(1000, TrainConfig(calibrate=False), many) == (None, False)


def test_training_keeps_held_out_residuals_and_a_domain(calibrated):
    model, _ = calibrated
    assert model.metrics["held_out_molecules"] == 60  # two members, a tenth of 300 each
    (calibration,) = model.calibration
    assert calibration.size == 60
    # the first member's molecule vectors (hidden 16, not the head's 8) of every training molecule
    assert model.domain.reference.shape == (300, 16)
    assert 0.0 < model.domain.threshold < 1.0 and model.domain.typical > 0
    assert not model.domain.per_task  # one target: its interval reads the one similarity
    assert all(m.outputs is None for m in model.members)  # training-time arrays are not kept


def test_without_calibration_members_see_everything(esol_data):
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import train_model

    config = quick_config(epochs=1, ensemble=1, val_fraction=0.0, calibrate=False)
    model = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), config, rows=np.arange(300))
    assert model.calibration is None and model.domain is None
    assert "held_out_molecules" in model.metrics and model.metrics["held_out_molecules"] == 0


def test_saved_model_keeps_intervals_and_domain(calibrated, esol_data):
    from scoremol.models.checkpoint import load_model

    model, path = calibrated
    back = load_model(path)
    ids = np.arange(300, 340)
    a, b = model.predict(esol_data, ids=ids), back.predict(esol_data, ids=ids)
    assert np.array_equal(a.mean, b.mean)
    assert np.allclose(a.similarity, b.similarity, atol=2e-3)  # reference stored as float16
    assert np.array_equal(back.calibration[0].scores, model.calibration[0].scores)
    assert back.domain.threshold == model.domain.threshold
    assert np.array_equal(back.domain.seen, model.domain.seen)


def test_a_domain_from_the_head_space_is_dropped_on_load(calibrated, tmp_path):
    """Files calibrated before similarity moved to the readout space would compare vectors
    of another space: they load, and predict without intervals or domain."""
    import json

    import torch

    from scoremol.models.checkpoint import load_model

    _, path = calibrated
    payload = torch.load(path, weights_only=True)
    meta = json.loads(payload["meta"])
    del meta["domain"]["space"]
    payload["meta"] = json.dumps(meta)
    old = tmp_path / "old.pt"
    torch.save(payload, old)
    back = load_model(old)
    assert back.calibration is None and back.domain is None
    assert load_model(path).domain is not None


def test_prediction_rows_carry_interval_similarity_and_domain(calibrated, tmp_path):
    from scoremol.data.read import read_input

    model, _ = calibrated
    src = tmp_path / "in.csv"
    src.write_text("smiles\nCCO\nnot_a_smiles\nc1ccccc1Cl\nCC[Se]CC\nC[Hg]C\n")
    out = predict_chunk(model, read_input(str(src)))
    assert {f"logS_{s}" for s in ("lo", "hi")} | {"similarity", "domain"} <= set(out.columns)
    ok = out["status"] == "ok"
    assert (out.loc[ok, "logS_lo"] < out.loc[ok, PRED]).all() and (out.loc[ok, PRED] < out.loc[ok, "logS_hi"]).all()
    assert out.loc[~ok, ["logS_lo", "logS_hi", "similarity"]].isna().all().all()
    assert out["domain"].tolist()[1] == ""  # no molecule, no verdict
    assert out.loc[ok, "similarity"].between(0, 1).all()
    assert out.loc[3, "domain"] == "out" and "element Se not in the training data" in out.loc[3, "reason"]
    assert out.loc[4, "domain"] == "out" and "element Hg not in the training data" in out.loc[4, "reason"]
    wide = predict_chunk(model, read_input(str(src)), options=OutputOptions(coverage=0.95))
    narrow = predict_chunk(model, read_input(str(src)), options=OutputOptions(coverage=0.5))
    assert ((wide["logS_hi"] - wide["logS_lo"]) > (narrow["logS_hi"] - narrow["logS_lo"]))[ok].all()


def test_threshold_probability_column(calibrated, tmp_path):
    model, _ = calibrated
    src = tmp_path / "in.smi"
    src.write_text("CCO\nCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC\n")

    def p_below(threshold: float) -> np.ndarray:
        buffer = io.StringIO()
        predict_stream(model, str(src), buffer, options=OutputOptions(threshold=threshold))
        return pd.read_csv(io.StringIO(buffer.getvalue()))["logS_p_below"].to_numpy()

    low, middle, high = p_below(-12.0), p_below(-3.0), p_below(6.0)
    for p in (low, middle, high):
        assert ((p > 0) & (p < 1)).all()
    assert (low < middle).all() and (middle < high).all()
    assert (low < 0.05).all() and (high > 0.95).all()  # far beyond every held-out residual


def test_cli_threshold_and_coverage(calibrated, tmp_path):
    _, path = calibrated
    out, err, code = run_cli(
        "predict", "CCO", "c1ccccc1", "--model", str(path), "--threshold", "-2", "--coverage", "0.8"
    )
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert {"logS_lo", "logS_hi", "logS_p_below", "similarity", "domain"} <= set(frame.columns)
    _, err, code = run_cli("predict", "CCO", "--model", str(path), "--coverage", "1.5")
    assert code != 0 and "coverage" in err.lower()


def test_estimator_intervals(calibrated):
    from scoremol import ScoreRegressor

    model, path = calibrated
    regressor = ScoreRegressor.load(path)
    mean, lo, hi = regressor.predict_interval(["CCO", "bad smiles", "c1ccccc1"], coverage=0.8)
    assert np.isnan([mean[1], lo[1], hi[1]]).all()
    assert (lo[[0, 2]] < mean[[0, 2]]).all() and (mean[[0, 2]] < hi[[0, 2]]).all()
    assert np.allclose(mean[[0, 2]], regressor.predict(["CCO", "c1ccccc1"]))


def test_the_neighbour_count_that_ranks_held_out_errors_best_is_chosen():
    from scoremol.training.holdout import _best_ranked

    rng = np.random.default_rng(0)
    error = rng.uniform(0, 1, 500)
    informative, noise = error + rng.normal(0, 0.3, 500), rng.uniform(0, 1, 500)
    assert _best_ranked({1: noise, 10: informative}, error) == 10
    assert _best_ranked({1: informative, 10: noise}, error) == 1


@pytest.mark.parametrize("count", [1, 10])
def test_a_fixed_neighbour_count_is_what_the_domain_searches(esol_data, count):
    """``neighbours`` fixes the count the held-out errors would otherwise choose (every
    preset leaves the choice to them)."""
    from scoremol.nn import ModelConfig
    from scoremol.spec import TrainingSpec
    from scoremol.training.fit import train_model

    config = quick_config(epochs=2, ensemble=2, val_fraction=0.0, calibrate=True, neighbours=count)
    model = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), config, rows=np.arange(300))
    assert model.domain.neighbours == count
    assert TrainingSpec(preset="fast").resolved().neighbours == 0  # chosen on held-out errors
    assert TrainingSpec(preset="fast", neighbours=1).resolved().neighbours == 1


def test_a_domain_trained_to_search_principal_components_searches_them_after_loading(esol_data, tmp_path):
    """``domain_dims`` reaches the held-out distances, the domain and its file (the fast
    preset searches 16 components, the others every dimension)."""
    from scoremol.calibration.neighbours import principal_basis
    from scoremol.models.checkpoint import load_model, save_model
    from scoremol.nn import ModelConfig
    from scoremol.spec import TrainingSpec
    from scoremol.training.fit import train_model

    config = quick_config(epochs=2, ensemble=2, val_fraction=0.0, calibrate=True, domain_dims=4)
    model = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), config, rows=np.arange(300))
    assert model.domain.search_dims == 4
    save_model(model, tmp_path / "m.pt")
    loaded = load_model(tmp_path / "m.pt")
    assert loaded.domain.search_dims == 4
    prediction = loaded.predict(esol_data, np.arange(300, 340))
    index = next(iter(loaded.domain._indexes.values()))[2]
    assert torch.equal(index.basis, principal_basis(loaded.domain.reference.float(), 4))
    assert np.all((prediction.similarity > 0) & (prediction.similarity <= 1))
    assert TrainingSpec(preset="fast").resolved().domain_dims == 16
    assert TrainingSpec().resolved().domain_dims == 0
    assert TrainingSpec(preset="fast", domain_dims=0).resolved().domain_dims == 0
