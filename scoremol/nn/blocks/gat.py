"""GAT block: edge-aware multi-head attention (GATv2)."""

from __future__ import annotations

from torch import Tensor, nn
from torch_geometric.nn import GATv2Conv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


@register_block("gat")
class GATBlock(nn.Module):
    r"""``y = Linear(concat_heads(GATv2Conv(dropout(h), edge_attr)))``.

    Each of the ``heads`` heads is ``hidden`` wide (as in the GAT paper); their
    concatenation is projected back to ``hidden`` so the block is state-to-state. Bond
    features enter the attention scores through GATv2's ``edge_dim``; self-loops get the
    mean of the atom's incoming bond features. Attention coefficients are not dropped
    (the block contract has one dropout, on the input).

    Args:
        hidden: width of the atom state and of each head.
        edge_dim: width of the raw bond features.
        heads: number of attention heads.
        dropout: probability of the input dropout on ``h``.

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``; ``ctx.edge_index`` ``[2, E]``,
          ``ctx.edge_attr`` ``[E, edge_dim]``
        - **output:** pre-activation ``y`` ``[N, hidden]`` (heads ``[N, heads * hidden]``
          before the projection)
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.conv = GATv2Conv(hidden, hidden, heads=heads, concat=True, edge_dim=edge_dim)
        self.proj = nn.Linear(heads * hidden, hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        return self.proj(self.conv(x, ctx.edge_index, ctx.edge_attr))
