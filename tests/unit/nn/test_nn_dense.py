"""Dense descriptor-only models (mlp, score-mlp) through the shared Depth."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Batch

from scoremol.featurizers.graph import smiles_to_graph
from scoremol.nn import MODES, Depth, ModelConfig, build_model, count_parameters
from scoremol.nn.dense import DenseModel

D = 7


def dense(arch: str = "mlp", **kw) -> ModelConfig:
    kw = {"hidden": 16, "steps": 3, "head_hidden": (8,), "use_descriptors": True, "descriptor_dim": D, **kw}
    return ModelConfig(arch=arch, **kw)


def check_trains(model, x: torch.Tensor) -> None:
    model.train()
    out = model(x)
    assert out.shape == (x.size(0), model.config.n_targets) and bool(torch.isfinite(out).all())
    out.square().sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


@pytest.mark.parametrize("mode", MODES)
def test_mlp_every_mode_trains(mode: str) -> None:
    torch.manual_seed(0)
    model = build_model(dense("mlp", mode=mode, n_targets=2))
    assert isinstance(model, DenseModel) and model.depth.mode == mode
    check_trains(model, torch.randn(6, D))


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_score_mlp_trains(integrator: str) -> None:
    torch.manual_seed(0)
    model = build_model(dense("score-mlp", mode="score", integrator=integrator, learnable_dt=True, dt=0.3))
    assert len(model.depth.blocks) == 1
    check_trains(model, torch.randn(5, D))


def test_score_mlp_params_independent_of_k_and_mlp_grows() -> None:
    def n(arch: str, mode: str, k: int) -> int:
        return count_parameters(build_model(dense(arch, mode=mode, steps=k)))

    assert n("score-mlp", "score", 1) == n("score-mlp", "score", 4) == n("score-mlp", "score", 8)
    per_layer = 16 * 16 + 16
    assert n("mlp", "base", 4) - n("mlp", "base", 1) == 3 * per_layer
    assert n("mlp", "score", 4) == n("score-mlp", "score", 4)


def test_dense_model_reads_batch_descriptors_or_a_tensor() -> None:
    torch.manual_seed(0)
    model = build_model(dense("score-mlp", mode="score")).eval()
    graphs = []
    for s in ("CCO", "c1ccccc1", "C"):
        g = smiles_to_graph(s)
        g.descriptors = torch.randn(1, D)
        graphs.append(g)
    batch = Batch.from_data_list(graphs)
    with torch.no_grad():
        torch.testing.assert_close(model(batch), model(batch.descriptors))
        torch.testing.assert_close(model(graphs[1]), model(batch.descriptors[1:2]))
    with pytest.raises(ValueError, match="descriptors have shape"):
        model(torch.randn(3, D + 2))


def test_dense_models_use_the_shared_depth() -> None:
    model = build_model(dense("mlp", mode="skip"))
    assert [type(m) for m in model.modules() if isinstance(m, Depth)] == [Depth]


def test_dense_requires_descriptors() -> None:
    with pytest.raises(ValueError, match="descriptors"):
        ModelConfig(arch="score-mlp")
    with pytest.raises(ValueError, match="graph architecture"):
        from scoremol.nn import GraphModel

        GraphModel(dense("mlp"))
