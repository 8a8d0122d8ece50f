"""The bundled ESOL solubility model: shipped, loadable, used by default, sensible."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from scoremol.models.checkpoint import load_model
from scoremol.defaults import DEFAULTS
from scoremol.pretrained import bundled_model_path
from tests.conftest import ESOL_TARGET, ROOT, run_cli


def test_bundled_model_is_the_default_configuration_trained_on_esol():
    path = bundled_model_path()
    assert path.stat().st_size < 8 * 1024 * 1024
    model = load_model(path)
    assert model.target_names == [ESOL_TARGET] and model.target_units == ["log10(mol/L)"]
    assert model.metrics["n_train_molecules"] == 1128
    # the configuration of `scoremol train`'s defaults (the ESOL study's winner)
    assert len(model.members) == DEFAULTS["ensemble"]
    assert model.model_config.arch == DEFAULTS["arch"] and model.model_config.mode == DEFAULTS["mode"]
    assert model.model_config.dropout == DEFAULTS["dropout"]
    assert model.tree is not None and model.tree.weight == DEFAULTS["catboost_weight"]


def test_predict_without_model_uses_the_bundled_one():
    stdout, err, code = run_cli("predict", str(ROOT / "data" / "examples.smi"))
    assert code == 0, err
    assert "bundled ESOL solubility model" in err
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False).set_index("name")
    assert len(frame) == 22 and (frame["status"] == "ok").all()
    logs = frame[ESOL_TARGET].astype(float)
    # chemistry sanity, with margins far wider than the model's error: glucose and ethanol
    # are very soluble, naphthalene is not (measured log S about +0.7, +1.1 and -3.6)
    assert logs["naphthalene"] < logs["benzene"] < logs["ethanol"]
    assert logs["naphthalene"] < -2.5 and logs["ethanol"] > -0.5 and logs["glucose"] > -1.5
    assert (frame[f"{ESOL_TARGET}_std"].astype(float) >= 0).all()


def test_bundled_fast_model_is_the_fast_preset_and_predicts_sensibly():
    from scoremol.defaults import preset_settings

    fast = preset_settings("fast")
    model = load_model(bundled_model_path("fast"))
    assert model.metrics["n_train_molecules"] == 1128
    assert len(model.members) == fast["ensemble"] and model.tree is None
    assert model.model_config.hidden == fast["hidden"] and not model.model_config.use_descriptors
    assert not model.featurizer.descriptors
    stdout, err, code = run_cli("predict", str(ROOT / "data" / "examples.smi"), "--model", "fast")
    assert code == 0, err
    assert "bundled fast ESOL solubility model" in err
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False).set_index("name")
    assert len(frame) == 22 and (frame["status"] == "ok").all()
    logs = frame[ESOL_TARGET].astype(float)
    assert logs["naphthalene"] < logs["benzene"] < logs["ethanol"]
    assert logs["naphthalene"] < -2.5 and logs["ethanol"] > -0.5


def test_a_model_file_named_like_a_bundled_model_wins(tmp_path, monkeypatch):
    from scoremol.pretrained import resolve_model

    monkeypatch.chdir(tmp_path)
    assert resolve_model(None)[1] == "esol"
    assert resolve_model(Path("fast"))[1] == "fast"
    (tmp_path / "fast").write_bytes(b"not a model")
    assert resolve_model(Path("fast")) == (Path("fast"), None)
    _, err, code = run_cli("predict", str(ROOT / "data" / "examples.smi"), "--model", "fast")
    assert code == 1 and "fast" in err and "Traceback" not in err
