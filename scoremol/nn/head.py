"""Prediction head and descriptor fusion shared by the graph and dense models."""

from __future__ import annotations

from torch import Tensor, nn

from scoremol.nn.activations import make_activation
from scoremol.nn.config import ModelConfig
from scoremol.nn.dropout import dropout


class MLPHead(nn.Module):
    r"""``Linear -> act -> dropout`` per hidden layer, then a plain last ``Linear``.

    Computes what PyTorch Geometric's ``MLP(channels, norm=None, dropout=p)`` computes,
    with the same parameter names (``lins.<i>.weight``/``bias``) and the same seeded
    initialization (PyG initializes each layer twice: at construction and in its
    ``reset_parameters``), so models trained with either load into and behave as the other.

    Args:
        channels: layer widths ``[in_dim, *hidden, n_targets]`` (at least two).
        dropout: probability of the dropout after each hidden layer's activation.
        act: the activation module, shared by all hidden layers.

    Shapes:
        - **input:** ``[B, channels[0]]``
        - **output:** ``[B, channels[-1]]`` (``[B, n_targets]`` in a model)
    """

    def __init__(self, channels: list[int], dropout: float, act: nn.Module) -> None:
        super().__init__()
        self.lins = nn.ModuleList(nn.Linear(a, b) for a, b in zip(channels[:-1], channels[1:], strict=True))
        self.act = act
        self.dropout = dropout
        for lin in self.lins:
            lin.reset_parameters()

    def embed(self, x: Tensor) -> Tensor:
        """The last hidden layer's activations ``[B, channels[-2]]``: the molecule as the
        output layer sees it."""
        for lin in self.lins[:-1]:
            x = dropout(self.act(lin(x)), self.dropout, self.training)
        return x

    def forward(self, x: Tensor) -> Tensor:
        return self.lins[-1](self.embed(x))


def make_head(in_dim: int, config: ModelConfig) -> nn.Module:
    """MLP ``in_dim -> head_hidden... -> n_targets`` (no batch norm, plain last layer):
    ``[B, in_dim] -> [B, n_targets]``."""
    channels = [in_dim, *config.head_hidden, config.n_targets]
    return MLPHead(channels, config.dropout, make_activation(config.activation))


def get_descriptors(data, num_graphs: int, dim: int, like: Tensor) -> Tensor:
    """``data.descriptors`` as ``[B, dim]`` in ``like``'s dtype, or a clear ``ValueError``."""
    desc = data if isinstance(data, Tensor) else getattr(data, "descriptors", None)
    if desc is None:
        raise ValueError(
            "this model uses descriptors but the batch has no `descriptors` "
            "attribute (attach data.descriptors as a [1, D] float tensor)"
        )
    if desc.dim() != 2 or desc.size(0) != num_graphs or desc.size(1) != dim:
        raise ValueError(f"descriptors have shape {tuple(desc.shape)}, expected [{num_graphs}, {dim}]")
    return desc.to(dtype=like.dtype, device=like.device)
