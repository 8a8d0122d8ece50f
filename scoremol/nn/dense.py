"""Descriptor-only models: ``mlp`` (stacked dense layers) and ``score-mlp`` (one shared
dense layer applied recurrently), both through the same :class:`Depth` as the GNNs."""

from __future__ import annotations

from torch import Tensor, nn

from scoremol.nn.activations import make_activation
from scoremol.nn.config import ModelConfig
from scoremol.nn.dropout import dropout
from scoremol.nn.head import get_descriptors, make_head


class DenseBlock(nn.Module):
    r"""``y = Linear(dropout(h))``: the depth block of the dense models.

    Follows the block contract of :mod:`scoremol.nn.blocks` (constructor, pre-activation
    output, one input dropout) with molecules as rows and no graph. It lives here, not in
    ``blocks/``, because it is not a graph architecture: the block files there are
    exactly :data:`scoremol.spec.GRAPH_ARCHITECTURES`.

    Args:
        hidden: width of the state.
        edge_dim: unused (accepted for the block contract).
        heads: unused (accepted for the block contract).
        dropout: probability of the input dropout on ``h``.

    Shapes:
        - **input:** states ``h`` ``[B, hidden]``; ``ctx`` is ignored (may be ``None``)
        - **output:** pre-activation ``y`` ``[B, hidden]``
    """

    def __init__(self, hidden: int, edge_dim: int = 0, heads: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout
        self.lin = nn.Linear(hidden, hidden)

    def forward(self, h: Tensor, ctx=None) -> Tensor:
        return self.lin(dropout(h, self.dropout, self.training))


class DenseModel(nn.Module):
    r"""``descriptors -> act(Linear) -> Depth(DenseBlock) -> dropout -> head``.

    ``steps`` counts the hidden-to-hidden layers after the input projection (K separate
    ones in stacked modes, one shared layer applied K times in ``score``).

    Args:
        config: a dense :class:`~scoremol.nn.config.ModelConfig` (arch ``mlp`` or
            ``score-mlp``, ``use_descriptors=True``).

    Shapes:
        - **input:** a batch with ``.descriptors`` ``[B, descriptor_dim]``, or that
          tensor itself
        - **output:** predictions ``[B, n_targets]``
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        config.validate()
        if not config.is_dense:
            raise ValueError(f"DenseModel needs arch 'mlp' or 'score-mlp', got {config.arch!r}")
        self.config = config
        self.input = nn.Linear(config.descriptor_dim, config.hidden)
        self.act = make_activation(config.activation)
        self.depth = config.make_depth(lambda: DenseBlock(config.hidden, 0, config.heads, config.dropout))
        self.head = make_head(config.hidden, config)

    def predict_and_embed(self, data) -> tuple[Tensor, Tensor]:
        """Predictions ``[B, n_targets]`` and the molecule vectors they come from (:meth:`embed`)."""
        h = self.embed(data)
        return self.head(dropout(h, self.config.dropout, self.training)), h

    def forward(self, data) -> Tensor:
        return self.predict_and_embed(data)[0]

    def embed(self, data) -> Tensor:
        """Molecule vectors ``[B, hidden]``: the descriptors after the shared depth block."""
        num = getattr(data, "num_graphs", None)
        if num is None:  # a bare tensor or a single molecule: trust the row count
            desc = data if isinstance(data, Tensor) else getattr(data, "descriptors", None)
            num = desc.size(0) if isinstance(desc, Tensor) and desc.dim() == 2 else 1
        desc = get_descriptors(data, int(num), self.config.descriptor_dim, self.input.weight)
        return self.depth(self.act(self.input(desc)))
