"""The applicability domain: nearest-neighbour similarity and unseen composition."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from scoremol.calibration import Domain
from scoremol.calibration.domain import composition, to_similarity
from scoremol.calibration.neighbours import neighbour_distance
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.featurizers.layout import ELEMENTS


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
    # (the expanded square differed by up to 1e-3 here; each row's differences are summed
    # alone, whatever block it is in)
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
    # graphs chosen out of order: each verdict is its own graph's
    picked = domain.reasons(new.x, new.atom_ptr, np.array([1, 0, 2]), np.ones(3))
    assert "element Se" in picked[0] and picked[1] == "" and "formal charge +1" in picked[2]
    assert "element Se" not in picked[2]
    low = domain.reasons(new.x, new.atom_ptr, np.arange(1), np.array([domain.threshold - 0.01]))
    assert low[0].startswith("out of domain: similarity")


def test_elements_and_charges_outside_the_featurizers_lists_are_always_out():
    """Every element outside the list shares one input: training on germanium says nothing
    of uranium, so such a molecule is out even when a training molecule filled that slot."""
    train = featurized(["CCO", "C[Ge](C)(C)C", "C[Sn](C)(C)C", "c1ccccc1O"])
    ids = np.arange(train.num_graphs)
    domain = Domain.fit(torch.randn(len(ids), 4), 1, 1.0, np.array([0.5, 0.6, 0.7]), train.x, train.atom_ptr, ids)
    assert domain.seen[len(ELEMENTS)]  # germanium filled the "other" element slot
    new = featurized(["CCCO", "[U]", "C[Sn](C)(C)CC", "[He]"])
    reasons = domain.reasons(new.x, new.atom_ptr, np.arange(new.num_graphs), np.ones(new.num_graphs))
    assert reasons[0] == "" and reasons[2] == ""  # tin is in the featurizer's list
    for reason in (reasons[1], reasons[3]):
        assert "an element outside the featurizer's list (the model cannot tell it from others" in reason


def test_composition_marks_each_graph_separately():
    data = featurized(["CCO", "CC[Se]C", "O"])
    used = composition(data.x, data.atom_ptr, np.array([2, 0]))
    from scoremol.calibration.domain import _COMPOSITION_NAMES

    names = [[_COMPOSITION_NAMES[c] for c in np.flatnonzero(row)] for row in used]
    assert "element O" in names[0] and "element C" not in names[0]
    assert "element C" in names[1] and "element Se" not in names[1]


def test_subset_searches_share_one_product_and_match_searching_the_subset_alone():
    from scoremol.calibration.neighbours import neighbour_distances

    generator = torch.Generator().manual_seed(2)
    queries, reference = torch.randn(150, 16, generator=generator), torch.randn(400, 16, generator=generator)
    odd = np.arange(1, 400, 2)
    whole, subset, ten, empty = neighbour_distances(
        queries, reference, [(None, 1), (odd, 1), (odd[:50], 10), (np.zeros(0, np.int64), 1)], block=32
    )
    distances = torch.cdist(queries.double(), reference.double())
    assert np.allclose(whole, distances.min(dim=1).values.numpy(), atol=1e-4)
    assert np.allclose(subset, distances[:, odd].min(dim=1).values.numpy(), atol=1e-4)
    expected_ten = distances[:, odd[:50]].topk(10, dim=1, largest=False).values.mean(dim=1).numpy()
    assert np.allclose(ten, expected_ten, atol=1e-4)
    assert np.all(np.isinf(empty))
    assert not np.allclose(whole, subset)  # the subset search did not read the other rows


def test_overlapping_task_searches_match_brute_force_with_groups_smaller_than_k():
    """Rows are grouped by which searches read them (here seven groups, some of one to
    three rows, fewer than k): each search still finds its own k nearest."""
    from scoremol.calibration.neighbours import neighbour_distances

    generator = torch.Generator().manual_seed(3)
    queries, reference = torch.randn(90, 8, generator=generator), torch.randn(400, 8, generator=generator)
    tasks = [np.arange(0, 250), np.arange(200, 400), np.array([5, 240, 399]), np.array([7])]
    searches = [(None, 10), (tasks[0], 10), (tasks[1], 10), (tasks[2], 3), (tasks[3], 1)]
    found = neighbour_distances(queries, reference, searches, block=16)
    distances = torch.cdist(queries.double(), reference.double())
    for (rows, k), got in zip(searches, found, strict=True):
        part = distances if rows is None else distances[:, rows]
        expected = part.topk(k, dim=1, largest=False).values.mean(dim=1).numpy()
        assert np.allclose(got, expected, atol=1e-4)


@pytest.mark.parametrize("count", [5, 70])
def test_rows_are_grouped_by_the_searches_that_read_them_in_pattern_order(count):
    """Packed into integers (up to 62 searches) or compared as rows (more), the groups are
    the distinct read patterns in lexicographic order, and every search still finds its
    own nearest rows."""
    from scoremol.calibration.neighbours import _groups, neighbour_distances

    rng = np.random.default_rng(count)
    searches = [(None, 2)] + [(np.flatnonzero(rng.random(120) < 0.3), 2) for _ in range(count - 1)]
    order, bounds, groups = _groups(120, searches)
    reads = np.ones((count, 120), dtype=bool)
    for s, (rows, _) in enumerate(searches[1:], start=1):
        reads[s] = np.isin(np.arange(120), rows)
    expected = np.unique(reads.T, axis=0)
    assert np.array_equal(groups, expected)
    for g in range(len(groups)):
        assert (reads.T[order[bounds[g] : bounds[g + 1]]] == groups[g]).all()
    queries, reference = torch.randn(9, 4), torch.randn(120, 4)
    distances = torch.cdist(queries.double(), reference.double())
    for (rows, k), got in zip(searches, neighbour_distances(queries, reference, searches), strict=True):
        part = distances if rows is None else distances[:, rows]
        if part.shape[1]:
            assert np.allclose(
                got, part.topk(min(k, part.shape[1]), dim=1, largest=False).values.mean(dim=1), atol=1e-4
            )


def test_the_chunked_search_finds_each_searchs_nearest_rows_and_their_order():
    """Chunks of four columns: groups of many chunks take the chunk-minimum path, groups of
    at most k chunks are sorted whole, padding is never found; the rows, their order and
    distances are brute force's."""
    from scoremol.calibration.neighbours import NeighbourIndex

    generator = torch.Generator().manual_seed(4)
    queries, reference = torch.randn(70, 6, generator=generator), torch.randn(301, 6, generator=generator)
    searches = [(None, 5), (np.arange(0, 200), 5), (np.arange(150, 301), 1), (np.array([3, 160, 300]), 2)]
    index = NeighbourIndex(reference, searches, chunk=4)
    distances = torch.cdist(queries.double(), reference.double())
    for start, found in index.search(queries, block=32):
        for (rows, k), (nearest, distance) in zip(searches, found, strict=True):
            part = distances[start : start + 32]
            rows = np.arange(len(reference)) if rows is None else rows
            expected = part[:, rows].topk(k, dim=1, largest=False)
            assert torch.equal(nearest, torch.as_tensor(rows)[expected.indices])
            assert torch.allclose(distance, expected.values, atol=1e-5)


def test_smallest_finds_topks_columns_in_either_order():
    from scoremol.calibration.neighbours import smallest

    values = torch.randn(40, 90, generator=torch.Generator().manual_seed(6))
    expected = values.topk(7, dim=1, largest=False, sorted=True).indices
    assert torch.equal(smallest(values, 7, nearest_first=True), expected)
    unordered = smallest(values, 7)
    assert torch.equal(unordered.sort(dim=1).values, expected.sort(dim=1).values)
    assert torch.equal(smallest(values[:, :5], 7, nearest_first=True), values[:, :5].argsort(dim=1))
    assert torch.equal(smallest(values, 1), values.argmin(dim=1, keepdim=True))


def test_an_unordered_search_finds_the_same_rows_and_distances():
    from scoremol.calibration.neighbours import NeighbourIndex

    generator = torch.Generator().manual_seed(7)
    queries, reference = torch.randn(50, 6, generator=generator), torch.randn(260, 6, generator=generator)
    index = NeighbourIndex(reference, [(None, 6), (np.arange(100, 260), 3)], chunk=4)
    ordered = list(index.search(queries, block=16))
    unordered = list(index.search(queries, block=16, nearest_first=False))
    for (_, first), (_, second) in zip(ordered, unordered, strict=True):
        for (rows, distance), (rows_any, distance_any) in zip(first, second, strict=True):
            order = rows_any.argsort(dim=1)
            assert torch.equal(rows.sort(dim=1).values, rows_any.gather(1, order))
            assert torch.allclose(distance.sort(dim=1).values, distance_any.sort(dim=1).values)


def test_a_domain_prepares_its_search_once_and_again_for_a_new_reference():
    domain, _ = _two_task_domain()
    query = torch.tensor([[0.0, 0.0], [10.0, 1.0]])
    first = domain.measure(query)
    index = next(iter(domain._indexes.values()))[2]
    assert np.array_equal(domain.measure(query)[1], first[1])
    assert next(iter(domain._indexes.values()))[2] is index
    domain.reference = domain.reference + 1.0  # every row moved by (1, 1): nearest rows now sqrt(2) and 1 away
    similarity, _ = domain.measure(query)
    assert next(iter(domain._indexes.values()))[2] is not index
    assert np.allclose(similarity, to_similarity(np.array([np.sqrt(2.0), 1.0]), domain.typical), atol=1e-3)
    import pickle

    assert pickle.loads(pickle.dumps(domain))._indexes == {}


def _two_task_domain():
    train = featurized(["CCO", "c1ccccc1O", "CCN", "CCCl"])
    ids = np.arange(train.num_graphs)
    reference = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 1.0], [10.0, 1.0]])
    labels = np.array([[1.0, np.nan], [np.nan, 2.0], [3.0, np.nan], [np.nan, 4.0]])
    held_out = np.array([0.5, 0.6, 0.7, 0.8])
    return Domain.fit(reference, 1, 1.0, held_out, train.x, train.atom_ptr, ids, labels, [(1, 2.0), (2, 4.0)]), train


def test_a_domain_of_two_targets_measures_similarity_to_each_targets_molecules():
    domain, _ = _two_task_domain()
    assert domain.per_task
    query = torch.tensor([[0.0, 0.0]])
    similarity, per_task = domain.measure(query)
    assert np.allclose(similarity, [1.0])  # a training molecule itself
    # target 0 was measured on rows 0 and 2 (nearest at distance 0), target 1 on rows 1 and
    # 3: the mean distance to both (10 and sqrt(101)), on that target's typical scale
    assert np.allclose(per_task[0, 0], 1.0)
    assert np.isclose(per_task[0, 1], to_similarity(np.array([(10 + np.sqrt(101)) / 2]), 4.0)[0])
    back = Domain.from_meta(domain.to_meta(), domain.reference, ["a", "b", "c", "d"], domain.labels)
    assert back.task_neighbours == [1, 2] and back.task_typical == [2.0, 4.0]
    assert np.allclose(back.measure(query)[1], per_task, atol=1e-3)
    # without the labels (a file saved without its training molecules) there is one similarity
    alone = Domain.from_meta(domain.to_meta(), domain.reference)
    assert not alone.per_task and alone.measure(query)[1] is None


def test_principal_basis_is_orthonormal_ordered_by_variance_and_signed():
    from scoremol.calibration.neighbours import principal_basis

    generator = torch.Generator().manual_seed(5)
    scales = torch.tensor([5.0, 0.1, 3.0, 0.5, 1.0, 0.2])
    reference = torch.randn(400, 6, generator=generator) * scales + 7.0
    basis = principal_basis(reference, 3)
    assert basis.shape == (6, 3)
    assert torch.allclose(basis.T @ basis, torch.eye(3), atol=1e-5)
    # the axes of largest variance first: the 1st, 3rd and 5th coordinates
    assert basis.abs().argmax(dim=0).tolist() == [0, 2, 4]
    assert torch.all(basis.gather(0, basis.abs().argmax(dim=0, keepdim=True)) > 0)
    assert torch.equal(principal_basis(-reference, 3), basis)  # the sign does not follow the data's
    assert principal_basis(reference, 0) is None and principal_basis(reference, 6) is None


def test_a_projected_search_finds_neighbours_in_the_components_and_measures_them_in_full():
    """Two strong coordinates carry the structure, four weak ones noise: the search must
    find each query's nearest rows in the first two components, and report their distances
    in all six (neither the projected distances nor the exact neighbours)."""
    from scoremol.calibration.neighbours import NeighbourIndex, neighbour_distances, principal_basis

    generator = torch.Generator().manual_seed(6)
    scales = torch.tensor([4.0, 3.0, 0.6, 0.6, 0.6, 0.6])
    reference = torch.randn(500, 6, generator=generator) * scales
    queries = torch.randn(80, 6, generator=generator) * scales
    basis = principal_basis(reference, 2)
    index = NeighbourIndex(reference, [(None, 3)], chunk=8, basis=basis)
    centre = reference.mean(dim=0)
    projected = torch.cdist(((queries - centre) @ basis).double(), ((reference - centre) @ basis).double())
    full = torch.cdist(queries.double(), reference.double())
    expected = projected.topk(3, dim=1, largest=False).indices
    found = torch.cat([f[0][0] for _, f in index.search(queries, block=16)])
    distance = torch.cat([f[0][1] for _, f in index.search(queries, block=16)])
    assert torch.equal(found, expected)
    assert torch.allclose(distance, full.gather(1, expected), atol=1e-5)
    assert not torch.equal(found, full.topk(3, dim=1, largest=False).indices)  # not the exact search
    mean = neighbour_distances(queries, reference, [(None, 3)], basis=basis)[0]
    assert np.allclose(mean, full.gather(1, expected).mean(dim=1).numpy(), atol=1e-5)


def test_a_domain_searching_principal_components_keeps_them_through_its_file_record():
    domain, _ = _two_task_domain()
    reference = torch.randn(4, 6, generator=torch.Generator().manual_seed(7))
    domain.reference = reference.half()
    domain.search_dims = 2
    meta = domain.to_meta()
    assert meta["search_dims"] == 2
    again = Domain.from_meta(meta, domain.reference, ["CCO", "c1ccccc1O", "CCN", "CCCl"], domain.labels)
    assert again.search_dims == 2
    query = torch.randn(3, 6, generator=torch.Generator().manual_seed(8))
    assert np.array_equal(again.measure(query)[1], domain.measure(query)[1])
    index = next(iter(again._indexes.values()))[2]
    assert index.basis is not None and index.basis.shape == (6, 2)
    domain.search_dims = 0
    assert "search_dims" not in domain.to_meta()  # files of exact searches read as before
    assert Domain.from_meta(domain.to_meta(), domain.reference).search_dims == 0


def test_prepare_lays_out_the_search_that_measure_then_uses():
    domain, _ = _two_task_domain()
    assert domain._indexes == {}
    domain.prepare()
    ((key, (_, _, index)),) = domain._indexes.items()
    domain.measure(torch.tensor([[0.0, 0.0]]))
    assert domain._indexes[key][2] is index and len(domain._indexes) == 1
