"""`scoremol train` from the command line: inputs, target detection, presets, blends, the
CatBoost baseline, and errors that name what to fix."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.featurizers.descriptors import TREE_DESCRIPTORS
from scoremol.models.catboost import WEIGHT_GRID
from scoremol.models.checkpoint import load_model
from tests.conftest import ESOL_TARGET, PRED, STD, esol_head, run_cli, tiny_net_flags

FAST = tiny_net_flags(2)


def test_train_on_a_copy_of_esol_needs_no_target(tmp_path, esol_path):
    copy = tmp_path / "esol.csv"
    copy.write_bytes(esol_path.read_bytes())
    model_path = tmp_path / "m.pt"
    _, err, code = run_cli("train", str(copy), *FAST, "-o", str(model_path))
    assert code == 0, err
    model = load_model(model_path)
    assert model.target_names == [ESOL_TARGET] and model.target_units == ["log10(mol/L)"]
    assert "best val RMSE" in err and "parameters" in err
    assert len(model.members[0].history) == 2


def test_train_from_a_features_file_and_bad_options(tmp_path, esol_path):
    small = esol_head(esol_path, 40, tmp_path)
    features = tmp_path / "small.pt"
    _, err, code = run_cli("featurize", str(small), "-o", str(features))
    assert code == 0, err
    _, err, code = run_cli("train", str(features), *FAST, "-o", str(tmp_path / "m.pt"))
    # a cut-down copy is not the registered file: the error lists the columns to choose from
    assert code == 1 and "name the target column (one of: Compound ID, " in err and ESOL_TARGET in err
    assert len(err.strip().splitlines()) == 1
    _, err, code = run_cli("train", str(features), "-t", ESOL_TARGET, *FAST, "-o", str(tmp_path / "m.pt"))
    assert code == 0, err  # featurize's defaults match train's: the file carries the descriptors it needs
    bare = tmp_path / "bare.pt"
    _, err, code = run_cli("featurize", str(small), "--no-descriptors", "-o", str(bare))
    assert code == 0, err
    _, err, code = run_cli("train", str(bare), "-t", ESOL_TARGET, *FAST)
    assert code == 1 and "has no descriptors" in err and "Traceback" not in err
    _, err, code = run_cli(
        "train", str(bare), "-t", ESOL_TARGET, "--no-descriptors", *FAST, "-o", str(tmp_path / "m2.pt")
    )
    assert code == 0, err
    _, err, code = run_cli("train", str(small), "-t", "nope", *FAST)
    assert code == 1 and "target column 'nope' not found" in err
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--mode", "deep", *FAST)
    assert code == 2 and "'deep' is not one of 'base', 'classic', 'skip', 'score'" in " ".join(err.split())
    assert "Traceback" not in err


def test_option_errors_name_the_parameter(tmp_path, esol_path):
    small = esol_head(esol_path, 40, tmp_path)
    cases = [
        (["--epochs", "0"], "epochs must be at least 1, got 0"),
        (["--blend-catboost", "2"], "blend_catboost must be in [0, 1), got 2.0"),
        (["--val-fraction", "1"], "val_fraction must be in [0, 1), got 1.0"),
        (["--descriptor-set", "MolLogP,NoSuchDescriptor"], "NoSuchDescriptor"),
        (["--smiles-col", "structure"], "structure"),
    ]
    for extra, message in cases:
        _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, *FAST, *extra, "-o", str(tmp_path / "m.pt"))
        assert code == 1 and message in err, (extra, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not (tmp_path / "m.pt").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU machine --device cuda is valid")
def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    _, err, code = run_cli("train", "esol", "--device", "cuda", "-o", str(tmp_path / "m.pt"))
    assert code == 1 and err.strip() == "scoremol: error: device 'cuda' requested but no CUDA device is available"


def test_fast_preset_trains_one_small_graph_only_network(tmp_path, esol_path):
    small = esol_head(esol_path, 60, tmp_path)
    model_path = tmp_path / "fast.pt"
    _, err, code = run_cli(
        "train", str(small), "-t", ESOL_TARGET, "--preset", "fast", "--epochs", "2", "-o", str(model_path)
    )
    assert code == 0, err
    model = load_model(model_path)
    config = model.model_config
    assert (config.hidden, config.dropout, config.use_descriptors) == (64, 0.0, False)
    assert len(model.members) == 1 and model.tree is None
    assert not model.featurizer.descriptors  # prediction computes no RDKit descriptors
    assert model.members[0].epochs_run == 2  # the explicit --epochs beat the preset's 60
    assert "no validation split" in err  # fixed schedule on every training molecule
    assert model.train_config["spec"]["preset"] == "fast" and model.train_config["spec"]["epochs"] == 2


def test_explicit_options_override_the_preset_and_unknown_presets_fail(tmp_path, esol_path):
    small = esol_head(esol_path, 60, tmp_path)
    model_path = tmp_path / "m.pt"
    _, err, code = run_cli(
        "train",
        str(small),
        "-t",
        ESOL_TARGET,
        "--preset",
        "fast",
        "--epochs",
        "1",
        "--hidden",
        "32",
        "--descriptors",
        "--ensemble",
        "2",
        "-o",
        str(model_path),
    )
    assert code == 0, err
    model = load_model(model_path)
    assert model.model_config.hidden == 32 and model.model_config.use_descriptors and len(model.members) == 2
    assert model.model_config.dropout == 0.0  # not given: still the preset's
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--preset", "quick", "-o", str(model_path))
    assert code == 2 and "'quick' is not one of 'default', 'accurate', 'fast'" in " ".join(err.split())


def test_cli_train_and_predict_with_a_blend(tmp_path, esol_path):
    small = esol_head(esol_path, 120, tmp_path)
    model_path = tmp_path / "m.pt"
    _, err, code = run_cli(
        "train",
        str(small),
        "-t",
        ESOL_TARGET,
        "--arch",
        "gcn",
        "--hidden",
        "16",
        "--epochs",
        "2",
        "--blend-catboost",
        "0.3",
        "-o",
        str(model_path),
    )
    assert code == 0, err
    assert re.search(r"CatBoost blend, weight 0(\.\d)?\b", err)  # chosen on held-out molecules
    model = load_model(model_path)
    # the tree's descriptors (all but the slowest) are computed; they include the network's
    assert model.tree is not None and model.featurizer.descriptor_names == TREE_DESCRIPTORS
    assert model.tree.weights[0] in WEIGHT_GRID and len(model.members) == 4  # the default preset's ensemble
    out, err, code = run_cli("predict", "-", "-m", str(model_path), stdin="smiles\nc1ccccc1\nnot a smiles\nCCO\n")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert list(frame["status"]) == ["ok", "invalid", "ok"] and frame[PRED][1] == ""
    fast_out, err, code = run_cli(
        "predict", "-", "-m", str(model_path), "--network-only", stdin="smiles\nc1ccccc1\nnot a smiles\nCCO\n"
    )
    assert code == 0, err
    fast = pd.read_csv(io.StringIO(fast_out), keep_default_na=False)
    assert list(fast["status"]) == ["ok", "invalid", "ok"]
    assert float(fast[PRED][0]) != float(frame[PRED][0])  # the tree's share is gone


@pytest.fixture(scope="module")
def catboost_model(esol_path, tmp_path_factory):
    """``train --arch catboost`` on 80 ESOL molecules: (model file, training CSV, stderr)."""
    directory = tmp_path_factory.mktemp("catboost")
    small = esol_head(esol_path, 80, directory)
    model_path = directory / "tree.pt"
    _, err, code = run_cli(
        "train", str(small), "-t", ESOL_TARGET, "--arch", "catboost", "-o", str(model_path), cwd=directory
    )
    assert code == 0, err
    assert not (directory / "catboost_info").exists()
    return model_path, small, err


def test_catboost_baseline_trains_a_tree_only_model_file(catboost_model):
    model_path, _, err = catboost_model
    assert "CatBoost on RDKit descriptors" in err and "2000 trees" in err
    model = load_model(model_path)
    assert model.members == [] and model.is_tree_only and model.tree.weights == [1.0]
    assert model.featurizer.descriptor_names == TREE_DESCRIPTORS
    assert model.metrics["n_train_molecules"] == 80 and model.train_config["spec"]["arch"] == "catboost"


def test_predict_serves_a_catboost_model(catboost_model):
    model_path, small, _ = catboost_model
    stdout, err, code = run_cli("predict", "CCO", "c1ccccc1", "notasmiles", "--model", str(model_path))
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False)
    assert frame["status"].tolist() == ["ok", "ok", "invalid"] and STD not in frame.columns
    values = frame[PRED][:2].astype(float)
    assert np.isfinite(values).all() and values[0] > values[1]  # ethanol dissolves better than benzene
    # on its own training molecules the tree fits far better than their spread
    stdout, err, code = run_cli("predict", str(small), "--model", str(model_path))
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(stdout))
    assert np.sqrt(np.mean((frame[PRED] - frame[ESOL_TARGET]) ** 2)) < 0.5 * frame[ESOL_TARGET].std()


def test_network_only_on_a_catboost_model_is_not_a_silent_empty_prediction(catboost_model):
    model_path, _, _ = catboost_model
    stdout, err, code = run_cli("predict", "CCO", "c1ccccc1", "--model", str(model_path), "--network-only")
    assert code == 1 and "network_only does not apply to a CatBoost model" in err and "Traceback" not in err, err
    assert stdout == ""


def test_catboost_baseline_rejects_what_it_cannot_save(tmp_path, esol_path):
    small = esol_head(esol_path, 40, tmp_path)
    _, err, code = run_cli(
        "train", str(small), "-t", ESOL_TARGET, "--arch", "catboost", "--morgan", "-o", str(tmp_path / "m.pt")
    )
    assert code == 1 and "morgan=True is for cross-validation" in err
    _, err, code = run_cli(
        "train",
        str(small),
        "-t",
        ESOL_TARGET,
        "-t",
        "Molecular Weight",
        "--arch",
        "catboost",
        "-o",
        str(tmp_path / "m.pt"),
    )
    assert code == 1 and "predicts one target" in err
    assert not (tmp_path / "m.pt").exists()


def test_fast_preset_training_imports_neither_pyg_nor_sklearn(tmp_path, esol_path):
    """Start-up is a large share of a 30 s fit: a DMPNN without a validation split needs
    neither PyTorch Geometric nor scikit-learn. (A fresh interpreter: this one has both.)"""
    small = esol_head(esol_path, 40, tmp_path)
    code = (
        "import sys\n"
        "from scoremol.cli import app\n"
        f"sys.argv = ['scoremol', '-q', 'train', {str(small)!r}, '-t', {ESOL_TARGET!r}, '--preset', 'fast',\n"
        f"            '--epochs', '1', '-o', {str(tmp_path / 'm.pt')!r}]\n"
        "app(standalone_mode=False)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch_geometric', 'sklearn', 'scipy'}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "m.pt").is_file()


def test_a_target_named_twice_is_an_error(tmp_path, esol_path):
    _, err, code = run_cli(
        "train", str(esol_path), "--target", ESOL_TARGET, "--target", ESOL_TARGET, *tiny_net_flags(1),
        "-o", str(tmp_path / "m.pt"),
    )  # fmt: skip
    assert code == 1 and "is named more than once" in err and not (tmp_path / "m.pt").exists()


def test_too_few_molecules_to_calibrate_is_said(tmp_path):
    src = tmp_path / "small.csv"
    src.write_text("smiles,y\n" + "".join(f"{'C' * (i % 9 + 1)}O,{-i / 10}\n" for i in range(30)))
    out = tmp_path / "m.pt"
    _, err, code = run_cli("train", str(src), "--target", "y", *tiny_net_flags(1), "-o", str(out))
    assert code == 0, err
    assert "too few molecules to hold out for calibration" in err
    assert load_model(out).calibration is None


def test_a_users_one_word_columns_keep_their_names_and_two_water_targets_stay_apart(tmp_path, tiny_model):
    """A column called Solubility in a user's file (here ug/mL) is not AqSolDB's logS."""
    import dataclasses

    src = tmp_path / "mine.csv"
    src.write_text("smiles,Solubility,exp\n" + "".join(f"{'C' * (i % 9 + 1)}O,{i * 10.5},{i / 7}\n" for i in range(30)))
    out = tmp_path / "m.pt"
    _, err, code = run_cli("train", str(src), "-t", "Solubility", "-t", "exp", *tiny_net_flags(1), "-o", str(out))
    assert code == 0, err
    stdout, err, code = run_cli("predict", "CCO", "--model", str(out))
    assert code == 0, err
    header = stdout.splitlines()[0].split(",")
    assert "Solubility_pred" in header and "exp_pred" in header and "logS_pred" not in header
    model, _ = tiny_model
    both = dataclasses.replace(
        model, target_names=["Solubility", ESOL_TARGET], target_units=["log10(mol/L)", "log10(mol/L)"]
    )
    assert both.target_labels == ["Solubility", "measured_log_solubility_in_mols_per_litre"]
    assert dataclasses.replace(both, target_names=["Solubility"], target_units=["log10(mol/L)"]).target_labels == [
        "logS"
    ]


def _rows(n: int, start: int = 0) -> list[str]:
    """Distinct small molecules: an amine chain, then a chain ending in an aldehyde."""
    return [f"{'C' * (i % 10 + 1)}N{'C' * (i // 10)}=O" for i in range(start, start + n)]


def test_parquet_targets_read_as_numbers_with_nulls_train_alone_and_merged(tmp_path):
    smiles = _rows(40)
    values = [float(i) / 10 for i in range(40)]
    values[3] = None  # a null: a missing label, as an empty CSV cell
    pd.DataFrame({"smiles": smiles, "v": values}).to_parquet(tmp_path / "g.parquet")
    _, err, code = run_cli(
        "train", str(tmp_path / "g.parquet"), "-t", "v", *tiny_net_flags(1), "-o", str(tmp_path / "a.pt")
    )
    assert code == 0, err
    pd.DataFrame({"smiles": smiles, "w": [float(i) for i in range(40)]}).to_csv(tmp_path / "w.csv", index=False)
    _, err, code = run_cli(
        "train", str(tmp_path / "w.csv"), str(tmp_path / "g.parquet"), "-t", "w", "-t", "v", *tiny_net_flags(1),
        "-o", str(tmp_path / "b.pt"),
    )  # fmt: skip
    assert code == 0, err
    assert load_model(tmp_path / "b.pt").target_names == ["w", "v"]


def test_a_target_without_labels_or_calibration_molecules_is_refused_before_training(tmp_path):
    pd.DataFrame({"smiles": _rows(120), "a": np.arange(120.0)}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"smiles": _rows(3, 120), "b": ["", "", ""]}).to_csv(tmp_path / "b.csv", index=False)
    out = tmp_path / "m.pt"
    two = [*tiny_net_flags(1), "--ensemble", "2"]  # 2 members x a tenth each: 24 held out, enough to calibrate
    args = [str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "-t", "a", "-t", "b", *two, "-o", str(out)]
    _, err, code = run_cli("train", *args)
    assert code == 1 and "target 'b' has 0 usable label(s)" in err and not out.exists(), err
    pd.DataFrame({"smiles": _rows(3, 120), "b": [1.0, 2.0, 3.0]}).to_csv(tmp_path / "b.csv", index=False)
    _, err, code = run_cli("train", *args)  # 3 labels: fewer than 2 of them fall in the held-out fifth
    assert code == 1 and "are held out to calibrate, fewer than 2" in err and "--no-calibrate" in err, err
    _, err, code = run_cli("train", *args, "--no-calibrate")
    assert code == 0, err


def test_a_features_file_is_trained_with_its_own_standardization(tmp_path, esol_path):
    features = tmp_path / "f.pt"
    _, err, code = run_cli("featurize", str(esol_head(esol_path, 40, tmp_path)), "-o", str(features))
    assert code == 0, err
    _, err, code = run_cli(
        "train", str(features), "-t", ESOL_TARGET, *tiny_net_flags(1), "--no-standardize", "-o", str(tmp_path / "m.pt")
    )
    assert code == 1 and "holds standardized molecules; train it without --no-standardize" in err, err


def test_exclude_files_are_named_in_their_errors(tmp_path, esol_path):
    src = esol_head(esol_path, 40, tmp_path)
    (tmp_path / "notes.txt").write_text("these are my notes\nnothing here\n")
    (tmp_path / "drugs.csv").write_text("Drug,pX\nCCCCCl,2.5\n")
    for exclude, message in (("notes.txt", "no line of it is a molecule"), ("drugs.csv", "no SMILES column")):
        _, err, code = run_cli(
            "train", str(src), "-t", ESOL_TARGET, *tiny_net_flags(1), "--exclude", str(tmp_path / exclude),
            "-o", str(tmp_path / "m.pt"),
        )  # fmt: skip
        assert code == 1 and f"--exclude {tmp_path / exclude}: " in err and message in err, err


def test_predict_refuses_a_threshold_or_ugml_the_model_cannot_give(tmp_path, tiny_model):
    _, model_path = tiny_model  # no calibration, and trained on a copy of ESOL (units unknown)
    _, err, code = run_cli("predict", "CCO", "--model", str(model_path), "--threshold", "-2")
    assert code == 1 and "--threshold needs a calibrated model" in err
    _, err, code = run_cli("predict", "CCO", "--model", str(model_path), "--ugml")
    assert code == 1 and "--ugml: no target of this model is a solubility in known units" in err
