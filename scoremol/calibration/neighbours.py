"""Nearest training molecules by Euclidean distance in embedding space, searched in blocks.

The search is one matrix product per block of queries (``[B, d] x [d, N]``) with the
reference kept in chunks of :data:`CHUNK` columns, so memory stays bounded by
:data:`BLOCK_BYTES` whatever the number of queries; several searches (each a subset of the
reference rows and a neighbour count) share one product. :class:`scoremol.calibration.Domain`
turns the distances into similarity.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch

#: one neighbour search: the rows of the reference to search (None: all of them) and how
#: many nearest rows to find
Search = tuple[np.ndarray | None, int]

#: reference columns per chunk of the search (see :class:`NeighbourIndex`)
CHUNK = 64
#: the most memory one block of the search's product may take: queries per block follow
#: from it (256 at 16,000 reference rows, where blocks of 256 search 1.3x faster than 64)
BLOCK_BYTES = 16 << 20


def principal_basis(reference: torch.Tensor, dims: int) -> torch.Tensor | None:
    """The first ``dims`` principal axes of ``reference`` ``[N, d]`` as columns ``[d, dims]``
    (each signed so that its largest entry is positive, whatever sign LAPACK returns), or
    None when ``dims`` is 0 or keeps every dimension (the search then runs in all of them)."""
    if dims <= 0 or dims >= reference.shape[1] or len(reference) < 2:
        return None
    centred = reference.double() - reference.double().mean(dim=0, keepdim=True)
    variance, axes = torch.linalg.eigh(centred.T @ centred)
    axes = axes[:, torch.argsort(variance, descending=True)[:dims]]
    largest = axes.gather(0, axes.abs().argmax(dim=0, keepdim=True))
    return (axes * torch.sign(largest)).float()


def smallest(values: torch.Tensor, k: int, nearest_first: bool = False) -> torch.Tensor:
    """Column indices of the ``k`` smallest values of each row of ``values`` ``[B, n]``
    (all ``n`` when fewer), ``[B, min(k, n)]``, in no order unless ``nearest_first``.
    numpy's introselect finds them in 60-85 % of ``torch.topk``'s time at these sizes
    (tens to hundreds of columns), and shares the tensor's memory."""
    k = min(k, values.shape[1])
    rows = values.detach().cpu().numpy()
    if k == 1:  # one neighbour: a plain minimum, a twentieth of the selection's time
        return torch.from_numpy(rows.argmin(axis=1)[:, None])
    picked = np.argpartition(rows, k - 1, axis=1)[:, :k] if k < rows.shape[1] else np.tile(np.arange(k), (len(rows), 1))
    if nearest_first:
        picked = np.take_along_axis(picked, np.take_along_axis(rows, picked, axis=1).argsort(axis=1, kind="stable"), 1)
    return torch.from_numpy(np.ascontiguousarray(picked))


def _groups(n: int, searches: Sequence[Search]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reference rows grouped by which searches read them: the rows in group order
    ``[n]``, each group's first position ``[G + 1]`` and which searches read it ``[G, S]``."""
    reads = np.ones((len(searches), n), dtype=bool)
    for s, (rows, _) in enumerate(searches):
        if rows is not None:
            reads[s] = False
            reads[s, np.asarray(rows, dtype=np.int64)] = True
    if len(searches) < 63:
        # each row's pattern as one integer, the first search the highest bit: the groups
        # come out in the order of the patterns themselves, ten times faster than unique rows
        weights = np.left_shift(1, np.arange(len(searches) - 1, -1, -1, dtype=np.int64))
        codes, group_of = np.unique(weights @ reads, return_inverse=True)
        groups = (codes[:, None] & weights) > 0
    else:  # more searches than an integer has bits
        groups, group_of = np.unique(reads.T, axis=0, return_inverse=True)
    group_of = group_of.reshape(-1)
    order = np.argsort(group_of, kind="stable")
    bounds = np.searchsorted(group_of[order], np.arange(len(groups) + 1))
    return order, bounds, groups


class NeighbourIndex:
    """A reference ``[N, d]`` laid out once for repeated nearest-row searches.

    Its rows are grouped by which searches read them (each task's molecules: a few
    groups), and each group is padded to whole chunks of :data:`CHUNK` columns (padding
    is infinitely far), so every chunk belongs to the same searches. One product per
    query block gives every column's squared distance up to a per-query constant and one
    pass takes each chunk's minimum; a search's ``k`` nearest rows lie in its ``k``
    chunks with the smallest minima, so only their columns are searched. Every search reads the
    same product: searching each task's molecules costs little more than searching them
    all, and the exact search costs about a third of sorting every column.

    ``basis`` ``[d, p]`` (see :func:`principal_basis`): neighbours are found in the
    reference's first ``p`` principal components instead (a product ``d / p`` times
    smaller); their distances are still measured in all ``d`` dimensions.
    """

    def __init__(
        self,
        reference: torch.Tensor,
        searches: Sequence[Search],
        chunk: int = CHUNK,
        basis: torch.Tensor | None = None,
    ) -> None:
        self.requested = list(searches)
        # searches of no rows (or none wanted) find nothing (``live``: the others); each finds
        # at most what it searches
        sizes = [len(reference) if rows is None else len(rows) for rows, _ in searches]
        self.live = [i for i, size in enumerate(sizes) if size > 0 and int(searches[i][1]) > 0]
        self.searches = [(searches[i][0], min(int(searches[i][1]), sizes[i])) for i in self.live]
        self.chunk = chunk
        if not self.live:
            return
        # centred on the reference's mean: embeddings share a large common offset, which the
        # expanded square below would otherwise lose float32 digits to
        self.center = reference.float().mean(dim=0, keepdim=True)
        self.ref = reference.float() - self.center
        self.basis = basis
        searched = self.ref if basis is None else self.ref @ basis
        order, bounds, groups = _groups(len(reference), self.searches)
        group_sizes = np.diff(bounds)
        starts = np.concatenate([[0], np.cumsum(-(-group_sizes // chunk) * chunk)])
        original = np.full(int(starts[-1]), -1, dtype=np.int64)  # column -> reference row (-1: padding)
        for g, size in enumerate(group_sizes):
            original[starts[g] : starts[g] + size] = order[bounds[g] : bounds[g + 1]]
        self.original = torch.as_tensor(original)
        real = self.original >= 0
        laid = torch.zeros(len(original), searched.shape[1])
        laid[real] = searched[self.original[real]]
        # [d + 1, columns]: the columns, then their squared norms (inf for padding), so that one
        # product with a query's [-2q, 1] gives |r|^2 - 2 q.r without adding a [B, N] bias
        squared = torch.where(real, (laid * laid).sum(dim=1), torch.tensor(float("inf")))
        self.ref_t = torch.cat([laid.T, squared[None, :]]).contiguous()
        # each search's chunks (those of the groups it reads); None: every chunk
        n_chunks = len(original) // chunk
        self.chunks = []
        for s in range(len(self.searches)):
            own = np.concatenate(
                [np.arange(starts[g] // chunk, starts[g + 1] // chunk) for g in range(len(groups)) if groups[g, s]]
            )
            self.chunks.append(None if len(own) == n_chunks else torch.as_tensor(own))

    def search(
        self, queries: torch.Tensor, block: int | None = None, nearest_first: bool = True
    ) -> Iterator[tuple[int, list]]:
        """Per block of ``block`` queries ``[B, d]`` (default: as many as :data:`BLOCK_BYTES`
        allows, 16-256): its first row and, for each search, the indices into the reference
        of each query's ``k`` nearest searched rows ``[B, k]`` (nearest first, or in no order
        without ``nearest_first``: a mean distance needs none) and their Euclidean distances."""
        block = block or min(256, max(16, BLOCK_BYTES // (4 * len(self.original))))
        partial = torch.empty(min(block, len(queries)), len(self.original))  # reused: no page faults per block
        for start in range(0, len(queries), block):
            q = queries[start : start + block].float() - self.center
            # the neighbours are found on |r|^2 - 2 q.r (one product, [B, N]); their distances
            # are then taken from the differences themselves, which the expanded square would
            # lose to float32 cancellation (and so depend on the batching)
            searched = q if self.basis is None else q @ self.basis
            lifted = torch.cat([searched * -2.0, torch.ones(len(q), 1)], dim=1)
            part = torch.mm(lifted, self.ref_t, out=partial[: len(q)]).view(len(q), -1, self.chunk)
            minima = part.amin(dim=2)  # [B, chunks]
            # chunk c of query b is row b * chunks + c of the product's [B * chunks, chunk] view
            offset = torch.arange(len(q))[:, None] * minima.shape[1]
            nearest = []
            for (_, k), chunks in zip(self.searches, self.chunks, strict=True):
                own = minima if chunks is None else minima.index_select(1, chunks)
                picked = smallest(own, k)
                if chunks is not None:
                    picked = chunks[picked]
                # the picked chunks' columns, [B, k * chunk], and the k nearest among them
                candidates = part.view(-1, self.chunk).index_select(0, (picked + offset).view(-1)).view(len(q), -1)
                pick = smallest(candidates, k, nearest_first)
                columns = picked.gather(1, pick // self.chunk) * self.chunk + pick % self.chunk
                nearest.append(self.original[columns])
            # every search's distances in one pass (summing 64 squares in float32 loses
            # nothing a similarity shows, and each row is summed alone: batching cannot move it)
            found = torch.cat(nearest, dim=1)
            differences = q[:, None, :] - self.ref.index_select(0, found.view(-1)).view(*found.shape, -1)
            distance = differences.norm(dim=2).double()
            yield start, list(zip(nearest, distance.split([n.shape[1] for n in nearest], dim=1), strict=True))


def neighbour_distances(
    queries: torch.Tensor,
    reference: torch.Tensor | NeighbourIndex,
    searches: Sequence[Search] | None = None,
    block: int | None = None,
    basis: torch.Tensor | None = None,
) -> list[np.ndarray]:
    """For each search ``(rows, k)``: the mean Euclidean distance of each query row
    ``[B, d]`` to its ``k`` nearest among ``reference[rows]`` (``[N, d]``; all rows when
    ``rows`` is None; all searched rows when fewer), ``[B]``, inf where nothing is
    searched; nearest in the principal components of ``basis`` when given. ``reference``
    may be a :class:`NeighbourIndex` prepared for these searches (``searches`` and
    ``basis`` then None). Computed in blocks of ``block x N`` (see
    :meth:`NeighbourIndex.search`)."""
    if isinstance(reference, NeighbourIndex):
        index = reference
    else:
        index = NeighbourIndex(reference, list(searches or []), basis=basis)
    out = [np.full(len(queries), np.inf) for _ in index.requested]
    if not index.live or len(queries) == 0:
        return out
    for start, found in index.search(queries, block, nearest_first=False):
        for i, (_, distance) in zip(index.live, found, strict=True):
            out[i][start : start + len(distance)] = distance.mean(dim=1).numpy()
    return out


def neighbour_distance(
    queries: torch.Tensor, reference: torch.Tensor, neighbours: int = 1, block: int | None = None
) -> np.ndarray:
    """Mean Euclidean distance of each query row ``[B, d]`` to its ``neighbours`` nearest
    rows of ``reference`` ``[N, d]`` (see :func:`neighbour_distances`): ``[B]``."""
    return neighbour_distances(queries, reference, [(None, neighbours)], block)[0]


def nearest_rows(
    queries: torch.Tensor, reference: torch.Tensor | NeighbourIndex, count: int | None = None, block: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest rows of ``reference`` ``[N, d]`` to each query ``[B, d]``,
    nearest first: their indices and Euclidean distances, ``[B, min(count, N)]`` each
    (``reference`` may be a :class:`NeighbourIndex` of one search of all rows; ``count``
    is then unused)."""
    index = reference if isinstance(reference, NeighbourIndex) else NeighbourIndex(reference, [(None, count or 0)])
    k = index.searches[0][1] if index.live else 0
    if k == 0 or len(queries) == 0:
        return np.zeros((len(queries), k), dtype=np.int64), np.zeros((len(queries), k))
    found = [(f[0][0].numpy(), f[0][1].numpy()) for _, f in index.search(queries, block)]
    return np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
