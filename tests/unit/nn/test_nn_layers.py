"""Blocks and readouts on real molecules: D-MPNN messages, GCN/MPNN details, MolAttFP
equations (the contract every block keeps is tested in test_nn_blocks.py)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Batch

from scoremol.featurizers.graph import ATOM_DIM, BOND_DIM, smiles_to_graph
from scoremol.nn import READOUTS, ModelConfig, count_parameters
from scoremol.nn.blocks.dmpnn import DMPNNBlock, dmpnn_message
from scoremol.nn.blocks.gcn import GCNBlock
from scoremol.nn.blocks.mpnn import MPNNBlock
from scoremol.nn.context import GraphContext, reverse_edge_index
from scoremol.nn.dropout import dropout
from scoremol.nn.encoder import DMPNNEncoder
from scoremol.nn.readout import MolAttFPReadout

SMILES = ["c1ccccc1", "CCO", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "CC(=O)Oc1ccccc1C(=O)O", "C"]


def make_batch(smiles: list[str] = SMILES) -> Batch:
    return Batch.from_data_list([smiles_to_graph(s) for s in smiles])


def context(batch: Batch) -> GraphContext:
    return GraphContext(batch.edge_index, batch.edge_attr, batch.batch, batch.num_nodes, batch.num_graphs)


def test_dmpnn_message_subtracts_reverse_edge() -> None:
    # Ethanol C0-C1-O2: edges 0: 0->1, 1: 1->0, 2: 1->2, 3: 2->1.
    g = smiles_to_graph("CCO")
    assert g.edge_index.tolist() == [[0, 1, 1, 2], [1, 0, 2, 1]]
    ctx = GraphContext(
        g.edge_index, g.edge_attr, torch.zeros(3, dtype=torch.long), 3, 1, rev_index=reverse_edge_index(g.edge_index)
    )
    h = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 5.0]])
    m = dmpnn_message(h, ctx)
    # m(0->1) = h(1->0) - h(1->0) = 0;  m(1->0) = h(0->1) + h(2->1) - h(0->1) = h(2->1)
    # m(1->2) = h(0->1) + h(2->1) - h(2->1) = h(0->1);  m(2->1) = h(1->2) - h(1->2) = 0
    expected = torch.stack([torch.zeros(2), h[3], h[0], torch.zeros(2)])
    torch.testing.assert_close(m, expected)


def test_dmpnn_block_adds_initial_edge_state() -> None:
    g = smiles_to_graph("CCO")
    h0 = torch.randn(4, 2)
    ctx = GraphContext(
        g.edge_index,
        g.edge_attr,
        torch.zeros(3, dtype=torch.long),
        3,
        1,
        edge_input=h0,
        rev_index=reverse_edge_index(g.edge_index),
    )
    block = DMPNNBlock(2, BOND_DIM).eval()
    with torch.no_grad():
        block.W_h.weight.copy_(torch.eye(2))
    h = torch.randn(4, 2)
    torch.testing.assert_close(block(h, ctx), h0 + dmpnn_message(h, ctx))


def test_dmpnn_rejects_edges_not_stored_in_reverse_pairs() -> None:
    g = smiles_to_graph("CCO")
    swapped = g.clone()
    swapped.edge_index = g.edge_index[:, [0, 2, 1, 3]]
    swapped.edge_attr = g.edge_attr[[0, 2, 1, 3]]
    enc = DMPNNEncoder(ModelConfig(arch="dmpnn", hidden=8))
    with pytest.raises(ValueError, match="reverse"):
        enc(swapped)
    odd = g.clone()
    odd.edge_index, odd.edge_attr = g.edge_index[:, :3], g.edge_attr[:3]
    with pytest.raises(ValueError, match="odd"):
        enc(odd)


def test_gcn_uses_bond_features_as_weights_in_unit_interval() -> None:
    batch = make_batch()
    block = GCNBlock(8, BOND_DIM)
    w = torch.sigmoid(block.edge_weight(batch.edge_attr))
    assert bool(((w > 0) & (w < 1)).all())
    h = torch.randn(batch.num_nodes, 8)
    ctx = context(batch)
    y = block(h, ctx)
    ctx.edge_attr = torch.zeros_like(batch.edge_attr)
    assert not torch.allclose(y, block(h, ctx))


def test_mpnn_edge_network_is_low_rank() -> None:
    block = MPNNBlock(128, BOND_DIM)
    assert block.conv.nn[-1].out_features == 16 * 128  # rank 16 instead of 128
    assert count_parameters(block) < 100_000


@pytest.mark.parametrize("name", list(READOUTS))
def test_readouts_give_one_vector_per_molecule(name: str) -> None:
    torch.manual_seed(0)
    batch = make_batch()  # the last molecule is a single atom
    h = torch.randn(batch.num_nodes, 8)
    out = READOUTS[name](8, 2, 0.0, "relu")(h, batch.batch, batch.num_graphs)
    assert out.shape == (batch.num_graphs, 8) and bool(torch.isfinite(out).all())
    if name == "sum":
        torch.testing.assert_close(out[-1], h[-1])
        torch.testing.assert_close(out[1], h[batch.batch == 1].sum(0))
    if name == "mean":
        torch.testing.assert_close(out[1], h[batch.batch == 1].mean(0))


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_molattfp_matches_its_equations(steps: int) -> None:
    torch.manual_seed(0)
    batch = make_batch()
    hid = 8
    h = torch.randn(batch.num_nodes, hid)
    ro = MolAttFPReadout(hid, steps, dropout=0.5).eval()
    out = ro(h, batch.batch, batch.num_graphs)
    for g in range(batch.num_graphs):  # one molecule at a time, by hand
        hv = h[batch.batch == g]
        m = torch.relu(hv.sum(0, keepdim=True))
        for _ in range(steps):
            a = F.leaky_relu(torch.cat([m.expand(len(hv), hid), hv], -1) @ ro.align.weight.T + ro.align.bias)
            alpha = torch.softmax(a, dim=0)
            c = F.elu((alpha * (hv @ ro.attend.weight.T + ro.attend.bias)).sum(0, keepdim=True))
            m = torch.relu(ro.gru(c, m))
        torch.testing.assert_close(out[g], m[0], rtol=1e-5, atol=1e-6)


def test_molattfp_training_dropout_draws_a_fresh_mask_every_step() -> None:
    """In training the attended values see a new dropout mask at each step (the hoisted
    eval-mode computation must not leak into training)."""
    batch = make_batch()
    h = torch.randn(batch.num_nodes, 8, generator=torch.Generator().manual_seed(1))
    ro = MolAttFPReadout(8, steps=3, dropout=0.5).train()
    torch.manual_seed(3)
    out = ro(h, batch.batch, batch.num_graphs)
    torch.manual_seed(3)  # the same draws, step by step, from the plain equations
    m = torch.relu(torch.zeros(batch.num_graphs, 8).index_add_(0, batch.batch, h))
    for _ in range(3):
        a = F.leaky_relu(ro.align(torch.cat([m[batch.batch], h], -1)))
        alpha = torch.cat([torch.softmax(a[batch.batch == g], 0) for g in range(batch.num_graphs)])
        values = ro.attend(dropout(h, 0.5, True))
        c = F.elu(torch.zeros(batch.num_graphs, 8).index_add_(0, batch.batch, alpha * values))
        m = torch.relu(ro.gru(c, m))
    torch.testing.assert_close(out, m, rtol=1e-5, atol=1e-6)


def test_molattfp_parameters_shared_across_steps() -> None:
    assert count_parameters(MolAttFPReadout(16, 1)) == count_parameters(MolAttFPReadout(16, 5))


def test_molattfp_attention_depends_on_atoms() -> None:
    # changing one atom of a molecule changes only that molecule's vector
    torch.manual_seed(0)
    batch = make_batch()
    h = torch.randn(batch.num_nodes, 8)
    ro = MolAttFPReadout(8).eval()
    out = ro(h, batch.batch, batch.num_graphs)
    h2 = h.clone()
    h2[batch.ptr[1]] += 1.0  # first atom of molecule 1
    out2 = ro(h2, batch.batch, batch.num_graphs)
    changed = (out - out2).abs().sum(-1) > 1e-6
    assert changed.tolist() == [False, True, False, False, False]


def test_feature_widths_are_checked() -> None:
    from scoremol.nn import build_model

    model = build_model(ModelConfig(arch="gcn", hidden=8, atom_dim=ATOM_DIM + 1))
    with pytest.raises(ValueError, match="atom features"):
        model(make_batch())


def test_dmpnn_encoder_matches_chemprop_equations() -> None:
    torch.manual_seed(0)
    g = smiles_to_graph("CC(=O)O")  # acetic acid: a branch, so atoms have 1-3 bonds
    enc = DMPNNEncoder(ModelConfig(arch="dmpnn", hidden=8, steps=2, mode="base")).eval()
    src, dst = g.edge_index
    h0 = torch.cat([g.x[src], g.edge_attr], -1) @ enc.W_i.weight.T
    h = torch.relu(h0)
    for block in enc.depth.blocks:  # base mode: h = relu(h0 + W_h m)
        m = torch.stack([h[dst == int(src[e])].sum(0) - h[e ^ 1] for e in range(len(h))])
        h = torch.relu(h0 + m @ block.W_h.weight.T)
    incoming = torch.stack([h[dst == v].sum(0) for v in range(g.num_nodes)])
    expected = torch.relu(torch.cat([g.x, incoming], -1) @ enc.W_o.weight.T + enc.W_o.bias)
    with torch.no_grad():
        torch.testing.assert_close(enc(g), expected, rtol=1e-5, atol=1e-6)
