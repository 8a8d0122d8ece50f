"""The graph tensors a depth block needs besides its state, bundled in one object.

``Depth`` passes the same context to every step, so blocks keep the signature
``block(h, ctx) -> y`` whatever graph information they use.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class GraphContext:
    """Graph structure shared by all steps of one forward pass.

    ``edge_index``/``edge_attr`` are the directed bond graph (reverse of edge ``e`` is
    ``e ^ 1``), ``batch`` maps atoms to molecules. ``edge_input`` is only set by the DMPNN
    encoder: the pre-activation initial edge state ``W_i [x_src ; edge_attr]`` that every
    D-MPNN step adds back; ``rev_index`` is the reverse-edge permutation it uses.
    """

    edge_index: Tensor
    edge_attr: Tensor
    batch: Tensor
    num_nodes: int
    num_graphs: int
    edge_input: Tensor | None = None
    rev_index: Tensor | None = None


def graph_index(data) -> tuple[Tensor, int]:
    """``(batch vector, number of molecules)`` for a PyG ``Batch`` or a single ``Data``."""
    batch = getattr(data, "batch", None)
    if batch is None:
        return torch.zeros(data.num_nodes, dtype=torch.long, device=data.x.device), 1
    if torch.compiler.is_exporting():  # a symbolic size: int() would fix it to the traced batch's
        return batch, data.num_graphs
    return batch, int(data.num_graphs)


def reverse_edge_index(edge_index: Tensor) -> Tensor:
    """Index of each edge's reverse (``e ^ 1``), after checking the data really pairs them.

    The D-MPNN message subtracts the reverse edge; if a pipeline reordered or coalesced
    edges, ``e ^ 1`` would silently point at an unrelated bond, so this raises instead.
    """
    num_edges = edge_index.size(1)
    if num_edges % 2:
        raise ValueError(f"expected paired directed edges, got an odd edge count {num_edges}")
    rev = torch.arange(num_edges, device=edge_index.device) ^ 1
    if (
        num_edges
        and not torch.compiler.is_exporting()
        and not (torch.equal(edge_index[0, rev], edge_index[1]) and torch.equal(edge_index[1, rev], edge_index[0]))
    ):
        raise ValueError(
            "edge e ^ 1 is not the reverse of edge e: edges must be stored as "
            "consecutive (forward, reverse) pairs, as scoremol.featurizers.graph does"
        )
    return rev
