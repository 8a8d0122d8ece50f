"""Each target's blend weight, chosen on held-out predictions (models.catboost.choose_weights)."""

from __future__ import annotations

import numpy as np
import pytest

from scoremol.models.catboost import WEIGHT_GRID, TreeBlend, choose_weights


def test_each_target_gets_the_weight_its_held_out_molecules_prefer():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=(400, 3))
    noise_a, noise_b = rng.normal(size=(2, 400, 3))
    # target 0: the networks are exact; target 1: the tree is; target 2: both err equally
    networks = truth + np.stack([0 * noise_a[:, 0], noise_a[:, 1], noise_a[:, 2]], axis=1)
    trees = truth + np.stack([noise_b[:, 0], 0 * noise_b[:, 1], noise_b[:, 2]], axis=1)
    weights = choose_weights(networks, trees, truth, default=0.4)
    assert weights[0] == 0.0 and weights[1] == 0.9  # the grid stops short of the tree alone
    assert 0.3 <= weights[2] <= 0.7 and all(w in WEIGHT_GRID for w in weights)


def test_only_held_out_labelled_rows_choose_and_a_target_without_any_keeps_the_default():
    truth = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan], [4.0, 5.0]])
    networks = truth.copy()
    networks[:, 1] = 0.0
    trees = np.full_like(truth, 100.0)
    trees[3] = np.nan  # row 3 was not held out by any member
    assert choose_weights(networks, trees, truth, default=0.4) == [0.0, 0.4]


def test_the_blend_uses_each_targets_own_weight():
    tree = TreeBlend([None, None], [0.2, 0.7], [0, 0])
    tree.predict = lambda raw: np.array([[10.0, 10.0]])  # type: ignore[method-assign]
    tree.blobs = [b"a", b"b"]
    out = tree.blend(np.array([[0.0, 0.0]]), np.zeros((1, 3)))
    assert out.tolist() == [[pytest.approx(2.0), pytest.approx(7.0)]]


def test_a_tree_of_weight_0_is_dropped_and_its_target_keeps_the_networks_mean():
    tree = TreeBlend([b"a", b"b"], [0.0, 0.5], [3, 3])
    assert tree.blobs == [None, b"b"]
    tree.predict = lambda raw: np.array([[np.nan, 10.0]])  # type: ignore[method-assign]
    out = tree.blend(np.array([[1.0, 0.0]]), np.zeros((1, 3)))
    assert out.tolist() == [[1.0, pytest.approx(5.0)]]
