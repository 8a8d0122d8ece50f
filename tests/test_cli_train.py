"""`scoremol train` from the command line: inputs, target detection, errors."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from scoremol.models.checkpoint import load_model
from tests.conftest import ESOL_TARGET, run_cli

FAST = ["--arch", "gcn", "--hidden", "16", "--epochs", "2", "--ensemble", "1", "--blend-catboost", "0"]


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
    small = tmp_path / "small.csv"
    pd.read_csv(esol_path).head(40).to_csv(small, index=False)
    features = tmp_path / "small.pt"
    _, err, code = run_cli("featurize", str(small), "-o", str(features))
    assert code == 0, err
    _, err, code = run_cli("train", str(features), *FAST, "-o", str(tmp_path / "m.pt"))
    assert code == 1 and "pass --target" in err  # a cut-down copy is not the registered file
    _, err, code = run_cli("train", str(features), "-t", ESOL_TARGET, *FAST, "-o", str(tmp_path / "m.pt"))
    assert code == 0, err  # featurize's defaults match train's: the file carries the descriptors it needs
    bare = tmp_path / "bare.pt"
    _, err, code = run_cli("featurize", str(small), "--no-descriptors", "-o", str(bare))
    assert code == 0, err
    _, err, code = run_cli("train", str(bare), "-t", ESOL_TARGET, *FAST)
    assert code == 1 and "has no descriptors" in err and "Traceback" not in err
    _, err, code = run_cli("train", str(bare), "-t", ESOL_TARGET, "--no-descriptors", *FAST, "-o", str(tmp_path / "m2.pt"))
    assert code == 0, err
    _, err, code = run_cli("train", str(small), "-t", "nope", *FAST)
    assert code == 1 and "target column 'nope' not found" in err
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--mode", "deep", *FAST)
    assert code == 1 and "unknown depth mode 'deep'" in err and "Traceback" not in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU machine --device cuda is valid")
def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    _, err, code = run_cli("train", "esol", "--device", "cuda", "-o", str(tmp_path / "m.pt"))
    assert code == 1 and "no CUDA device is available" in err


def test_fast_preset_trains_one_small_graph_only_network(tmp_path, esol_path):
    small = tmp_path / "small.csv"
    pd.read_csv(esol_path).head(60).to_csv(small, index=False)
    model_path = tmp_path / "fast.pt"
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--preset", "fast", "--epochs", "2",
                           "-o", str(model_path))
    assert code == 0, err
    model = load_model(model_path)
    config = model.model_config
    assert (config.hidden, config.dropout, config.use_descriptors) == (64, 0.0, False)
    assert len(model.members) == 1 and model.tree is None
    assert not model.featurizer.descriptors  # prediction computes no RDKit descriptors
    assert model.members[0].epochs_run == 2  # the explicit --epochs beat the preset's 60
    assert "no validation split" in err  # fixed schedule on every training molecule


def test_explicit_options_override_the_preset_and_unknown_presets_fail(tmp_path, esol_path):
    small = tmp_path / "small.csv"
    pd.read_csv(esol_path).head(60).to_csv(small, index=False)
    model_path = tmp_path / "m.pt"
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--preset", "fast", "--epochs", "1",
                           "--hidden", "32", "--descriptors", "--ensemble", "2", "-o", str(model_path))
    assert code == 0, err
    model = load_model(model_path)
    assert model.model_config.hidden == 32 and model.model_config.use_descriptors and len(model.members) == 2
    _, err, code = run_cli("train", str(small), "-t", ESOL_TARGET, "--preset", "quick", "-o", str(model_path))
    assert code == 1 and "unknown preset 'quick'" in err and "accurate, fast" in err
