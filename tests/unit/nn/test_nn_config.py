"""ModelConfig: JSON round trip rebuilds the same model; bad values raise ValueError."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from torch_geometric.data import Batch

from scoremol.featurizers.graph import smiles_to_graph
from scoremol.nn import ARCHITECTURES, ModelConfig, build_model

SMILES = ["c1ccccc1", "CCO", "CC(=O)Oc1ccccc1C(=O)O", "C"]
D = 4


def batch_with_descriptors() -> Batch:
    graphs = []
    for i, s in enumerate(SMILES):
        g = smiles_to_graph(s)
        g.descriptors = torch.linspace(-1, 1, D).unsqueeze(0) * (i + 1)
        graphs.append(g)
    return Batch.from_data_list(graphs)


def config_for(arch: str) -> ModelConfig:
    mode = "skip" if arch == "mlp" else "score"
    return ModelConfig(
        arch=arch,
        mode=mode,
        dt=0.3,
        steps=3,
        hidden=16,
        heads=2,
        learnable_dt=True,
        step_norm=True,
        readout="molattfp",
        readout_steps=3,
        head_hidden=(12, 6),
        use_descriptors=True,
        descriptor_dim=D,
        n_targets=3,
        dropout=0.2,
        activation="elu",
        integrator="heun" if mode == "score" else "euler",
    )


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_json_round_trip_rebuilds_identical_model(arch: str, tmp_path) -> None:
    torch.manual_seed(0)
    config = config_for(arch)
    model = build_model(config).eval()
    path = tmp_path / "model.json"
    path.write_text(json.dumps(config.to_dict()))
    path_pt = tmp_path / "model.pt"
    torch.save(model.state_dict(), path_pt)

    again = ModelConfig.from_dict(json.loads(path.read_text()))
    assert again == config
    assert ModelConfig.from_json(config.to_json()) == config
    torch.manual_seed(123)  # different init, so equality below comes from the state_dict
    rebuilt = build_model(again).eval()
    shapes = {k: v.shape for k, v in model.state_dict().items()}
    assert {k: v.shape for k, v in rebuilt.state_dict().items()} == shapes
    rebuilt.load_state_dict(torch.load(path_pt, weights_only=True))
    batch = batch_with_descriptors()
    with torch.no_grad():
        torch.testing.assert_close(rebuilt(batch), model(batch), rtol=0, atol=0)


def test_to_dict_is_plain_json() -> None:
    d = ModelConfig().to_dict()
    assert set(d) == {f.name for f in dataclasses.fields(ModelConfig)}
    assert json.loads(json.dumps(d)) == d
    assert d["head_hidden"] == [128, 64, 32]


def test_defaults_come_from_the_training_spec() -> None:
    """The fields the command line sets default to scoremol.spec.DEFAULTS (what ``scoremol
    train`` builds); the others keep the paper's values."""
    from scoremol.spec import DEFAULTS

    c = ModelConfig()
    shared = ("arch", "mode", "dt", "steps", "integrator", "learnable_dt", "readout", "hidden", "dropout", "heads")
    assert {f: getattr(c, f) for f in shared} == {f: getattr(DEFAULTS, f) for f in shared}
    assert (c.readout_steps, c.head_hidden, c.step_norm) == (2, (128, 64, 32), False)


def test_missing_keys_take_defaults() -> None:
    assert ModelConfig.from_dict({"arch": "gcn"}) == ModelConfig(arch="gcn")


def test_unknown_keys_raise() -> None:
    with pytest.raises(ValueError, match="unknown model config keys"):
        ModelConfig.from_dict({"arch": "gcn", "layers": 3})


@pytest.mark.parametrize("bad", [None, [], "gcn"])
def test_non_dict_raises(bad) -> None:
    with pytest.raises(ValueError):
        ModelConfig.from_dict(bad)


def test_invalid_json_raises() -> None:
    with pytest.raises(ValueError, match="JSON"):
        ModelConfig.from_json("{arch: gcn")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"arch": "resnet"}, "arch"),
        ({"mode": "deep"}, "mode"),
        ({"integrator": "rk45"}, "integrator"),
        ({"mode": "base", "integrator": "rk4"}, "integrator"),
        ({"mode": "classic", "learnable_dt": True}, "learnable_dt"),
        ({"mode": "classic", "step_norm": True}, "step_norm"),
        ({"dt": 1.5}, "dt"),
        ({"dt": -0.5}, "dt"),
        ({"dt": float("inf")}, "dt"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"readout": "max"}, "readout"),
        ({"readout_steps": 0}, "readout_steps"),
        ({"hidden": 0}, "hidden"),
        ({"hidden": "128"}, "hidden"),
        ({"heads": 0}, "heads"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout": -0.1}, "dropout"),
        ({"head_hidden": (64, 0)}, "head_hidden"),
        ({"head_hidden": 64}, "head_hidden"),
        ({"use_descriptors": "yes", "descriptor_dim": 3}, "use_descriptors"),
        ({"use_descriptors": True}, "descriptor_dim"),
        ({"descriptor_dim": -1}, "descriptor_dim"),
        ({"n_targets": 0}, "n_targets"),
        ({"atom_dim": 0}, "atom_dim"),
        ({"learnable_dt": "true"}, "learnable_dt"),
        ({"activation": "swish2"}, "activation"),
        ({"arch": "transformer", "hidden": 30, "heads": 4}, "divisible"),
        ({"arch": "mlp"}, "descriptors"),
        ({"arch": "score-mlp", "mode": "base", "use_descriptors": True, "descriptor_dim": 3}, "score-mlp"),
    ],
)
def test_bad_values_raise_value_error(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ModelConfig(**kwargs)
    with pytest.raises(ValueError, match=match):
        ModelConfig.from_dict(kwargs)


def test_build_model_revalidates_mutated_config() -> None:
    c = ModelConfig(arch="gcn")
    c.steps = 0
    with pytest.raises(ValueError, match="steps"):
        build_model(c)
    with pytest.raises(ValueError, match="ModelConfig"):
        build_model({"arch": "gcn"})
