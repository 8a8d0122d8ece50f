"""Dense block for the descriptor-only models: a Linear layer, graph context unused."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class DenseBlock(nn.Module):
    """``y = Linear(dropout(h))``; accepts (and ignores) a context for the Depth protocol."""

    def __init__(self, hidden: int, edge_dim: int = 0, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.lin = nn.Linear(hidden, hidden)

    def forward(self, h: Tensor, ctx=None) -> Tensor:
        return self.lin(F.dropout(h, self.dropout, self.training))
