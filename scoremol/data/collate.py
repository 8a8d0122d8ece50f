"""Fast batching of molecular graphs into one :class:`GraphBatch`.

``Batch.from_data_list`` is general (any attribute, any increment rule) and costs tens of
microseconds per graph in Python, which is more than a small GNN's forward pass on a
molecule. Our graphs have a fixed schema (x, edge_index, edge_attr, optional y and
descriptors), so concatenation with offsets is all batching needs: ``collate_arrays`` does
it vectorized straight from the packed arrays of a featurized chunk (inference) and
``collate_graphs`` from a list of ``Data`` (training). Both give the same tensors as
``Batch.from_data_list`` for the attributes the models read. The batch is a small plain
class rather than a PyG ``Batch`` so that prediction never imports PyTorch Geometric
(seconds of start-up); every model also accepts a PyG ``Batch``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from torch_geometric.data import Data


@dataclass
class Graph:
    """One molecule's tensors for training: the fields of a PyG ``Data`` the models read
    (edge indices local to the molecule), without importing PyG."""

    x: torch.Tensor
    edge_index: torch.Tensor
    edge_attr: torch.Tensor
    y: torch.Tensor | None = None
    descriptors: torch.Tensor | None = None


@dataclass
class GraphBatch:
    """Molecules concatenated into one disconnected graph, with what the models read.

    ``batch`` maps atoms to molecules, ``ptr`` holds the molecules' first atom (plus the
    total), ``edge_index`` is global; ``y`` and ``descriptors`` are ``[B, ...]`` or None.
    """

    x: torch.Tensor
    edge_index: torch.Tensor
    edge_attr: torch.Tensor
    batch: torch.Tensor
    ptr: torch.Tensor
    y: torch.Tensor | None = None
    descriptors: torch.Tensor | None = None

    @property
    def num_graphs(self) -> int:
        return self.ptr.numel() - 1

    @property
    def num_nodes(self) -> int:
        return self.x.size(0)

    def to(self, device: str | torch.device) -> GraphBatch:
        """The same batch with every tensor on ``device``."""
        return GraphBatch(
            **{f.name: None if (v := getattr(self, f.name)) is None else v.to(device) for f in fields(self)}
        )


def _ranges(ptr: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated index ranges ``ptr[i]:ptr[i+1]`` for ``i`` in ``ids``, and their lengths."""
    starts = ptr[ids]
    counts = ptr[ids + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), counts
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return np.arange(total, dtype=np.int64) + offsets, counts


def make_batch(
    x: torch.Tensor,
    edge_index: torch.Tensor,
    edge_attr: torch.Tensor,
    atom_counts: np.ndarray,
    y: torch.Tensor | None,
    descriptors: torch.Tensor | None,
) -> GraphBatch:
    n_graphs = len(atom_counts)
    batch = torch.from_numpy(np.repeat(np.arange(n_graphs, dtype=np.int64), atom_counts))
    ptr = torch.from_numpy(np.concatenate([[0], np.cumsum(atom_counts)]).astype(np.int64))
    return GraphBatch(
        x=x, edge_index=edge_index, edge_attr=edge_attr, batch=batch, ptr=ptr, y=y, descriptors=descriptors
    )


def collate_arrays(
    x: np.ndarray,
    edge_index: np.ndarray,
    edge_attr: np.ndarray,
    atom_ptr: np.ndarray,
    edge_ptr: np.ndarray,
    ids: np.ndarray,
    descriptors: torch.Tensor | None = None,
) -> GraphBatch:
    """One batch of graphs ``ids`` from packed arrays (``edge_index`` local to each graph)."""
    ids = np.asarray(ids, dtype=np.int64)
    atom_idx, atom_counts = _ranges(atom_ptr, ids)
    edge_idx, edge_counts = _ranges(edge_ptr, ids)
    new_offsets = np.concatenate([[0], np.cumsum(atom_counts)[:-1]]).astype(np.int64)
    ei = edge_index[:, edge_idx] + np.repeat(new_offsets, edge_counts)
    return make_batch(
        torch.from_numpy(np.ascontiguousarray(x[atom_idx])),
        torch.from_numpy(np.ascontiguousarray(ei)),
        torch.from_numpy(np.ascontiguousarray(edge_attr[edge_idx])),
        atom_counts,
        None,
        descriptors,
    )


def collate_graphs(graphs: list[Graph | Data]) -> GraphBatch:
    """One batch from :class:`Graph` or PyG ``Data`` objects with the scoremol schema."""
    atom_counts = np.fromiter((g.x.shape[0] for g in graphs), dtype=np.int64, count=len(graphs))
    offsets = np.concatenate([[0], np.cumsum(atom_counts)[:-1]])
    edge_index = torch.cat([g.edge_index + int(o) for g, o in zip(graphs, offsets)], dim=1)
    y = torch.cat([g.y for g in graphs]) if graphs and getattr(graphs[0], "y", None) is not None else None
    desc = getattr(graphs[0], "descriptors", None) if graphs else None
    descriptors = torch.cat([g.descriptors for g in graphs]) if desc is not None else None
    return make_batch(
        torch.cat([g.x for g in graphs]),
        edge_index,
        torch.cat([g.edge_attr for g in graphs]),
        atom_counts,
        y,
        descriptors,
    )
