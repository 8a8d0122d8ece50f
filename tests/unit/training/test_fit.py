"""The fit loop: masking, early stopping, ensembles, determinism and a real accuracy bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.errors import ScoremolError
from scoremol.nn import ModelConfig
from scoremol.training.fit import train_model
from tests.conftest import ESOL_FOLDS, ESOL_TARGET, quick_config

SMALL = dict(arch="gcn", mode="score", hidden=16, head_hidden=(16,))


def predict_rows(model, data, rows):
    return model.predict(data, ids=rows, domain=False).mean


def test_same_seed_gives_identical_predictions(esol_data):
    rows = np.arange(60)
    a = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=3, seed=7), rows=rows)
    b = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=3, seed=7), rows=rows)
    c = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=3, seed=8), rows=rows)
    pa, pb, pc = (predict_rows(m, esol_data, np.arange(60, 80)) for m in (a, b, c))
    assert np.array_equal(pa, pb)
    assert not np.allclose(pa, pc)


def test_history_and_best_epoch_are_kept(esol_data):
    model = train_model(
        esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=6, patience=2), rows=np.arange(100)
    )
    (member,) = model.members
    assert len(member.history) == member.epochs_run <= 6
    assert [h["epoch"] for h in member.history] == list(range(1, member.epochs_run + 1))
    vals = [h["val_rmse"] for h in member.history]
    assert member.best_val_rmse == pytest.approx(min(vals))
    assert member.history[member.best_epoch - 1]["val_rmse"] == pytest.approx(min(vals))
    # early stopping: never more than `patience` epochs after the best one
    assert member.epochs_run - member.best_epoch <= 2


def test_multitask_with_missing_targets(esol_data):
    data = esol_data
    table = data.table.copy()
    half = pd.to_numeric(table[ESOL_TARGET]).to_numpy()
    table["logp_like"] = [str(v * 0.5 + 1) if i % 2 else "" for i, v in enumerate(half)]
    table["text"] = "n/a"
    data.table, original = table, data.table
    try:
        model = train_model(
            data,
            [ESOL_TARGET, "logp_like"],
            ModelConfig(**SMALL, n_targets=2),
            quick_config(epochs=2),
            rows=np.arange(80),
        )
        preds = predict_rows(model, data, np.arange(80, 90))
        assert preds.shape == (10, 2) and np.isfinite(preds).all()
        assert all(math.isfinite(h["train_loss"]) for h in model.members[0].history)
        with pytest.raises(ScoremolError, match="at least 2 molecules with a numeric target"):
            train_model(data, ["text"], ModelConfig(**SMALL), quick_config(epochs=1), rows=np.arange(20))
    finally:
        data.table = original


def test_ensemble_members_differ_in_seed_and_split(esol_data):
    model = train_model(
        esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=2, ensemble=3, seed=3), rows=np.arange(60)
    )
    assert [m.seed for m in model.members] == [3, 4, 5]
    std = model.predict(esol_data, ids=np.arange(60, 65), domain=False).std
    assert (std > 0).all()


def test_descriptor_fusion_trains(esol_data):
    config = ModelConfig(**SMALL, use_descriptors=True, descriptor_dim=esol_data.descriptors.shape[1])
    model = train_model(esol_data, [ESOL_TARGET], config, quick_config(epochs=2), rows=np.arange(60))
    assert model.descriptor_scaler is not None
    assert np.isfinite(predict_rows(model, esol_data, np.arange(60, 70))).all()


@pytest.mark.slow
def test_esol_fold0_accuracy_is_far_better_than_the_mean(esol_data):
    """Folds 1-4 -> fold 0 with a small, short model: a generous but meaningful bound."""
    folds = pd.read_csv(ESOL_FOLDS)["fold"].to_numpy()
    train_rows, test_rows = np.where(folds != 0)[0], np.where(folds == 0)[0]
    config = ModelConfig(arch="dmpnn", mode="score", hidden=64, head_hidden=(64,))
    model = train_model(esol_data, [ESOL_TARGET], config, quick_config(epochs=25, seed=0), rows=train_rows)
    y = esol_data.column_values(ESOL_TARGET)[test_rows]
    rmse = float(np.sqrt(np.mean((predict_rows(model, esol_data, test_rows)[:, 0] - y) ** 2)))
    baseline = float(np.std(y))  # predicting the mean: about 2.1 log units
    assert rmse < 0.85 < baseline / 2


def test_without_a_validation_split_every_epoch_runs_and_the_last_is_kept(esol_data):
    """``val_fraction=0`` (the fast preset, and CatBoost's default): the whole training portion is
    used, the cosine schedule runs to its end and the final weights are the model."""
    rows = np.arange(60)
    model = train_model(
        esol_data, [ESOL_TARGET], ModelConfig(**SMALL), quick_config(epochs=4, val_fraction=0.0, patience=1), rows=rows
    )
    (member,) = model.members
    assert member.epochs_run == member.best_epoch == 4  # patience has nothing to stop on
    assert all("val_rmse" not in h for h in member.history)
    assert math.isnan(member.best_val_rmse) and model.metrics["best_val_rmse_mean"] is None
    assert model.metrics["n_train_molecules"] == 60
    assert member.history[-1]["lr"] < member.history[1]["lr"]  # the schedule decays to its end


def test_members_trained_side_by_side_equal_members_trained_in_turn(esol_data):
    """Two worker processes or one: the same seed gives the same members (each member is
    trained on the same number of threads either way), and every epoch is reported."""
    rows = np.arange(70)
    seen = []
    one = quick_config(epochs=3, ensemble=3, workers=1)
    two = quick_config(epochs=3, ensemble=3, workers=2)
    a = train_model(esol_data, [ESOL_TARGET], ModelConfig(**SMALL), one, rows=rows)
    b = train_model(
        esol_data,
        [ESOL_TARGET],
        ModelConfig(**SMALL),
        two,
        rows=rows,
        on_epoch=lambda member, record: seen.append((member, record["epoch"])),
    )
    for ma, mb in zip(a.members, b.members, strict=True):
        assert ma.seed == mb.seed
        for key in ma.state_dict:
            assert torch.equal(ma.state_dict[key], mb.state_dict[key]), key
    assert sorted(seen) == [(m, e) for m in range(3) for e in range(1, 4)]


def test_member_plan_uses_a_core_per_member():
    from scoremol.training.members import member_plan

    assert member_plan(5, cpus=2) == member_plan(2, cpus=2) == (2, 1)
    assert member_plan(1, cpus=4) == (1, 4)
    assert member_plan(3, cpus=8) == (3, 2)
    assert member_plan(5, device="cuda", cpus=8).processes == 1


def test_an_error_in_a_member_process_reaches_the_caller():
    from scoremol.training.members import member_plan, train_members

    def fit(k, on_epoch=None):
        if k == 1:
            raise ValueError("member 1 failed")
        return k

    with pytest.raises(ValueError, match="member 1 failed"):
        train_members(fit, [0, 1], member_plan(2, cpus=2))


def test_member_jobs_reach_the_workers_by_inheritance_not_pickling():
    """Jobs hold the whole training set; pickling it (one file descriptor per shared
    tensor) exhausted the descriptor limit on AqSolDB. An unpicklable job proves it is not."""
    import threading

    from scoremol.training.members import member_plan, train_members

    def fit(job, on_epoch=None):
        lock, k = job
        on_epoch(k, {"epoch": 1})
        return k * 10

    lock = threading.Lock()  # cannot be pickled
    seen = []
    out = train_members(
        fit,
        [(lock, 0), (lock, 1), (lock, 2)],
        member_plan(3, cpus=2),
        on_epoch=lambda member, record: seen.append(member),
    )
    assert out == [0, 10, 20] and sorted(seen) == [0, 1, 2]
