"""Shared fixtures: the shared benchmark data, an isolated cache, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SCOREMOL_DATA", ROOT / "data")).resolve()
ESOL = SHARED_DATA / "esol.csv"
ESOL_FOLDS = SHARED_DATA / "esol_folds.csv"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """Every test gets the shared data folder and a private, empty cache."""
    monkeypatch.setenv("SCOREMOL_DATA", str(SHARED_DATA))
    monkeypatch.setenv("SCOREMOL_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def esol_path() -> Path:
    if not ESOL.is_file():
        pytest.fail(f"shared ESOL data not found at {ESOL}; set SCOREMOL_DATA")
    return ESOL


def run_cli(*args: str, stdin: str | bytes | None = None, env: dict | None = None, cwd=None):
    """Run the real ``scoremol`` entry point in a subprocess (stdout, stderr, exit code)."""
    full_env = dict(os.environ, **(env or {}))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "scoremol", *args],
        input=data,
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=600,
    )
    return proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), proc.returncode


ESOL_TARGET = "measured log solubility in mols per litre"


@pytest.fixture(scope="session")
def esol_data(esol_path):
    """ESOL featurized once per session, with descriptors."""
    from scoremol.featurizers.cache import featurize_input
    from scoremol.featurizers.dataset import FeaturizerSettings

    data, _ = featurize_input(str(esol_path), FeaturizerSettings(descriptors=True), use_cache=False)
    return data


@pytest.fixture(scope="session")
def tiny_model(esol_data, tmp_path_factory):
    """A quickly trained 2-member ensemble (80 molecules, 3 epochs) saved to disk."""
    import numpy as np

    from scoremol.models.checkpoint import save_model
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import TrainConfig, train_model

    config = ModelConfig(arch="gcn", mode="score", hidden=16, head_hidden=(16,), use_descriptors=False)
    model = train_model(esol_data, [ESOL_TARGET], config, TrainConfig(epochs=3, ensemble=2), rows=np.arange(80))
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    save_model(model, path)
    return model, path
