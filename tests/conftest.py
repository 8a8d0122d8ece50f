"""Shared fixtures: the shipped benchmark data, an isolated cache, and CLI runners.

Tests live in ``unit/`` (one library module at a time), ``integration/`` (several modules
together: training, prediction, bundled models, worker pools, signals) and ``cli/`` (the
command line). Tests that take more than about 5 s are marked ``slow``: ``pytest -m "not
slow"`` is the quick loop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import traceback
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


def run_cli_process(*args: str, stdin: str | bytes | None = None, env: dict | None = None, cwd=None):
    """Run the real ``scoremol`` entry point in a subprocess (stdout, stderr, exit code): for
    tests of what crosses a process boundary (signals, exit codes of the entry point, imports).
    Without ``stdin`` the command reads an empty standard input."""
    full_env = dict(os.environ, **(env or {}))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "scoremol", *args],
        input=data,
        stdin=subprocess.DEVNULL if data is None else None,  # never this session's terminal
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=600,
    )
    return proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), proc.returncode


def run_cli(*args: str, stdin: str | bytes | None = None, env: dict | None = None, cwd=None):
    """Run the command line in this process (stdout, stderr, exit code): the same ``main``
    as the console script (one-line errors, exit codes), inside Typer's test isolation of
    the standard streams and environment. No torch import per call.

    What the interpreter would do at the top level is done here too: an exception that
    escapes ``main`` (``-v`` re-raises errors) prints its traceback and gives status 1, a
    ``SystemExit`` with a message prints it. The command line's global state (``-v``,
    ``-q``) and the SIGTERM handler ``main`` installs are restored afterwards.
    """
    from typer.testing import CliRunner

    from scoremol.cli import main
    from scoremol.cli.app import console, state

    previous_argv, previous_cwd = sys.argv, os.getcwd()
    previous_state, previous_quiet = dict(state), console.quiet
    previous_sigterm = signal.getsignal(signal.SIGTERM)  # main() installs its own handler
    code = 0
    with CliRunner().isolation(input=stdin, env=env) as (out, err, _):
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.argv = ["scoremol", *map(str, args)]
            main()
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except Exception:
            traceback.print_exc()
            code = 1
        finally:
            sys.argv = previous_argv
            os.chdir(previous_cwd)
            state.update(previous_state)
            console.quiet = previous_quiet
            signal.signal(signal.SIGTERM, previous_sigterm)
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    return stdout.decode(errors="replace"), stderr.decode(errors="replace"), code


ESOL_TARGET = "measured log solubility in mols per litre"


def esol_head(esol_path: Path, rows: int, directory: Path) -> Path:
    """The first ``rows`` molecules of ESOL as a CSV in ``directory`` (not the registered
    file: no checksum match, so the target must be named)."""
    import pandas as pd

    path = directory / f"esol_{rows}.csv"
    pd.read_csv(esol_path).head(rows).to_csv(path, index=False)
    return path


#: Prediction and spread columns of an ESOL model's output.
PRED, STD = "logS_pred", "logS_std"


def tiny_net_flags(epochs: int = 2) -> list[str]:
    """Command-line flags of a one-member, hidden-16 GCN without a tree: for CLI tests that
    need some trained model, fast."""
    return ["--arch", "gcn", "--hidden", "16", "--epochs", str(epochs), "--ensemble", "1", "--blend-catboost", "0"]


def quick_config(**options):
    """A ``TrainConfig`` for one network without a blended tree, early-stopping on a held-out
    tenth (the defaults train four networks on a fixed schedule and a CatBoost model, which
    tests of the fit loop do not need)."""
    from scoremol.training.fit import TrainConfig

    return TrainConfig(**{"ensemble": 1, "catboost_weight": 0.0, "val_fraction": 0.1, **options})


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
    from scoremol.training.fit import train_model

    config = ModelConfig(arch="gcn", mode="score", hidden=16, head_hidden=(16,), use_descriptors=False)
    model = train_model(esol_data, [ESOL_TARGET], config, quick_config(epochs=3, ensemble=2), rows=np.arange(80))
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    save_model(model, path)
    return model, path
