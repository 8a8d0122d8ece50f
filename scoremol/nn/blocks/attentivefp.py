"""AttentiveFP atom step: edge-aware graph attention, then a GRU update."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn.models.attentive_fp import GATEConv

from scoremol.nn.context import GraphContext


class AttentiveFPBlock(nn.Module):
    """``c = dropout(ELU(GATEConv(h, edge_attr)))``; ``y = GRUCell(c, h)``.

    This is the first (edge-aware) atom layer of PyG's ``AttentiveFP`` turned into a
    state-to-state block: the GRU takes the attention context as input and the current
    state as its hidden state, so the same step can be stacked or shared. ``heads`` is
    unused (GATEConv is single-head, as in AttentiveFP).
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.conv = GATEConv(hidden, hidden, edge_dim, dropout)
        self.gru = nn.GRUCell(hidden, hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        c = F.elu(self.conv(h, ctx.edge_index, ctx.edge_attr))
        c = F.dropout(c, self.dropout, self.training)
        return self.gru(c, h)
