"""GINE block: GIN with bond features added to neighbour messages."""

from __future__ import annotations

from torch import Tensor, nn
from torch_geometric.nn import GINEConv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


@register_block("gine")
class GINEBlock(nn.Module):
    r"""``y = MLP((1 + eps) x_v + sum_u relu(x_u + Lin(e_uv)))``, ``x = dropout(h)``,
    learnable ``eps``.

    The MLP is Linear-ReLU-Linear without batch norm (so predictions do not depend on
    what else is in the batch); its last Linear gives the pre-activation output.

    Args:
        hidden: width of the atom state and of the MLP.
        edge_dim: width of the raw bond features (``Lin``: ``edge_dim -> hidden``).
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
        mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.conv = GINEConv(mlp, train_eps=True, edge_dim=edge_dim)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        return self.conv(x, ctx.edge_index, ctx.edge_attr)
