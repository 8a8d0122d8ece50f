"""Descriptor-only models: ``mlp`` (stacked dense layers) and ``score-mlp`` (one shared
dense layer applied recurrently), both through the same :class:`Depth` as the GNNs."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from scoremol.nn.activations import make_activation
from scoremol.nn.blocks import DenseBlock
from scoremol.nn.config import ModelConfig
from scoremol.nn.head import get_descriptors, make_head


class DenseModel(nn.Module):
    """``descriptors -> act(Linear) -> Depth(DenseBlock) -> dropout -> head``.

    ``steps`` counts the hidden-to-hidden layers after the input projection (K separate
    ones in stacked modes, one shared layer applied K times in ``score``). The input may be
    a batch with ``.descriptors`` ``[B, D]`` or that tensor itself.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        config.validate()
        if not config.is_dense:
            raise ValueError(f"DenseModel needs arch 'mlp' or 'score-mlp', got {config.arch!r}")
        self.config = config
        self.input = nn.Linear(config.descriptor_dim, config.hidden)
        self.act = make_activation(config.activation)
        self.depth = config.make_depth(
            lambda: DenseBlock(config.hidden, 0, config.heads, config.dropout))
        self.head = make_head(config.hidden, config)

    def forward(self, data) -> Tensor:
        num = getattr(data, "num_graphs", None)
        if num is None:  # a bare tensor or a single molecule: trust the row count
            desc = data if isinstance(data, Tensor) else getattr(data, "descriptors", None)
            num = desc.size(0) if isinstance(desc, Tensor) and desc.dim() == 2 else 1
        desc = get_descriptors(data, int(num), self.config.descriptor_dim, self.input.weight)
        h = self.depth(self.act(self.input(desc)))
        return self.head(F.dropout(h, self.config.dropout, self.training))

