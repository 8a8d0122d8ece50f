"""Graph models: every architecture x mode x readout, descriptors, invariances, sizes."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch_geometric.data import Batch, Data

from scoremol.featurizers.graph import smiles_to_graph
from scoremol.nn import (
    GRAPH_ARCHITECTURES,
    INTEGRATORS,
    MODES,
    READOUTS,
    Depth,
    ModelConfig,
    build_model,
    count_parameters,
)

SMILES = ["c1ccccc1", "CCO", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "C", "CC(=O)Oc1ccccc1C(=O)O", "O"]
GRAPHS = [smiles_to_graph(s) for s in SMILES]
D = 5


def small(arch: str, **kw) -> ModelConfig:
    kw = {"hidden": 16, "steps": 2, "heads": 2, "head_hidden": (8,), "n_targets": 2, **kw}
    return ModelConfig(arch=arch, **kw)


def with_descriptors(graphs: list[Data], seed: int = 0) -> list[Data]:
    gen = torch.Generator().manual_seed(seed)
    out = []
    for g in graphs:
        g = g.clone()
        g.descriptors = torch.randn(1, D, generator=gen)
        out.append(g)
    return out


#: Parameters whose gradient is zero up to rounding by construction: the attention score's
#: bias shifts every score of a molecule alike, which the softmax cancels whenever the
#: molecule's scores sit on one side of LeakyReLU's kink (always for one-atom molecules).
#: Whether rounding leaves a tiny non-zero value depends on the torch build.
SHIFT_INVARIANT = {"readout.align.bias"}


def check_forward_backward(model: nn.Module, batch: Batch) -> None:
    model.train()
    out = model(batch)
    assert out.shape == (batch.num_graphs, model.config.n_targets)
    assert bool(torch.isfinite(out).all())
    out.square().sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None, f"{name} got no gradient"
        assert bool(torch.isfinite(p.grad).all()), f"{name} has a non-finite gradient"
        if name in SHIFT_INVARIANT:
            continue
        assert p.grad.abs().sum() > 0, f"{name} has an all-zero gradient"


@pytest.mark.parametrize("readout", list(READOUTS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_every_arch_mode_readout_trains(arch: str, mode: str, readout: str) -> None:
    torch.manual_seed(0)
    model = build_model(small(arch, mode=mode, readout=readout))
    check_forward_backward(model, Batch.from_data_list(GRAPHS))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_every_arch_mode_with_descriptors(arch: str, mode: str) -> None:
    torch.manual_seed(0)
    model = build_model(small(arch, mode=mode, use_descriptors=True, descriptor_dim=D))
    batch = Batch.from_data_list(with_descriptors(GRAPHS))
    assert batch.descriptors.shape == (len(GRAPHS), D)
    check_forward_backward(model, batch)
    # the descriptors really reach the prediction
    model.eval()
    other = Batch.from_data_list(with_descriptors(GRAPHS, seed=1))
    assert not torch.allclose(model(batch), model(other))


@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_score_options_train(arch: str) -> None:
    torch.manual_seed(0)
    for integrator in INTEGRATORS:
        model = build_model(small(arch, integrator=integrator, learnable_dt=True, dt=0.3, step_norm=True))
        check_forward_backward(model, Batch.from_data_list(GRAPHS))


def test_batch_of_only_single_atoms() -> None:
    batch = Batch.from_data_list([smiles_to_graph("C"), smiles_to_graph("O")])
    assert batch.edge_index.shape == (2, 0)
    for arch in GRAPH_ARCHITECTURES:
        for readout in READOUTS:
            out = build_model(small(arch, readout=readout)).eval()(batch)
            assert out.shape == (2, 2) and bool(torch.isfinite(out).all()), (arch, readout)


def test_descriptor_errors_are_clear() -> None:
    model = build_model(small("gcn", use_descriptors=True, descriptor_dim=D))
    with pytest.raises(ValueError, match="descriptors"):
        model(Batch.from_data_list(GRAPHS))
    bad = [g.clone() for g in GRAPHS]
    for g in bad:
        g.descriptors = torch.zeros(1, D + 1)
    with pytest.raises(ValueError, match="descriptors have shape"):
        model(Batch.from_data_list(bad))


def permute_molecule(g: Data, seed: int) -> Data:
    """Same molecule, atoms renumbered and bonds reordered/flipped, pairs kept consecutive."""
    gen = torch.Generator().manual_seed(seed)
    n, nb = g.num_nodes, g.edge_index.size(1) // 2
    perm = torch.randperm(n, generator=gen)  # new atom i is old atom perm[i]
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(n)
    bond_order = torch.randperm(nb, generator=gen)
    flip = torch.randint(0, 2, (nb,), generator=gen)
    edges = torch.stack([2 * bond_order + flip, 2 * bond_order + (1 - flip)], 1).reshape(-1)
    return Data(x=g.x[perm], edge_index=inv[g.edge_index[:, edges]], edge_attr=g.edge_attr[edges])


@pytest.mark.parametrize("mode", ["score", "classic"])
@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_invariant_to_atom_order(arch: str, mode: str) -> None:
    torch.manual_seed(0)
    model = build_model(small(arch, mode=mode)).eval()
    originals = [GRAPHS[i] for i in (0, 2, 4)]  # benzene, caffeine, aspirin
    permuted = [permute_molecule(g, seed) for seed, g in enumerate(originals)]
    assert not torch.equal(permuted[2].x, originals[2].x)
    with torch.no_grad():
        a = model(Batch.from_data_list(originals))
        b = model(Batch.from_data_list(permuted))
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_invariant_to_batch_composition(arch: str) -> None:
    torch.manual_seed(0)
    model = build_model(small(arch)).eval()
    with torch.no_grad():
        together = model(Batch.from_data_list(GRAPHS))
        alone = torch.cat([model(Batch.from_data_list([g])) for g in GRAPHS])
        reordered = model(Batch.from_data_list(GRAPHS[::-1])).flip(0)
        single = model(GRAPHS[2])  # a plain Data, not a Batch
    torch.testing.assert_close(together, alone, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(together, reordered, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(single, together[2:3], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_every_arch_uses_bond_features(arch: str) -> None:
    torch.manual_seed(0)
    model = build_model(small(arch)).eval()
    batch = Batch.from_data_list(GRAPHS)
    plain = batch.clone()
    plain.edge_attr = torch.zeros_like(batch.edge_attr)
    with torch.no_grad():
        assert not torch.allclose(model(batch), model(plain))


@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_parameter_counts_vs_depth(arch: str) -> None:
    def n(mode: str, steps: int) -> int:
        return count_parameters(build_model(small(arch, mode=mode, steps=steps)))

    assert n("score", 1) == n("score", 3) == n("score", 6)
    for mode in ("base", "classic", "skip"):
        assert n(mode, 1) < n(mode, 3) < n(mode, 6)
        assert n(mode, 1) == n("score", 1) + (0 if mode != "classic" else 2 * 16)


@pytest.mark.parametrize("arch", GRAPH_ARCHITECTURES)
def test_one_depth_module_per_model(arch: str) -> None:
    model = build_model(small(arch))
    depths = [m for m in model.modules() if isinstance(m, Depth)]
    assert len(depths) == 1 and depths[0].mode == "score"


def test_count_parameters_counts_trainable_only() -> None:
    model = build_model(small("gine"))
    total = sum(p.numel() for p in model.parameters())
    assert count_parameters(model) == total
    model.head.requires_grad_(False)
    assert count_parameters(model) == total - sum(p.numel() for p in model.head.parameters())


def test_dropout_is_active_in_training_only() -> None:
    torch.manual_seed(0)
    model = build_model(small("gat", dropout=0.5))
    batch = Batch.from_data_list(GRAPHS)
    model.train()
    assert not torch.allclose(model(batch), model(batch))
    model.eval()
    torch.testing.assert_close(model(batch), model(batch))
