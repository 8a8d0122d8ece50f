"""State-to-state blocks ``block(h, ctx) -> y`` that :class:`scoremol.nn.depth.Depth` repeats.

All share the constructor ``(hidden, edge_dim, heads, dropout)``; arguments a block does
not need are accepted and ignored, so encoders build any of them the same way.
"""

from __future__ import annotations

from torch import nn

from scoremol.nn.blocks.attentivefp import AttentiveFPBlock
from scoremol.nn.blocks.dense import DenseBlock
from scoremol.nn.blocks.dmpnn import DMPNNBlock, dmpnn_message
from scoremol.nn.blocks.gat import GATBlock
from scoremol.nn.blocks.gcn import GCNBlock
from scoremol.nn.blocks.gine import GINEBlock
from scoremol.nn.blocks.mpnn import MPNNBlock
from scoremol.nn.blocks.transformer import TransformerBlock

#: graph architecture name -> block class (DMPNN's block acts on edge states).
BLOCKS: dict[str, type[nn.Module]] = {
    "gcn": GCNBlock,
    "gat": GATBlock,
    "gine": GINEBlock,
    "mpnn": MPNNBlock,
    "dmpnn": DMPNNBlock,
    "attentivefp": AttentiveFPBlock,
    "transformer": TransformerBlock,
}

__all__ = [
    "BLOCKS", "AttentiveFPBlock", "DenseBlock", "DMPNNBlock", "GATBlock", "GCNBlock",
    "GINEBlock", "MPNNBlock", "TransformerBlock", "dmpnn_message",
]
