"""Graph-transformer block: multi-head attention over bonded neighbours with edge bias."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import TransformerConv

from scoremol.nn.context import GraphContext


class TransformerBlock(nn.Module):
    """Post-norm transformer layer whose attention is PyG's ``TransformerConv``.

    ``z = LN(h + dropout(Attn(h, edge_attr)))``; ``y = LN(z + dropout(FFN(z)))``, FFN of
    width 2*hidden. Heads split ``hidden`` (``hidden % heads == 0``). Attention runs over
    the bond graph; bond features enter keys and values through ``edge_dim``. LayerNorm is
    per atom (``torch.nn.LayerNorm``, not PyG's graph-wise one) so results do not depend
    on batch composition.
    """

    def __init__(self, hidden: int, edge_dim: int, heads: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        if hidden % heads:
            raise ValueError(f"transformer needs hidden ({hidden}) divisible by heads ({heads})")
        self.dropout = dropout
        self.attn = TransformerConv(hidden, hidden // heads, heads=heads, concat=True,
                                    dropout=dropout, edge_dim=edge_dim)
        self.norm1 = nn.LayerNorm(hidden)
        self.ffn = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(2 * hidden, hidden))
        self.norm2 = nn.LayerNorm(hidden)

    def forward(self, h: Tensor, ctx: GraphContext) -> Tensor:
        a = self.attn(h, ctx.edge_index, ctx.edge_attr)
        z = self.norm1(h + F.dropout(a, self.dropout, self.training))
        return self.norm2(z + F.dropout(self.ffn(z), self.dropout, self.training))
