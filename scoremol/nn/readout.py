"""Readouts: atom states ``[N, hidden]`` -> one vector per molecule ``[B, hidden]``."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from scoremol.nn.activations import ActivationSpec, make_activation
from scoremol.nn.dropout import dropout
from scoremol.nn.scatter import scatter_mean, scatter_sum, segment_softmax


class _PoolingReadout(nn.Module):
    r"""A parameter-free pooling of atom states per molecule.

    Args:
        hidden: width of the atom states (unused; accepted so every readout is built alike).
        steps: unused (accepted for the shared readout signature).
        dropout: unused (accepted for the shared readout signature).
        activation: unused (accepted for the shared readout signature).

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``, ``batch`` ``[N]`` (molecule of each
          atom), ``num_graphs`` ``B``
        - **output:** ``[B, hidden]`` (zeros for a molecule without atoms)
    """

    pool = staticmethod(scatter_sum)

    def __init__(self, hidden: int, steps: int = 2, dropout: float = 0.0, activation: ActivationSpec = "relu") -> None:
        super().__init__()

    def forward(self, h: Tensor, batch: Tensor, num_graphs: int) -> Tensor:
        return self.pool(h, batch, num_graphs)


class SumReadout(_PoolingReadout):
    """Sum of atom states (size-extensive, like many molecular properties).

    Args: as :class:`_PoolingReadout` (all unused).
    Shapes: ``h`` ``[N, hidden]`` -> ``[B, hidden]``.
    """

    pool = staticmethod(scatter_sum)


class MeanReadout(_PoolingReadout):
    """Mean of atom states (size-intensive).

    Args: as :class:`_PoolingReadout` (all unused).
    Shapes: ``h`` ``[N, hidden]`` -> ``[B, hidden]``.
    """

    pool = staticmethod(scatter_mean)


class MolAttFPReadout(nn.Module):
    r"""AttentiveFP virtual super-node that attends over its molecule's atoms for T steps.

    ``m0 = act(sum_v h_v)``; per step ``a_v = LeakyReLU(w^T [m ; h_v] + b)``,
    ``alpha = softmax_v(a)`` within the molecule, ``c = ELU(sum_v alpha_v W dropout(h_v))``,
    ``m = act(GRUCell(c, m))``. The attention and GRU weights are shared across the T
    steps (as in PyG's AttentiveFP), so the parameter count does not depend on T.

    Args:
        hidden: width of the atom states and of the super-node state ``m``.
        steps: T, the number of attention steps (>= 1).
        dropout: probability of the dropout on the attended atom states (a fresh mask
            every step in training).
        activation: name or factory of ``act``.

    Shapes:
        - **input:** atom states ``h`` ``[N, hidden]``, ``batch`` ``[N]`` (molecule of each
          atom), ``num_graphs`` ``B``
        - **output:** molecule vectors ``m`` ``[B, hidden]``
    """

    def __init__(self, hidden: int, steps: int = 2, dropout: float = 0.0, activation: ActivationSpec = "relu") -> None:
        super().__init__()
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"readout steps must be an integer >= 1, got {steps!r}")
        self.steps = steps
        self.dropout = dropout
        self.act = make_activation(activation)
        self.align = nn.Linear(2 * hidden, 1)
        self.attend = nn.Linear(hidden, hidden)
        self.gru = nn.GRUCell(hidden, hidden)

    def forward(self, h: Tensor, batch: Tensor, num_graphs: int) -> Tensor:
        m = self.act(scatter_sum(h, batch, num_graphs))
        # w^T [m ; h_v] + b = (w_m^T m)[mol of v] + (w_h^T h_v + b): the atom half does not
        # change between steps, so it is computed once, and no [N, 2H] concatenation is built.
        w_m, w_h = self.align.weight.split(h.size(-1), dim=1)
        atom_score = F.linear(h, w_h, self.align.bias)
        fresh_dropout = self.training and self.dropout > 0  # a new mask every step
        values = None if fresh_dropout else self.attend(h)
        for _ in range(self.steps):
            a = F.leaky_relu(F.linear(m, w_m).index_select(0, batch) + atom_score)
            alpha = segment_softmax(a, batch, num_graphs)
            step_values = self.attend(dropout(h, self.dropout, True)) if fresh_dropout else values
            c = F.elu(scatter_sum(alpha * step_values, batch, num_graphs))
            m = self.act(self.gru(c, m))
        return m


#: readout name -> class; all take ``(hidden, steps, dropout, activation)``.
READOUTS: dict[str, type[nn.Module]] = {
    "molattfp": MolAttFPReadout,
    "sum": SumReadout,
    "mean": MeanReadout,
}
