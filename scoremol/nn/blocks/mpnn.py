"""MPNN block (Gilmer et al.): messages through an edge-conditioned matrix, low rank."""

from __future__ import annotations

from torch import Tensor, nn
from torch_geometric.nn import NNConv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


def default_rank(hidden: int) -> int:
    """Message bottleneck width: hidden / 8, at least 4 (16 for hidden 128)."""
    return max(4, hidden // 8)


@register_block("mpnn")
class MPNNBlock(nn.Module):
    r"""``y = W_root x_v + sum_u A(e_uv) P x_u + b`` with ``A(e) = reshape(EdgeNet(e))``,
    ``x = dropout(h)``.

    A full edge network would emit a ``hidden x hidden`` matrix per bond (16k outputs at
    hidden 128: ~0.5M parameters per layer and a 16k-float tensor per edge). Here the
    neighbour state is first projected to ``rank`` dims (``P``), so the edge network
    (edge_dim -> ``edge_hidden`` -> rank*hidden) and the per-edge matrices are 8x smaller;
    the root term keeps full width. Sum aggregation, as in Gilmer's MPNN.

    Args:
        hidden: width of the atom state.
        edge_dim: width of the raw bond features.
        heads: unused (accepted for the block contract).
        dropout: probability of the input dropout on ``h``.
        rank: width of the message bottleneck ``P``; default :func:`default_rank`.
        edge_hidden: hidden width of the edge network.

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``; ``ctx.edge_index`` ``[2, E]``,
          ``ctx.edge_attr`` ``[E, edge_dim]``
        - **output:** pre-activation ``y`` ``[N, hidden]`` (per-edge matrices
          ``A(e)`` ``[E, rank, hidden]``)
    """

    def __init__(
        self,
        hidden: int,
        edge_dim: int,
        heads: int = 1,
        dropout: float = 0.0,
        rank: int | None = None,
        edge_hidden: int = 32,
    ) -> None:
        super().__init__()
        self.dropout = dropout
        rank = default_rank(hidden) if rank is None else rank
        self.down = nn.Linear(hidden, rank, bias=False)
        edge_net = nn.Sequential(nn.Linear(edge_dim, edge_hidden), nn.ReLU(), nn.Linear(edge_hidden, rank * hidden))
        self.conv = NNConv(rank, hidden, edge_net, aggr="add", root_weight=False)
        self.root = nn.Linear(hidden, hidden, bias=False)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        return self.conv(self.down(x), ctx.edge_index, ctx.edge_attr) + self.root(x)
