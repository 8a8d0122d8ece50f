"""The bundled solubility models: shipped, loadable, the presets' configurations, sensible."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoremol.data.read import read_input
from scoremol.inference.predict import predict_chunk
from scoremol.models.catboost import WEIGHT_GRID
from scoremol.models.checkpoint import load_model
from scoremol.pretrained import BUNDLED, bundled_model_path, resolve_model
from scoremol.spec import DEFAULTS, TrainingSpec
from tests.conftest import ESOL_TARGET, PRED, ROOT, STD

EXAMPLES = ROOT / "data" / "examples.smi"


def blend_weights_chosen(model) -> bool:
    """One blend weight per target, each from the grid held-out molecules choose from."""
    return len(model.tree.weights) == len(model.target_names) and all(w in WEIGHT_GRID for w in model.tree.weights)


def _predict_examples(model) -> pd.DataFrame:
    frame = predict_chunk(model, read_input(str(EXAMPLES))).set_index("name")
    assert len(frame) == 22 and (frame["status"] == "ok").all()
    return frame


def _sensible(logs: pd.Series) -> None:
    # chemistry sanity, with margins far wider than the model's error: glucose and ethanol
    # are very soluble, naphthalene is not (measured log S about +0.7, +1.1 and -3.6)
    assert logs["naphthalene"] < logs["benzene"] < logs["ethanol"]
    assert logs["naphthalene"] < -2.5 and logs["ethanol"] > -0.5 and logs["glucose"] > -1.5


MULTITASK_TARGETS = ["Solubility", "LOG SOLUBILITY PH 6.8 (ug/mL)", "exp"]


def test_default_bundled_model_is_the_default_configuration_on_three_assays():
    path = bundled_model_path()
    assert path == BUNDLED["multitask"] and path.stat().st_size < 16 * 1024 * 1024
    model = load_model(path)
    assert model.target_names == MULTITASK_TARGETS
    assert model.target_units == ["log10(mol/L)", "log10(ug/mL)", "log10 ratio (logD7.4)"]
    assert model.metrics["labels"] == {"Solubility": 9857, "LOG SOLUBILITY PH 6.8 (ug/mL)": 2173, "exp": 4200}
    assert model.metrics["n_train_molecules"] == 16051  # 177 molecules in two sets are one row each
    assert not model.featurizer.standardize  # salts keep their counter-ions (BENCHMARKS.md, data care)
    assert len(model.members) == DEFAULTS.ensemble and model.model_config.hidden == DEFAULTS.hidden
    assert model.tree is not None and blend_weights_chosen(model)
    # a tree for each target its held-out molecules gave weight; none evaluated where that weight is 0
    assert [b is not None for b in model.tree.blobs] == [w > 0 for w in model.tree.weights] and any(model.tree.blobs)
    assert model.calibration is not None and len(model.calibration) == 3


def test_default_bundled_model_answers_each_task_sensibly():
    frame = _predict_examples(load_model(bundled_model_path()))
    _sensible(frame[PRED].astype(float))
    buffer, logd = frame["logSol_pH6.8_pred"].astype(float), frame["logD_pred"].astype(float)
    # glucose and caffeine dissolve in buffer far better than naphthalene; naphthalene and
    # ibuprofen partition into octanol, glucose does not (measured logD about 3.3, 1.0, -3)
    assert buffer["glucose"] > buffer["naphthalene"] and buffer["caffeine"] > buffer["naphthalene"]
    assert logd["naphthalene"] > logd["caffeine"] > logd["glucose"]


def test_aqsoldb_bundled_model_is_the_default_configuration_trained_on_aqsoldb():
    path = bundled_model_path("aqsoldb")
    assert path == BUNDLED["aqsoldb"] and path.stat().st_size < 10 * 1024 * 1024
    model = load_model(path)
    assert model.target_names == ["Solubility"] and model.target_units == ["log10(mol/L)"]
    assert model.metrics["n_train_molecules"] == 9857  # every row RDKit can parse
    assert not model.featurizer.standardize  # salts keep their counter-ions (BENCHMARKS.md, data care)
    assert len(model.members) == DEFAULTS.ensemble and model.model_config.hidden == DEFAULTS.hidden
    assert model.tree is not None and blend_weights_chosen(model)


def test_aqsoldb_bundled_model_predicts_sensibly_and_salts_as_given(tmp_path):
    model = load_model(bundled_model_path("aqsoldb"))
    _sensible(_predict_examples(model)[PRED].astype(float))
    smi = tmp_path / "salt.smi"
    smi.write_text("O=C([O-])c1ccccc1.[Na+] sodium_benzoate\nO=C(O)c1ccccc1 benzoic_acid\n")
    frame = predict_chunk(model, read_input(str(smi))).set_index("name")
    assert frame.loc["sodium_benzoate", "reason"].startswith("salt or mixture of 2 fragments: predicted as given")
    # the salt dissolves far better than its acid (measured about +0.6 vs -1.6 log mol/L)
    assert frame.loc["sodium_benzoate", PRED] > frame.loc["benzoic_acid", PRED] + 0.5


def test_bundled_esol_model_is_the_default_configuration_trained_on_esol():
    path = bundled_model_path("esol")
    assert path == BUNDLED["esol"] and path.stat().st_size < 8 * 1024 * 1024
    model = load_model(path)
    assert model.target_names == [ESOL_TARGET] and model.target_units == ["log10(mol/L)"]
    assert model.metrics["n_train_molecules"] == 1128
    # the configuration of `scoremol train`'s defaults (the ESOL study's winner)
    assert len(model.members) == DEFAULTS.ensemble
    config = model.model_config
    assert (config.arch, config.mode, config.hidden) == (DEFAULTS.arch, DEFAULTS.mode, DEFAULTS.hidden)
    assert config.dropout == DEFAULTS.dropout and config.use_descriptors == DEFAULTS.descriptors
    assert model.tree is not None and blend_weights_chosen(model)


def test_bundled_esol_model_predicts_sensibly():
    frame = _predict_examples(load_model(bundled_model_path("esol")))
    _sensible(frame[PRED].astype(float))
    assert (frame[STD].astype(float) >= 0).all()


@pytest.mark.parametrize("name, targets, measured", [("fast", 3, 16051), ("esol-fast", 1, 1128)])
def test_bundled_fast_models_are_the_fast_preset_and_predict_sensibly(name, targets, measured):
    fast = TrainingSpec(preset="fast").resolved()
    model = load_model(bundled_model_path(name))
    assert len(model.target_names) == targets and model.target_names[0] in ("Solubility", ESOL_TARGET)
    taught = model.metrics.get("teacher_labels")
    if name == "fast":  # the default recipe taught it on the three sets and on BRICS molecules
        default = load_model(bundled_model_path("multitask"))
        assert model.target_names == default.target_names
        assert model.metrics["n_train_molecules"] > measured + 5000 and taught is not None
        assert len(model.domain.smiles) == measured  # the domain: measured molecules only
        # it calibrated on a tenth of the measured molecules that its teacher never saw
        assert model.metrics["calibrated_unseen_by_teacher"] is True
        assert measured // 11 < model.metrics["held_out_molecules"] <= measured // 10 + 1
    else:
        assert model.metrics["n_train_molecules"] == measured and taught is None
    assert len(model.members) == fast.ensemble and model.tree is None
    assert model.model_config.hidden == fast.hidden and model.model_config.dropout == fast.dropout
    assert not model.model_config.use_descriptors and not model.featurizer.descriptors
    frame = _predict_examples(model)
    logs = frame[PRED].astype(float)
    assert logs["naphthalene"] < logs["benzene"] < logs["ethanol"]
    assert logs["naphthalene"] < -2.5 and logs["ethanol"] > -0.5
    assert STD not in frame.columns  # one network: no spread


def test_bundled_esol_fast_model_fits_esol():
    """Trained on all of ESOL, it should reproduce ESOL far better than the spread of the data."""
    model = load_model(bundled_model_path("esol-fast"))
    frame = predict_chunk(model, read_input(str(ROOT / "data" / "esol.csv")))
    measured = frame[ESOL_TARGET].astype(float).to_numpy()
    rmse = float(np.sqrt(np.mean((frame[PRED].to_numpy() - measured) ** 2)))
    assert (frame["status"] == "ok").all() and rmse < 0.6 < np.std(measured) / 2


def test_a_model_file_named_like_a_bundled_model_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_model(None) == (BUNDLED["multitask"], "multitask")
    assert resolve_model(Path("fast")) == (BUNDLED["fast"], "fast")
    assert resolve_model(Path("esol")) == (BUNDLED["esol"], "esol")
    (tmp_path / "fast").write_bytes(b"not a model")
    assert resolve_model(Path("fast")) == (Path("fast"), None)
    assert resolve_model(Path("other.pt")) == (Path("other.pt"), None)  # not found later, by load_model


#: distinct molecules of every shared ADME set once the 14,306 scaffold-test molecules are left out
ADME_TRAINING_MOLECULES = 41_554


def test_bundled_adme_base_learned_every_shared_adme_task_and_never_a_scaffold_test():
    from scoremol.pretrained import ADME_TASKS, MODELS

    path = bundled_model_path("adme")
    assert path.stat().st_size < 40 * 1024 * 1024  # the ceiling for a shipped base
    model = load_model(path)
    assert model.target_labels == [label for label, _, _ in ADME_TASKS]
    assert model.classify == [yes_no for _, _, yes_no in ADME_TASKS]
    assert [t.column for t in MODELS["adme"].tasks] == [
        f"{label}_prob" if yes_no else f"{label}_pred" for label, _, yes_no in ADME_TASKS
    ]
    assert model.tree is None and len(model.members) == DEFAULTS.ensemble
    # trained without any scaffold-test molecule, so its card's figures are honest
    assert model.metrics["n_train_molecules"] == ADME_TRAINING_MOLECULES


def test_bundled_adme_base_answers_solubility_lipophilicity_and_yes_no_sensibly():
    frame = _predict_examples(load_model(bundled_model_path("adme")))
    _sensible(frame["logS_pred"].astype(float))
    logd = frame["logD_pred"].astype(float)
    assert logd["naphthalene"] > logd["caffeine"] > logd["glucose"]
    for label in ("BBB", "Ames"):
        prob = frame[f"{label}_prob"].astype(float)
        assert prob.between(0, 1).all() and frame[f"{label}_set"].isin(["{0}", "{1}", "{0,1}"]).all()
