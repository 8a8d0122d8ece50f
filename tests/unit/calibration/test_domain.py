"""The applicability domain: nearest-neighbour similarity and unseen composition."""

from __future__ import annotations

import numpy as np
import torch

from scoremol.calibration import Domain
from scoremol.calibration.domain import composition, neighbour_distance, to_similarity
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk


def test_neighbour_distance_is_the_brute_force_mean_of_the_nearest():
    generator = torch.Generator().manual_seed(0)
    queries, reference = torch.randn(700, 32, generator=generator), torch.randn(300, 32, generator=generator)
    distances = torch.cdist(queries.double(), reference.double())
    nearest = distances.min(dim=1).values.numpy()
    assert np.allclose(neighbour_distance(queries, reference, neighbours=1, block=64), nearest, atol=1e-4)
    ten = distances.topk(10, dim=1, largest=False).values.mean(dim=1).numpy()
    assert np.allclose(neighbour_distance(queries, reference, neighbours=10, block=64), ten, atol=1e-4)
    everything = distances.mean(dim=1).numpy()  # fewer reference rows than neighbours: all of them
    assert np.allclose(neighbour_distance(queries, reference, neighbours=1000), everything, atol=1e-4)
    assert np.all(np.isinf(neighbour_distance(queries[:3], reference[:0])))


def test_neighbour_distance_does_not_depend_on_the_batching():
    """Far from the origin, |q|^2 + |r|^2 - 2 q.r cancels in float32: distances must come
    from the differences, identical whatever rows share a block."""
    generator = torch.Generator().manual_seed(1)
    offset = 20.0 * torch.randn(1, 128, generator=generator)
    queries = offset + 0.3 * torch.randn(300, 128, generator=generator)
    reference = offset + 0.3 * torch.randn(500, 128, generator=generator)
    exact = torch.cdist(queries.double(), reference.double()).min(dim=1).values.numpy()
    one_by_one = neighbour_distance(queries, reference, neighbours=1, block=1)
    # (the expanded square differed by up to 1e-3 here; summing differences in float64
    # leaves only the reduction order)
    assert np.allclose(one_by_one, neighbour_distance(queries, reference, neighbours=1, block=256), rtol=1e-12)
    assert np.allclose(one_by_one, exact, rtol=1e-5)


def test_similarity_scale():
    assert np.allclose(to_similarity(np.array([0.0, 2.0, 6.0]), typical=2.0), [1.0, 0.5, 0.25])


def featurized(smiles: list[str]):
    from scoremol.data.read import smiles_chunk

    return featurize_chunk(smiles_chunk(smiles), FeaturizerSettings())


def test_unseen_elements_charges_and_sizes_are_out():
    train = featurized(["CCO", "c1ccccc1O", "CC(=O)[O-].[Na+]"])
    ids = np.arange(train.num_graphs)
    reference = torch.randn(len(ids), 4)
    domain = Domain.fit(reference, 1, 1.0, np.array([0.5, 0.6, 0.7]), train.x, train.atom_ptr, ids)
    new = featurized(["CCCO", "CC[Se]C", "C[N+](C)(C)C", "CCCCCCCCCCCCCCCC"])
    reasons = domain.reasons(new.x, new.atom_ptr, np.arange(new.num_graphs), np.ones(new.num_graphs))
    assert reasons[0] == ""
    assert "element Se not in the training data" in reasons[1]
    # standardization kept acetic acid alone and neutral: no training atom is charged
    assert "formal charge +1 not in the training data" in reasons[2]
    assert "more than any training molecule" in reasons[3]
    low = domain.reasons(new.x, new.atom_ptr, np.arange(1), np.array([domain.threshold - 0.01]))
    assert low[0].startswith("out of domain: similarity")


def test_composition_marks_each_graph_separately():
    data = featurized(["CCO", "CC[Se]C", "O"])
    used = composition(data.x, data.atom_ptr, np.array([2, 0]))
    from scoremol.calibration.domain import _COMPOSITION_NAMES

    names = [[_COMPOSITION_NAMES[c] for c in np.flatnonzero(row)] for row in used]
    assert "element O" in names[0] and "element C" not in names[0]
    assert "element C" in names[1] and "element Se" not in names[1]
