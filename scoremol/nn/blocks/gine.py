"""GINE block: GIN with bond features added to neighbour messages."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import GINEConv

from scoremol.nn.context import GraphContext


class GINEBlock(nn.Module):
    """``y = MLP((1 + eps) h_v + sum_u relu(h_u + Lin(e_uv)))`` (learnable eps).

    The MLP is Linear-ReLU-Linear without batch norm, so predictions do not depend on what
    else is in the batch. ``heads`` is unused.
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.conv = GINEConv(mlp, train_eps=True, edge_dim=edge_dim)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        h = F.dropout(h, self.dropout, self.training)
        return self.conv(h, ctx.edge_index, ctx.edge_attr)
