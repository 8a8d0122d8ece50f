"""The applicability domain: how much a molecule resembles the training data.

Similarity is measured in the first member's molecule vectors (the readout of its atom
states, before descriptors join: the chemistry as the network sees it), from the mean
Euclidean distance ``d`` to the ``k`` nearest
training molecules, as ``1 / (1 + d / d_typical)`` where ``d_typical`` is that distance for
a typical held-out training molecule (so 0.5 is a typical new molecule like the training
data, and it falls towards 0 with distance). ``k`` is one of :data:`NEIGHBOURS`, whichever
ranks the held-out training molecules' errors best (on the AqSolDB scaffold test, Spearman
with |error| for 1 / 10 neighbours: default 0.23 / 0.24, fast 0.26 / 0.24), unless training
fixes it (``neighbours``). One neighbour searches about a fifth faster, but on the drug-like
scaffold tests it widened the fast model's water intervals until they over-covered (0.935).
The search is one matrix product per batch (``[B, d] x [d, N]``, ``d`` = the hidden size, or
the principal components a model searches: ``Domain.search_dims``), which keeps up
with the fastest model on 200,000 molecules. The nearest Morgan-fingerprint Tanimoto
similarity ranks those errors far worse (0.09 for both models) and costs minutes there
(0.18 us per pair with RDKit's bulk search, 2e9 pairs).

A molecule is ``out`` of the domain when its similarity is below a threshold
chosen on held-out training molecules, or when it has an element, formal charge or size
that no training molecule has (the network has never seen those inputs), or an element or
charge outside the featurizer's lists (which it cannot tell apart).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from scoremol.calibration.neighbours import NeighbourIndex, Search, nearest_rows, neighbour_distances, principal_basis
from scoremol.featurizers.layout import ATOM_OFFSETS, ELEMENTS, FORMAL_CHARGES

#: held-out training molecules less similar than this share of them fall outside the domain
OUT_OF_DOMAIN_SHARE = 0.05
#: the neighbour counts whose mean distance may measure similarity (chosen per model)
NEIGHBOURS: tuple[int, ...] = (1, 10)

#: the featurizer's element and charge slots, each list's last slot its "other"
_ELEMENT_SLOTS, _CHARGE_SLOTS = len(ELEMENTS) + 1, len(FORMAL_CHARGES) + 1
#: atom feature columns that name a molecule's composition: element, then formal charge
COMPOSITION_COLUMNS = np.r_[
    ATOM_OFFSETS["element"] : ATOM_OFFSETS["element"] + _ELEMENT_SLOTS,
    ATOM_OFFSETS["formal_charge"] : ATOM_OFFSETS["formal_charge"] + _CHARGE_SLOTS,
]
_COMPOSITION_NAMES = (
    [f"element {e}" for e in ELEMENTS]
    + ["an element outside the featurizer's list"]
    + [f"formal charge {c:+d}" for c in FORMAL_CHARGES]
    + ["a formal charge outside the featurizer's list"]
)
#: the two "other" slots: the featurizer gives every element (charge) outside its list the
#: same column, so a uranium atom looks like a training molecule's germanium. A molecule
#: using them is never in the domain, whatever the training data held.
_OTHER_SLOTS = np.zeros(len(COMPOSITION_COLUMNS), dtype=bool)
_OTHER_SLOTS[[_ELEMENT_SLOTS - 1, _ELEMENT_SLOTS + _CHARGE_SLOTS - 1]] = True


def to_similarity(distance: np.ndarray, typical: float) -> np.ndarray:
    """``1 / (1 + distance / typical)``: 1 at distance 0, 0.5 at the typical distance."""
    return 1.0 / (1.0 + np.asarray(distance, np.float64) / max(typical, 1e-12))


def composition(x: np.ndarray, atom_ptr: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Which composition slots each graph ``ids`` uses: bool ``[len(ids), C]`` (every graph
    has at least one atom: an empty molecule never gets a graph)."""
    ids = np.asarray(ids, dtype=np.int64)
    if len(ids) == 0 or len(x) == 0:
        return np.zeros((len(ids), len(COMPOSITION_COLUMNS)), dtype=bool)
    present = (x[:, COMPOSITION_COLUMNS] > 0).astype(np.uint8)
    per_graph = np.maximum.reduceat(present, np.minimum(atom_ptr[:-1], len(x) - 1), axis=0)
    return per_graph[ids].astype(bool)


@dataclass
class Domain:
    """The training data as the model saw it, and where its domain ends.

    ``reference``: embeddings of every training molecule ``[N, d]`` (float16 on disk).
    ``neighbours``: how many nearest training molecules the distance averages over.
    ``typical``: that distance for a typical held-out training molecule.
    ``threshold``: similarities below it are ``out``. ``seen``: composition slots some
    training molecule uses ``[C]``. ``max_atoms``: the largest training molecule's atoms.
    ``smiles`` and ``labels`` ``[N, T]`` (NaN: not measured): the training molecules
    themselves, in the reference's order, so that a prediction can show its nearest
    training molecules and their measured values (None for a model saved without them).
    ``task_neighbours`` and ``task_typical`` ``[T]``: for a model of several targets, the
    same two settings for each target's similarity to the training molecules measured for
    it (what that target's interval reads: a logD interval should widen away from logD
    data, not away from water-solubility data); None for one target. ``search_dims``:
    similarity finds the nearest training molecules in the reference's first
    ``search_dims`` principal components (0: in all dimensions), then measures their
    distances in all of them. For the fast model's 64 dimensions, 16 components find
    neighbours whose mean distance ranks molecules as the exact search does (Spearman
    0.997-0.998 on the benchmark SMILES) in about two thirds of the time. Nearest training molecules shown in
    reports are always found in all dimensions.
    """

    reference: torch.Tensor
    neighbours: int
    typical: float
    threshold: float
    seen: np.ndarray
    max_atoms: int
    smiles: list[str] | None = None
    labels: np.ndarray | None = None
    task_neighbours: list[int] | None = None
    task_typical: list[float] | None = None
    search_dims: int = 0
    #: prepared searches by what they search (see :meth:`_index`); not saved or pickled
    _indexes: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    #: the embedding space the reference lives in (what ``GraphModel.embed`` returns)
    SPACE = "readout"

    @classmethod
    def fit(
        cls,
        reference: torch.Tensor,
        neighbours: int,
        typical: float,
        held_out_similarity: np.ndarray,
        x: np.ndarray,
        atom_ptr: np.ndarray,
        ids: np.ndarray,
        labels: np.ndarray | None = None,
        task_settings: list[tuple[int, float]] | None = None,
        search_dims: int = 0,
    ) -> Domain:
        """From the training embeddings, the neighbour count and typical held-out distance,
        the similarities of held-out training molecules to the rest, and the training
        graphs ``ids`` of a featurized data set; with their ``labels`` ``[N, T]``, each
        target's neighbour count and typical distance for its own similarity; ``search_dims``
        as the attribute (the held-out distances must have been found the same way)."""
        finite = np.asarray(held_out_similarity)[np.isfinite(held_out_similarity)]
        threshold = float(np.quantile(finite, OUT_OF_DOMAIN_SHARE)) if len(finite) else 0.0
        seen = composition(x, atom_ptr, ids).any(axis=0)
        sizes = atom_ptr[np.asarray(ids) + 1] - atom_ptr[np.asarray(ids)]
        domain = cls(
            reference.half(),
            int(neighbours),
            float(typical),
            threshold,
            seen,
            int(sizes.max(initial=0)),
            search_dims=int(search_dims),
        )
        if labels is not None:
            domain.labels = np.asarray(labels, dtype=np.float32)
        if task_settings is not None and labels is not None:
            domain.task_neighbours = [int(k) for k, _ in task_settings]
            domain.task_typical = [float(t) for _, t in task_settings]
        return domain

    @property
    def per_task(self) -> bool:
        """Whether each target has its own similarity (several targets, labels kept)."""
        return self.task_neighbours is not None and self.labels is not None

    def similarity(self, embeddings: torch.Tensor) -> np.ndarray:
        """Similarity ``[B]`` of embeddings ``[B, d]`` to the training set (see module)."""
        return self.measure(embeddings)[0]

    def measure(self, embeddings: torch.Tensor) -> tuple[np.ndarray, np.ndarray | None]:
        """Similarity ``[B]`` of embeddings ``[B, d]`` to the training set and, for a
        :attr:`per_task` domain, to each target's measured molecules ``[B, T]`` (else
        None), all from one product with the reference."""
        distances = neighbour_distances(embeddings, self._measure_index())
        similarity = to_similarity(distances[0], self.typical)
        if not self.per_task:
            return similarity, None
        per_task = [to_similarity(d, typical) for d, typical in zip(distances[1:], self.task_typical, strict=True)]
        return similarity, np.stack(per_task, axis=1)

    def prepare(self) -> None:
        """Lay out :meth:`measure`'s search now: before forking workers, so that they
        share one layout instead of each making its own (about 13 ms apiece for the fast model)."""
        self._measure_index()

    def _measure_index(self) -> NeighbourIndex:
        def searches() -> list[Search]:
            found: list[Search] = [(None, self.neighbours)]
            if self.per_task:
                measured = np.isfinite(self.labels)
                found += [(np.flatnonzero(measured[:, t]), k) for t, k in enumerate(self.task_neighbours)]
            return found

        key = ("measure", self.neighbours, tuple(self.task_neighbours or ()) if self.per_task else None)
        return self._index(key, searches, self.search_dims)

    def nearest(self, embeddings: torch.Tensor, count: int = 3) -> tuple[np.ndarray, np.ndarray]:
        """The ``count`` nearest training molecules to each embedding ``[B, d]``: their
        indices into :attr:`smiles` and :attr:`labels`, and their similarity (1 / (1 +
        distance / typical), as for the domain), ``[B, count]`` each, nearest first."""
        index, distance = nearest_rows(embeddings, self._index(("nearest", count), lambda: [(None, count)]))
        return index, to_similarity(distance, self.typical)

    def _index(self, key: tuple, searches: Callable[[], list[Search]], search_dims: int = 0) -> NeighbourIndex:
        """The reference prepared for ``searches()`` (in its first ``search_dims`` principal
        components, 0: all dimensions) once per model, not once per chunk of predictions
        (laying it out costs about as much as searching 200 molecules)."""
        key = (*key, search_dims)
        cached = self._indexes.get(key)
        if cached is None or cached[0] is not self.reference or cached[1] is not self.labels:
            basis = principal_basis(self.reference.float(), search_dims)
            cached = (self.reference, self.labels, NeighbourIndex(self.reference, searches(), basis=basis))
            self._indexes[key] = cached
        return cached[2]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_indexes": {}}

    def reasons(self, x: np.ndarray, atom_ptr: np.ndarray, ids: np.ndarray, similarity: np.ndarray) -> list[str]:
        """Why each graph ``ids`` is out of the domain ('' when it is in)."""
        ids = np.asarray(ids, dtype=np.int64)
        sizes = atom_ptr[ids + 1] - atom_ptr[ids]
        similarity = np.asarray(similarity)
        flagged = self._unseen(x, atom_ptr, ids) | (sizes > self.max_atoms) | (similarity < self.threshold)
        out = [""] * len(ids)
        for k in np.flatnonzero(flagged):  # only the few outside need words
            atoms = x[atom_ptr[ids[k]] : atom_ptr[ids[k] + 1], COMPOSITION_COLUMNS]
            unseen = (atoms > 0).any(axis=0) & self._unknown
            why = [
                f"{_COMPOSITION_NAMES[c]} (the model cannot tell it from others outside it)"
                if _OTHER_SLOTS[c]
                else f"{_COMPOSITION_NAMES[c]} not in the training data"
                for c in np.flatnonzero(unseen)
            ]
            if sizes[k] > self.max_atoms:
                why.append(f"{int(sizes[k])} atoms, more than any training molecule ({self.max_atoms})")
            if similarity[k] < self.threshold:
                why.append(f"similarity {similarity[k]:.2f} to the training data, below {self.threshold:.2f}")
            out[k] = "out of domain: " + "; ".join(why)
        return out

    @property
    def _unknown(self) -> np.ndarray:
        """Composition slots that put a molecule out of the domain ``[C]``: those no training
        molecule uses, and the two "other" slots."""
        return ~self.seen | _OTHER_SLOTS

    def _unseen(self, x: np.ndarray, atom_ptr: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Whether each graph ``ids`` has an atom in an unknown composition slot
        ``[len(ids)]``: read from those slots' columns only (usually a few), which keeps the
        check from costing a tenth of the domain's time."""
        columns = COMPOSITION_COLUMNS[self._unknown]
        if len(columns) == 0 or len(ids) == 0 or len(x) == 0:
            return np.zeros(len(ids), dtype=bool)
        unseen_atom = (x[:, columns] > 0).any(axis=1)
        return np.logical_or.reduceat(unseen_atom, np.minimum(atom_ptr[:-1], len(x) - 1))[ids]

    def to_meta(self) -> dict:
        return {
            "space": self.SPACE,
            "neighbours": self.neighbours,
            "typical": self.typical,
            "threshold": self.threshold,
            "seen": self.seen.astype(int).tolist(),
            "max_atoms": self.max_atoms,
            **({"task_neighbours": self.task_neighbours, "task_typical": self.task_typical} if self.per_task else {}),
            **({"search_dims": self.search_dims} if self.search_dims else {}),
        }

    @classmethod
    def from_meta(
        cls, meta: dict, reference: torch.Tensor, smiles: list[str] | None = None, labels: np.ndarray | None = None
    ) -> Domain:
        seen = np.asarray(meta["seen"], dtype=bool)
        if len(seen) != len(COMPOSITION_COLUMNS) or reference.dim() != 2:
            raise ValueError("domain does not match this featurizer")
        labels = labels if labels is not None and len(labels) == len(reference) else None
        per_task = "task_neighbours" in meta and labels is not None and labels.shape[1] == len(meta["task_neighbours"])
        return cls(
            reference.half(),
            int(meta["neighbours"]),
            float(meta["typical"]),
            float(meta["threshold"]),
            seen,
            int(meta["max_atoms"]),
            smiles if smiles is not None and len(smiles) == len(reference) else None,
            labels,
            [int(k) for k in meta["task_neighbours"]] if per_task else None,
            [float(t) for t in meta["task_typical"]] if per_task else None,
            int(meta.get("search_dims", 0)),
        )
