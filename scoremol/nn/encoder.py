"""Encoders: a molecular batch -> atom states ``[N, hidden]`` through one :class:`Depth`."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from scoremol.nn.activations import make_activation
from scoremol.nn.blocks import BLOCKS
from scoremol.nn.config import ModelConfig
from scoremol.nn.context import GraphContext, graph_index, reverse_edge_index
from scoremol.nn.dropout import dropout
from scoremol.nn.scatter import scatter_sum


def _check_features(data, config: ModelConfig) -> None:
    """Fail with a clear message when the featurizer and the model disagree on widths."""
    if data.x.dim() != 2 or data.x.size(1) != config.atom_dim:
        raise ValueError(f"atom features have shape {tuple(data.x.shape)}, model expects [N, {config.atom_dim}]")
    ea = data.edge_attr
    if ea is None or ea.dim() != 2 or ea.size(1) != config.bond_dim:
        shape = None if ea is None else tuple(ea.shape)
        raise ValueError(f"bond features have shape {shape}, model expects [E, {config.bond_dim}]")


class AtomEncoder(nn.Module):
    r"""``h = act(Linear(x))``, then Depth over the architecture's atom-state block.

    Builds any block registered in :mod:`scoremol.nn.blocks` except the edge-state
    ``dmpnn``; bond features go to the blocks raw (``bond_dim`` wide) and each block
    embeds them itself, so no separate edge projection is needed.

    Args:
        config: a graph :class:`~scoremol.nn.config.ModelConfig` (``arch`` names the block).

    Shapes:
        - **input:** a PyG ``Batch``/``Data`` with ``x`` ``[N, atom_dim]``, ``edge_index``
          ``[2, E]``, ``edge_attr`` ``[E, bond_dim]`` (and ``batch`` ``[N]``)
        - **output:** atom states ``[N, hidden]``
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        block_cls = BLOCKS[config.arch]
        self.input = nn.Linear(config.atom_dim, config.hidden)
        self.act = make_activation(config.activation)
        self.depth = config.make_depth(lambda: block_cls(config.hidden, config.bond_dim, config.heads, config.dropout))

    def forward(self, data) -> Tensor:
        _check_features(data, self.config)
        batch, num_graphs = graph_index(data)
        ctx = GraphContext(data.edge_index, data.edge_attr, batch, data.num_nodes, num_graphs)
        return self.depth(self.act(self.input(data.x)), ctx)


class DMPNNEncoder(nn.Module):
    r"""Chemprop D-MPNN: Depth acts on directed-edge states, then an atom readout.

    ``h0 = W_i [x_src ; edge_attr]`` (pre-activation, no bias, as chemprop); the edge state
    starts at ``act(h0)`` and every step is ``y = h0 + W_h m``
    (:class:`~scoremol.nn.blocks.dmpnn.DMPNNBlock`). Atom states are
    ``dropout(act(W_o [x ; sum of incoming edge states]))``, so an atom without bonds still
    gets a state from its own features.

    Args:
        config: a :class:`~scoremol.nn.config.ModelConfig` with ``arch="dmpnn"``.

    Shapes:
        - **input:** a PyG ``Batch``/``Data`` with ``x`` ``[N, atom_dim]``, ``edge_index``
          ``[2, E]`` (stored as consecutive forward/reverse pairs), ``edge_attr``
          ``[E, bond_dim]`` (and ``batch`` ``[N]``)
        - **output:** atom states ``[N, hidden]`` (edge states ``[E, hidden]`` inside)
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.W_i = nn.Linear(config.atom_dim + config.bond_dim, config.hidden, bias=False)
        self.act = make_activation(config.activation)
        block_cls = BLOCKS["dmpnn"]
        self.depth = config.make_depth(lambda: block_cls(config.hidden, config.bond_dim, config.heads, config.dropout))
        self.W_o = nn.Linear(config.atom_dim + config.hidden, config.hidden)

    def forward(self, data) -> Tensor:
        _check_features(data, self.config)
        batch, num_graphs = graph_index(data)
        x, edge_index = data.x, data.edge_index
        src, dst = edge_index
        # W_i [x_src ; e] = (W_x x)[src] + W_e e: the atom half runs once per atom, not per edge
        w_atom, w_bond = self.W_i.weight.split([self.config.atom_dim, self.config.bond_dim], dim=1)
        edge_input = torch.addmm(F.linear(x, w_atom).index_select(0, src), data.edge_attr, w_bond.t())
        ctx = GraphContext(
            edge_index,
            data.edge_attr,
            batch,
            data.num_nodes,
            num_graphs,
            edge_input=edge_input,
            rev_index=reverse_edge_index(edge_index),
        )
        h = self.depth(self.act(edge_input), ctx)
        incoming = scatter_sum(h, dst, data.num_nodes)
        atoms = self.act(self.W_o(torch.cat([x, incoming], dim=-1)))
        return dropout(atoms, self.config.dropout, self.training)


def build_encoder(config: ModelConfig) -> nn.Module:
    """The encoder for a graph architecture: :class:`DMPNNEncoder` for the edge-state
    ``dmpnn``, :class:`AtomEncoder` for every other block file (all use one Depth)."""
    if config.arch == "dmpnn":
        return DMPNNEncoder(config)
    if config.arch not in BLOCKS:
        raise ValueError(f"{config.arch!r} is not a graph architecture")
    return AtomEncoder(config)
