"""Shared fixtures: the shared benchmark data, an isolated cache, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SCOREMOL_DATA", ROOT.parent / "shared" / "data")).resolve()
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
