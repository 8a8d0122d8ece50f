"""AttentiveFP atom step: edge-aware graph attention, then a GRU update."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn.models.attentive_fp import GATEConv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


@register_block("attentivefp")
class AttentiveFPBlock(nn.Module):
    r"""``x = dropout(h)``; ``c = ELU(GATEConv(x, edge_attr))``; ``y = GRUCell(c, x)``.

    The first (edge-aware) atom layer of PyG's ``AttentiveFP`` as a state-to-state block:
    the GRU takes the attention context as input and the current state as its hidden
    state, so the same step can be stacked or shared. PyG's ``AttentiveFP`` computes
    ``relu(GRUCell(c, x))``; the ReLU is Depth's activation, so mode ``base`` with
    ``activation="relu"`` is that layer.

    ``y`` is a gated state (the GRU blends ``x`` with a ``tanh`` candidate), the one
    documented exception to the pre-activation rule of the block contract (see
    :mod:`scoremol.nn.blocks`). Following the contract's dropout rule, the only dropout is
    on the input: GATEConv's attention coefficients are not dropped, unlike in PyG's
    ``AttentiveFP``, which drops ``c`` and the attention coefficients instead.

    Args:
        hidden: width of the atom state (GATEConv and GRU width).
        edge_dim: width of the raw bond features.
        heads: unused (GATEConv is single-head, as in AttentiveFP).
        dropout: probability of the input dropout on ``h``.

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``; ``ctx.edge_index`` ``[2, E]``,
          ``ctx.edge_attr`` ``[E, edge_dim]``
        - **output:** GRU state ``y`` ``[N, hidden]``, before Depth's activation
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.conv = GATEConv(hidden, hidden, edge_dim, dropout=0.0)
        self.gru = nn.GRUCell(hidden, hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        c = F.elu(self.conv(x, ctx.edge_index, ctx.edge_attr))
        return self.gru(c, x)
