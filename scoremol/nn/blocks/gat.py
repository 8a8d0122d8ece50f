"""GAT block: edge-aware multi-head attention (GATv2)."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import GATv2Conv

from scoremol.nn.context import GraphContext


class GATBlock(nn.Module):
    """``y = Linear(concat_heads(GATv2Conv(dropout(h), edge_attr)))``.

    Each of the ``heads`` heads is ``hidden`` wide (as in the GAT paper); their
    concatenation is projected back to ``hidden`` so the block is state-to-state. Bond
    features enter the attention scores through GATv2's ``edge_dim``; self-loops get the
    mean of the atom's incoming bond features.
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.conv = GATv2Conv(hidden, hidden, heads=heads, concat=True, edge_dim=edge_dim,
                              dropout=dropout)
        self.proj = nn.Linear(heads * hidden, hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        h = F.dropout(h, self.dropout, self.training)
        return self.proj(self.conv(h, ctx.edge_index, ctx.edge_attr))
