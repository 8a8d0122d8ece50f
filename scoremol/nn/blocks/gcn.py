"""GCN block: symmetric-normalised graph convolution with bond-dependent edge weights."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch_geometric.nn import GCNConv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


@register_block("gcn")
class GCNBlock(nn.Module):
    r"""``y = GCNConv(dropout(h), w(e))`` with ``w(e) = sigmoid(Linear(edge_attr))``.

    GCNConv only takes a scalar weight per edge, so bond features enter as a learned
    positive weight in (0, 1) per bond (self-loops keep weight 1). This keeps GCN
    edge-aware at the cost of ``edge_dim + 1`` parameters.

    Args:
        hidden: width of the atom state.
        edge_dim: width of the raw bond features.
        heads: unused (accepted for the block contract).
        dropout: probability of the input dropout on ``h``.

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``; ``ctx.edge_index`` ``[2, E]``,
          ``ctx.edge_attr`` ``[E, edge_dim]``
        - **output:** pre-activation ``y`` ``[N, hidden]``
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.edge_weight = nn.Linear(edge_dim, 1)
        self.conv = GCNConv(hidden, hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        weight = torch.sigmoid(self.edge_weight(ctx.edge_attr)).squeeze(-1)
        return self.conv(x, ctx.edge_index, weight)
