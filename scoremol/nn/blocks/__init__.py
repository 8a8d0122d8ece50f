"""State-to-state blocks ``block(h, ctx) -> y`` that :class:`scoremol.nn.depth.Depth` repeats.

All share the constructor ``(hidden, edge_dim, heads, dropout)``; arguments a block does
not need are accepted and ignored, so encoders build any of them the same way.

Blocks are imported when first used: the PyTorch Geometric ones pull in PyG, whose import
costs seconds, and a DMPNN model (pure torch) should not pay for it at prediction time.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from torch import nn

#: block class name -> module that defines it
_WHERE: dict[str, str] = {
    "AttentiveFPBlock": "attentivefp",
    "DenseBlock": "dense",
    "DMPNNBlock": "dmpnn",
    "dmpnn_message": "dmpnn",
    "GATBlock": "gat",
    "GCNBlock": "gcn",
    "GINEBlock": "gine",
    "MPNNBlock": "mpnn",
    "TransformerBlock": "transformer",
}
_CLASS_OF_ARCH: dict[str, str] = {
    "gcn": "GCNBlock",
    "gat": "GATBlock",
    "gine": "GINEBlock",
    "mpnn": "MPNNBlock",
    "dmpnn": "DMPNNBlock",
    "attentivefp": "AttentiveFPBlock",
    "transformer": "TransformerBlock",
}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Blocks(Mapping):
    """Read-only ``arch -> block class`` mapping that imports a block on first access."""

    def __getitem__(self, arch: str) -> type[nn.Module]:
        return __getattr__(_CLASS_OF_ARCH[arch])

    def __iter__(self) -> Iterator[str]:
        return iter(_CLASS_OF_ARCH)

    def __len__(self) -> int:
        return len(_CLASS_OF_ARCH)


#: graph architecture name -> block class (DMPNN's block acts on edge states).
BLOCKS: Mapping[str, type[nn.Module]] = _Blocks()

__all__ = ["BLOCKS", *_WHERE]
