"""GNN + CatBoost blends (``blend_catboost``): training, the arithmetic, model files."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from scoremol.errors import ScoremolError
from scoremol.featurizers.descriptors import (
    ALL_DESCRIPTORS,
    FAST_DESCRIPTORS,
    SLOW_DESCRIPTORS,
    TREE_DESCRIPTORS,
    union,
)
from scoremol.models.checkpoint import load_model, save_model
from scoremol.nn import ModelConfig
from scoremol.training.fit import train_model
from tests.conftest import ESOL_TARGET, quick_config

SMALL = dict(arch="gcn", mode="score", hidden=16, head_hidden=(16,))


@pytest.fixture(scope="module")
def blended(esol_data):
    """A 2-member GNN on the fast descriptors blended with CatBoost on all of them (not
    calibrated, so the configured weight serves)."""
    config = ModelConfig(**SMALL, use_descriptors=True, descriptor_dim=len(FAST_DESCRIPTORS))
    model = train_model(
        esol_data,
        [ESOL_TARGET],
        config,
        quick_config(epochs=2, ensemble=2, catboost_weight=0.3, calibrate=False),
        rows=np.arange(150),
        gnn_descriptors=FAST_DESCRIPTORS,
    )
    return model


@pytest.mark.slow
def test_the_blend_is_the_weighted_mean_of_network_and_tree(blended, esol_data):
    rows = np.arange(150, 170)
    result = blended.predict(esol_data, ids=rows, domain=False)
    mean, std = result.mean, result.std
    tree = blended.tree.predict(esol_data.descriptors[rows])
    network_only = dataclasses.replace(blended, tree=None)
    gnn = network_only.predict(esol_data, ids=rows, domain=False)
    gnn_mean, gnn_std = gnn.mean, gnn.std
    assert blended.tree.weights == [0.3]
    assert tree.shape == (20, 1) and np.allclose(mean, 0.7 * gnn_mean + 0.3 * tree)
    assert np.allclose(std, gnn_std)  # the spread is the network members'
    assert not np.allclose(mean, gnn_mean)  # the tree really moves the prediction


def test_the_network_fuses_only_its_own_descriptors(esol_data):
    config = ModelConfig(**SMALL, use_descriptors=True, descriptor_dim=len(FAST_DESCRIPTORS))
    model = train_model(
        esol_data,
        [ESOL_TARGET],
        config,
        quick_config(epochs=1, catboost_weight=0.5),
        rows=np.arange(60),
        gnn_descriptors=FAST_DESCRIPTORS,
    )
    names = list(esol_data.settings.descriptor_names)
    assert len(names) > 200 and model.descriptor_columns == [names.index(n) for n in FAST_DESCRIPTORS]
    assert len(model.descriptor_scaler.to_dict()["mean"]) == len(FAST_DESCRIPTORS)


def test_blended_model_file_round_trip(tmp_path, esol_data):
    config = ModelConfig(**SMALL, use_descriptors=True, descriptor_dim=len(FAST_DESCRIPTORS))
    model = train_model(
        esol_data,
        [ESOL_TARGET],
        config,
        quick_config(epochs=1, catboost_weight=0.4),
        rows=np.arange(80),
        gnn_descriptors=FAST_DESCRIPTORS,
    )
    path = tmp_path / "blend.pt"
    save_model(model, path)
    payload = torch.load(path, weights_only=True)  # no pickled objects, the tree is bytes
    assert len(payload["trees"]) == 1 and payload["trees"][0].dtype == torch.uint8
    back = load_model(path)
    rows = np.arange(80, 100)
    assert back.tree.weights == model.tree.weights and back.descriptor_columns == model.descriptor_columns
    assert np.array_equal(
        back.predict(esol_data, ids=rows, domain=False).mean, model.predict(esol_data, ids=rows, domain=False).mean
    )
    tree = payload["trees"][0]
    flipped = tree.clone()
    flipped[len(tree) // 2] ^= 0xFF  # one byte inside the tree: its checksum no longer matches
    for damaged in (tree[: len(tree) // 3].clone(), flipped):
        payload["trees"] = [damaged]
        torch.save(payload, tmp_path / "damaged.pt")
        with pytest.raises(ScoremolError, match="blended CatBoost model is unreadable .its checksum does not match"):
            load_model(tmp_path / "damaged.pt")


def test_truncated_tree_bytes_are_refused_before_catboost_reads_them():
    """CatBoost can crash the process (a segmentation fault) on a cut model: every cut of a
    real tree must be refused first, whatever the file's checksums say."""
    from scoremol.models.catboost import catboost_from_bytes
    from scoremol.pretrained import bundled_model_path

    blob = load_model(bundled_model_path("esol")).tree.blobs[0]
    for cut in (0, 3, 8, 100, len(blob) // 2, len(blob) - 1):
        with pytest.raises(ValueError, match="CatBoost binary model"):
            catboost_from_bytes(blob[:cut])


def test_blend_needs_a_weight_below_one(esol_data):
    with pytest.raises(ScoremolError, match=r"\[0, 1\)"):
        train_model(
            esol_data,
            [ESOL_TARGET],
            ModelConfig(**SMALL),
            quick_config(epochs=1, catboost_weight=1.0),
            rows=np.arange(40),
        )


@pytest.mark.slow
def test_network_only_skips_the_tree_and_the_full_descriptor_set(blended, esol_data):
    fast = blended.without_tree()
    assert fast.tree is None and fast.featurizer.descriptor_names == FAST_DESCRIPTORS
    rows = np.arange(150, 170)
    network_only = dataclasses.replace(blended, tree=None)
    expected = network_only.predict(esol_data, ids=rows, domain=False).mean
    narrow = esol_data.select_descriptors(FAST_DESCRIPTORS)  # what featurizing with its settings gives
    assert np.allclose(fast.predict(narrow, ids=rows, domain=False).mean, expected)
    assert blended.tree is not None  # the original is untouched


def test_the_tree_set_drops_only_the_slow_descriptors_and_keeps_the_networks():
    assert set(TREE_DESCRIPTORS) == set(ALL_DESCRIPTORS) - SLOW_DESCRIPTORS
    assert {"qed", "BertzCT", "Ipc"} <= SLOW_DESCRIPTORS and len(SLOW_DESCRIPTORS) == 13
    assert set(FAST_DESCRIPTORS) <= set(TREE_DESCRIPTORS)
    assert union(TREE_DESCRIPTORS, FAST_DESCRIPTORS) == TREE_DESCRIPTORS
    assert union(("qed",), ("MolLogP",)) == tuple(n for n in ALL_DESCRIPTORS if n in {"qed", "MolLogP"})


def _record_tree_fits(monkeypatch) -> list[tuple[int, int | None, float | None]]:
    """Every CatBoost fit from now on, as (training rows, iterations, learning rate); each
    fit runs 5 trees only, to stay quick."""
    import scoremol.models.catboost as catboost

    fitted = []
    real = catboost.fit_catboost

    def spy(x, y, train, **options):
        fitted.append((len(train), options.get("iterations"), options.get("learning_rate")))
        return real(x, y, train, **{**options, "iterations": 5})

    monkeypatch.setattr(catboost, "fit_catboost", spy)
    return fitted


def _calibrated_blend(esol_data, weight: float):
    """Two members on 200 ESOL molecules, each holding out a tenth, blended at ``weight``."""
    config = ModelConfig(**SMALL, use_descriptors=True, descriptor_dim=len(FAST_DESCRIPTORS))
    return train_model(
        esol_data,
        [ESOL_TARGET],
        config,
        quick_config(epochs=1, ensemble=2, catboost_weight=weight, val_fraction=0.0),
        rows=np.arange(200),
        gnn_descriptors=FAST_DESCRIPTORS,
    )


def test_calibration_refits_cheaper_trees_than_the_blended_one(esol_data, monkeypatch):
    """The final tree keeps the default schedule; each held-out fold's stand-in is fitted
    with :data:`CALIBRATION_TREES` (fewer trees, a faster rate)."""
    from scoremol.models.catboost import CALIBRATION_TREES

    fitted = _record_tree_fits(monkeypatch)
    model = _calibrated_blend(esol_data, 0.3)
    assert model.calibration is not None
    *held_out, final = fitted  # calibration first: its held-out trees choose the final tree's weight
    assert final == (200, None, 0.03)  # fit_catboost's default schedule: FIXED_TREES
    assert held_out == [(180, *CALIBRATION_TREES)] * 2  # one per member's held-out tenth


def test_a_calibrated_blend_takes_the_weight_its_held_out_molecules_chose(esol_data, monkeypatch):
    import scoremol.training.holdout as holdout

    seen = {}

    def choose(networks, trees, y, default, classify=()):
        seen.update(held=int(np.isfinite(trees).sum()), default=default)
        return [0.7]

    monkeypatch.setattr(holdout, "choose_weights", choose)
    model = _calibrated_blend(esol_data, 0.4)
    assert seen == {"held": 40, "default": 0.4}  # two members, a tenth of 200 held out each
    assert model.tree.weights == [0.7]
    rows = np.arange(200, 210)
    mean = model.predict(esol_data, ids=rows, domain=False).mean
    gnn = dataclasses.replace(model, tree=None).predict(esol_data, ids=rows, domain=False).mean
    assert np.allclose(mean, 0.3 * gnn + 0.7 * model.tree.predict(esol_data.descriptors[rows]))


def test_a_target_whose_held_out_molecules_choose_weight_0_gets_no_tree(esol_data, monkeypatch):
    """Weight 0 everywhere: no final tree is fitted, and prediction computes only the
    networks' own descriptors."""
    import scoremol.training.holdout as holdout
    from scoremol.models.catboost import CALIBRATION_TREES

    fitted = _record_tree_fits(monkeypatch)
    monkeypatch.setattr(holdout, "choose_weights", lambda networks, trees, y, default, classify=(): [0.0])
    model = _calibrated_blend(esol_data, 0.4)
    assert fitted == [(180, *CALIBRATION_TREES)] * 2  # the two held-out tenths' trees, no final one
    assert model.tree is None and model.descriptor_columns is None
    assert tuple(model.featurizer.descriptor_names) == FAST_DESCRIPTORS
    assert model.calibration is not None
