"""``scoremol export``: a model's networks and trees as ONNX files that reproduce its predictions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoremol.featurizers.descriptors import FAST_DESCRIPTORS
from scoremol.nn import ModelConfig
from scoremol.training.fit import train_model
from tests.conftest import ESOL_TARGET, quick_config, run_cli

ort = pytest.importorskip("onnxruntime")


def _inputs(model, data, ids):
    """The ONNX inputs of graphs ``ids`` of ``data``, as the sidecar describes them."""
    from scoremol.data.collate import collate_arrays

    b = collate_arrays(data.x, data.edge_index, data.edge_attr, data.atom_ptr, data.edge_ptr, ids)
    feed = {"x": b.x, "edge_index": b.edge_index, "edge_attr": b.edge_attr, "batch": b.batch, "ptr": b.ptr}
    feed = {k: v.numpy() for k, v in feed.items()}
    names = list(data.settings.descriptor_names)
    if model.model_config.use_descriptors:
        columns = [names.index(n) for n in FAST_DESCRIPTORS]
        feed["descriptors"] = data.descriptors[ids][:, columns].astype(np.float32)
    return feed


@pytest.fixture(scope="module")
def blended(esol_data):
    """Two small D-MPNN members fusing the fast descriptors, blended with CatBoost."""
    config = ModelConfig(arch="dmpnn", hidden=16, head_hidden=(16,), use_descriptors=True, descriptor_dim=17)
    train = quick_config(epochs=2, ensemble=2, catboost_weight=0.3, val_fraction=0.0)
    return train_model(esol_data, [ESOL_TARGET], config, train, rows=np.arange(200), gnn_descriptors=FAST_DESCRIPTORS)


@pytest.mark.slow
def test_the_onnx_files_reproduce_the_blended_prediction(blended, esol_data, tmp_path, capfd):
    from scoremol.models.onnx import export_onnx

    done = export_onnx(blended, tmp_path)
    assert "VerifyOutputSizes" not in capfd.readouterr().err  # ONNX Runtime's warnings on the tree check stay off
    assert done.max_difference < 1e-3 and [p.name for p in done.trees] == ["tree_0.onnx"]
    sidecar = json.loads(done.sidecar.read_text())
    assert sidecar["network_descriptors"] == list(FAST_DESCRIPTORS)
    assert sidecar["trees"]["tree_0.onnx"]["weight"] == blended.tree.weights[0]
    networks = ort.InferenceSession(str(done.networks), providers=["CPUExecutionProvider"])
    tree = ort.InferenceSession(str(done.trees[0]), providers=["CPUExecutionProvider"])
    expected = blended.predict(esol_data, ids=np.arange(200, 263), domain=False)
    for ids in (np.arange(200, 201), np.arange(201, 263)):  # batch sizes the export never traced
        mean, std, embedding = networks.run(["mean", "std", "embedding"], _inputs(blended, esol_data, ids))
        raw = esol_data.descriptors[ids].astype(np.float32)
        tree_out = np.asarray(tree.run(None, {tree.get_inputs()[0].name: raw})[0]).reshape(-1, 1)
        rows = ids - 200
        w = sidecar["trees"]["tree_0.onnx"]["weight"]
        np.testing.assert_allclose((1 - w) * mean + w * tree_out, expected.mean[rows], atol=1e-4)
        np.testing.assert_allclose(std, expected.std[rows], atol=1e-4)
        assert embedding.shape == (len(ids), 16)


@pytest.mark.slow
def test_the_cli_exports_the_bundled_fast_model(tmp_path):
    out, err, code = run_cli("export", "--model", "fast", "-o", str(tmp_path / "onnx"))
    assert code == 0, err
    assert out == ""  # the exporter's own chatter stays off standard output
    assert (tmp_path / "onnx" / "networks.onnx").stat().st_size > 10_000
    sidecar = json.loads((tmp_path / "onnx" / "model.json").read_text())
    assert sidecar["inputs"] == ["x", "edge_index", "edge_attr", "batch", "ptr"] and sidecar["trees"] == {}
    assert "wrote 1 ONNX file(s)" in err and "torchvision" not in err  # none of the exporter's logging


@pytest.mark.slow
def test_a_yes_no_model_exports_logits_a_classifier_tree_and_its_calibration(tmp_path):
    import pandas as pd

    from scoremol.data.registry import resolve
    from scoremol.models.onnx import export_onnx
    from scoremol.spec import TrainingSpec
    from scoremol.training.setup import fit_spec, prepare_training

    frame = pd.read_csv(resolve("pharmabench-bbb")).head(120)
    pd.DataFrame({"smiles": frame.Smiles_unify, "bbb": frame.value.map({1.0: "yes", 0.0: "no"})}).to_csv(
        tmp_path / "bbb.csv", index=False
    )
    spec = TrainingSpec(hidden=16, epochs=1, ensemble=2, blend_catboost=0.3, seed=0)
    job = prepare_training(str(tmp_path / "bbb.csv"), spec, ["bbb"])
    model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, tasks=job.tasks)
    done = export_onnx(model, tmp_path / "onnx")
    sidecar = json.loads(done.sidecar.read_text())
    assert sidecar["kinds"] == ["classification"] and sidecar["classes"] == [["no", "yes"]]
    platt = sidecar["calibration"][0]
    assert platt["method"] == "platt" and done.max_difference < 1e-3
    networks = ort.InferenceSession(str(done.networks), providers=["CPUExecutionProvider"])
    tree = ort.InferenceSession(str(done.trees[0]), providers=["CPUExecutionProvider"])
    ids = np.arange(40)
    logit = networks.run(["mean"], _inputs(model, job.data, ids))[0][:, 0].astype(np.float64)
    raw = job.data.descriptors[ids].astype(np.float32)
    p_tree = np.array([row[1] for row in tree.run(None, {tree.get_inputs()[0].name: raw})[1]])
    w = sidecar["trees"]["tree_0.onnx"]["weight"]
    blended = (1 - w) * logit + w * np.log(p_tree / (1 - p_tree))
    onnx_p = 1 / (1 + np.exp(-(platt["slope"] * blended + platt["intercept"])))
    expected = model.probability(0, model.predict(job.data, ids=ids, domain=False).mean[:, 0])
    np.testing.assert_allclose(onnx_p, expected, atol=1e-3)


def test_a_tree_only_model_has_nothing_to_export(tmp_path):
    from scoremol.errors import ScoremolError
    from scoremol.models.onnx import export_onnx

    class TreeOnly:
        is_tree_only = True

    with pytest.raises(ScoremolError, match="no networks"):
        export_onnx(TreeOnly(), tmp_path)
