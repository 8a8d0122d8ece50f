"""Graph-transformer block: multi-head attention over bonded neighbours with edge bias,
then a position-wise feed-forward network."""

from __future__ import annotations

from torch import Tensor, nn
from torch_geometric.nn import TransformerConv

from scoremol.nn.blocks import register_block
from scoremol.nn.context import GraphContext
from scoremol.nn.dropout import dropout


@register_block("transformer")
class TransformerBlock(nn.Module):
    r"""The content of a transformer layer, ``y = FFN(LN(Attn(x, edge_attr)))``, ``x = dropout(h)``.

    ``Attn`` is PyG's ``TransformerConv`` (scaled dot-product attention over bonded
    neighbours, heads splitting ``hidden``, bond features added to keys and values through
    ``edge_dim``, plus its learned root term ``W_r x`` so an atom keeps its own
    information). ``FFN`` is ``Linear(hidden, 2 hidden) -> ReLU -> Linear(2 hidden,
    hidden)``; its last Linear is the pre-activation output. The LayerNorm is per atom
    (``torch.nn.LayerNorm``, not PyG's graph-wise one) so results do not depend on batch
    composition.

    A post-norm transformer layer is ``LN(z + FFN(z))``, ``z = LN(h + Attn(h))``. Its
    residual connections and output norms are not here because the block contract gives
    them to :class:`~scoremol.nn.depth.Depth` (mode ``classic`` is ``act(LN(h + y))``,
    ``skip``/``score`` are residual by construction); a block that returned a normalized
    state would have Depth activate it again.

    Args:
        hidden: width of the atom state; must be divisible by ``heads``.
        edge_dim: width of the raw bond features.
        heads: number of attention heads, each ``hidden // heads`` wide.
        dropout: probability of the input dropout on ``h`` (attention coefficients and
            the FFN are not dropped).

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``; ``ctx.edge_index`` ``[2, E]``,
          ``ctx.edge_attr`` ``[E, edge_dim]``
        - **output:** pre-activation ``y`` ``[N, hidden]`` (FFN inside ``[N, 2 hidden]``)
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        if hidden % heads:
            raise ValueError(f"transformer needs hidden ({hidden}) divisible by heads ({heads})")
        self.dropout = dropout
        self.attn = TransformerConv(hidden, hidden // heads, heads=heads, concat=True, edge_dim=edge_dim)
        self.norm = nn.LayerNorm(hidden)
        self.ffn = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.ReLU(), nn.Linear(2 * hidden, hidden))

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        x = dropout(h, self.dropout, self.training)
        return self.ffn(self.norm(self.attn(x, ctx.edge_index, ctx.edge_attr)))
