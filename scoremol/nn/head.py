"""Prediction head and descriptor fusion shared by the graph and dense models."""

from __future__ import annotations

from torch import Tensor, nn
from torch_geometric.nn import MLP

from scoremol.nn.activations import make_activation
from scoremol.nn.config import ModelConfig


def make_head(in_dim: int, config: ModelConfig) -> nn.Module:
    """MLP ``in_dim -> head_hidden... -> n_targets`` (no batch norm, plain last layer)."""
    channels = [in_dim, *config.head_hidden, config.n_targets]
    return MLP(channels, dropout=config.dropout, act=make_activation(config.activation),
               norm=None)


def get_descriptors(data, num_graphs: int, dim: int, like: Tensor) -> Tensor:
    """``data.descriptors`` as ``[B, dim]`` in ``like``'s dtype, or a clear ``ValueError``."""
    desc = data if isinstance(data, Tensor) else getattr(data, "descriptors", None)
    if desc is None:
        raise ValueError("this model uses descriptors but the batch has no `descriptors` "
                         "attribute (attach data.descriptors as a [1, D] float tensor)")
    if desc.dim() != 2 or desc.size(0) != num_graphs or desc.size(1) != dim:
        raise ValueError(f"descriptors have shape {tuple(desc.shape)}, expected "
                         f"[{num_graphs}, {dim}]")
    return desc.to(dtype=like.dtype, device=like.device)
