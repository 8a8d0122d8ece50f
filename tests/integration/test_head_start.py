"""A head start featurizes the first rows in a helper, and every row is still predicted once, in order."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from scoremol.data.read import iter_chunks
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.featurizers.head_start import HeadStart
from scoremol.featurizers.parallel import PARALLEL_MIN_ROWS
from scoremol.inference.head import start_featurizing
from scoremol.inference.predict import predict_stream

SMILES = ["CCO", "", "c1ccccc1O", "not a smiles", "[Na+].[Cl-]", "CC(=O)Oc1ccccc1C(=O)O", "C", "O=C=O", "CCN"]


def _input(tmp_path, rows: int):
    path = tmp_path / "in.csv"
    smiles = [SMILES[i % len(SMILES)] + ("C" * (i % 5) if i % len(SMILES) in (0, 6) else "") for i in range(rows)]
    pd.DataFrame({"smiles": smiles, "name": [f"m{i}" for i in range(rows)]}).to_csv(path, index=False)
    return str(path)


def _wait_for_claims(head: HeadStart, count: int) -> None:
    deadline = time.monotonic() + 60
    while head._claimed.value < count and time.monotonic() < deadline:
        time.sleep(0.001)
    assert head._claimed.value >= count, "the helper claimed nothing"


def _check_split(path: str, done, rest, settings) -> int:
    """Units then the remaining chunks hold every row once, in order; the units' features
    are what featurizing them here gives. Returns the number of units."""
    done = list(done)
    names = [n for unit, _ in done for n in unit.frame["name"]] + [n for c in rest for n in c.frame["name"]]
    assert names == [n for c in iter_chunks(path) for n in c.frame["name"]]
    for unit, data in done:
        here = featurize_chunk(unit, settings)
        assert data.status == here.status and data.reason == here.reason
        for name in ("graph_row", "x", "edge_index", "edge_attr", "atom_ptr", "edge_ptr"):
            np.testing.assert_array_equal(getattr(data, name), getattr(here, name), err_msg=name)
    return len(done)


def test_small_input_or_one_worker_starts_no_helper(tmp_path):
    path = _input(tmp_path, 30)
    settings = FeaturizerSettings()
    for workers, min_rows in [(2, 100), (1, 0)]:
        head = HeadStart(iter_chunks(path, chunk_size=7), settings, workers, min_rows=min_rows)
        assert not head.started
        done, rest = head.finish(settings)
        assert _check_split(path, done, list(rest), settings) == 0


def test_every_row_once_in_order_whenever_the_helper_stops(tmp_path):
    path = _input(tmp_path, 400)
    settings = FeaturizerSettings()
    head = HeadStart(iter_chunks(path, chunk_size=30), settings, 2, rows=300, unit_rows=4, min_rows=0)
    assert head.started
    _wait_for_claims(head, 3)
    done, rest = head.finish(settings)
    assert _check_split(path, done, list(rest), settings) >= 3
    assert not head._process.is_alive()


def test_features_for_other_settings_are_dropped(tmp_path):
    path = _input(tmp_path, 100)
    head = HeadStart(iter_chunks(path, chunk_size=30), FeaturizerSettings(), 2, unit_rows=4, min_rows=0)
    _wait_for_claims(head, 2)
    other = FeaturizerSettings(standardize=False)
    done, rest = head.finish(other)
    assert _check_split(path, done, list(rest), other) == 0


def test_units_of_a_helper_that_died_are_featurized_here(tmp_path):
    path = _input(tmp_path, 200)
    settings = FeaturizerSettings()
    head = HeadStart(iter_chunks(path, chunk_size=50), settings, 2, unit_rows=5, min_rows=0)
    _wait_for_claims(head, 4)
    os.kill(head._process.pid, signal.SIGKILL)
    head._process.join()
    done, rest = head.finish(settings)
    assert _check_split(path, done, list(rest), settings) >= 4


def test_prediction_with_a_head_start_matches_without(tiny_model, tmp_path):
    model, model_path = tiny_model
    path = _input(tmp_path, PARALLEL_MIN_ROWS + 200)  # large enough for a helper
    plain, started = io.StringIO(), io.StringIO()
    predict_stream(model, path, plain, chunk_size=500, workers=1)
    head = start_featurizing(model_path, path, chunk_size=500, workers=2)
    assert head is not None and head.started and head.settings == model.featurizer
    _wait_for_claims(head, 2)
    summary = predict_stream(model, path, started, chunk_size=500, workers=2, head=head)
    a, b = (pd.read_csv(io.StringIO(s.getvalue())) for s in (plain, started))
    assert summary.rows == PARALLEL_MIN_ROWS + 200 and list(a.columns) == list(b.columns)
    numeric = [c for c in a.columns if a[c].dtype.kind == "f"]
    assert numeric, "no prediction columns"
    np.testing.assert_allclose(a[numeric].to_numpy(float), b[numeric].to_numpy(float), rtol=1e-5, atol=1e-6)
    other = [c for c in a.columns if c not in numeric]
    pd.testing.assert_frame_equal(a[other], b[other])
    assert (a["status"] == "ok").sum() > 1000 and (a["status"] != "ok").any()


def test_a_head_start_on_other_reading_options_is_refused(tiny_model, tmp_path):
    """The head start's rows are the first rows as it read them: continuing with other
    options (another chunk size, column or file) would skip or repeat rows."""
    model, model_path = tiny_model
    path = _input(tmp_path, PARALLEL_MIN_ROWS + 200)
    head = start_featurizing(model_path, path, chunk_size=500, workers=2)
    try:
        with pytest.raises(ValueError, match="head start read"):
            predict_stream(model, path, io.StringIO(), chunk_size=1000, workers=2, head=head)
    finally:
        head.close()


def test_closing_before_the_helper_has_started_ends_it(tiny_model, tmp_path, monkeypatch):
    """A run that fails (or is interrupted) just after the head start closes it before
    the helper has its own SIGTERM handler (it inherits one that only notes the signal):
    the helper must still end, not featurize every unit into a pipe nobody reads while
    this process waits for it. The helper's start is slowed here to make that certain; a
    watchdog ends a hang and fails the test."""
    import threading

    from scoremol.featurizers import head_start

    started = head_start.start_worker

    def slow_start(*args):
        time.sleep(1.0)
        started(*args)

    monkeypatch.setattr(head_start, "start_worker", slow_start)
    _, model_path = tiny_model
    head = start_featurizing(model_path, _input(tmp_path, PARALLEL_MIN_ROWS + 200), chunk_size=500, workers=2)
    hung = []
    watchdog = threading.Timer(60, lambda: hung.append(head._process.kill()))
    watchdog.start()
    head.close()
    watchdog.cancel()
    assert not hung and not head._process.is_alive()


def test_no_head_start_without_a_readable_model(tmp_path):
    path = _input(tmp_path, 10)
    assert start_featurizing(tmp_path / "missing.pt", path) is None
    (tmp_path / "text.pt").write_text("not a model")
    assert start_featurizing(tmp_path / "text.pt", path) is None


@pytest.mark.parametrize("module", ["scoremol.cli", "scoremol.inference.head"])
def test_the_command_line_imports_without_torch(module):
    """predict forks its helper before torch loads: neither may import it (a fresh interpreter)."""
    code = f"import sys, {module}; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_a_pooled_prediction_lays_out_the_domain_search_before_forking(tmp_path):
    """Forked workers inherit the layout: this process makes it once even when it predicts
    no rows itself (every chunk goes to the pool), and the pool's rows still get verdicts."""
    import dataclasses
    from pathlib import Path

    from scoremol.models.checkpoint import load_model
    from scoremol.pretrained import resolve_model

    model = load_model(resolve_model(Path("fast"))[0])
    fresh = dataclasses.replace(model, domain=dataclasses.replace(model.domain))
    assert fresh.domain._indexes == {}
    out = io.StringIO()
    predict_stream(fresh, _input(tmp_path, PARALLEL_MIN_ROWS + 200), out, chunk_size=500, workers=2)
    assert len(fresh.domain._indexes) == 1
    frame = pd.read_csv(io.StringIO(out.getvalue()))
    assert frame["domain"].isin(["in", "out"]).sum() == (frame["status"] == "ok").sum() > 1000
