"""Featurizing ahead while torch loads: same rows, same features, same predictions; never
a crash, and nothing in a model file is executed to find out what it wants."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
import zipfile
from collections import deque

import numpy as np
import pandas as pd
import pytest

import scoremol.head_start as head_start
from scoremol.checkpoint import load_model
from scoremol.dataset import FeaturizerSettings, featurize_chunk
from scoremol.head_start import HeadStart
from scoremol.io import iter_chunks
from scoremol.model_meta import prediction_featurizer, read_model_meta
from scoremol.models import bundled_model_path
from scoremol.parallel import bare_chunk, featurization_job, iter_chunk_results, slice_chunk
from scoremol.predict import predict_stream

MOLECULES = ["CCO", "c1ccccc1O", "not a smiles", "", "[Na+].[Cl-]", "CC(=O)Oc1ccccc1C(=O)O", "C", "O=C=O", "CCN(CC)CC"]


def _write_smi(path, rows: int) -> str:
    path.write_text("".join(f"{MOLECULES[i % len(MOLECULES)] or ' '} m{i}\n" for i in range(rows)))
    return str(path)


@pytest.mark.parametrize("name", ["esol", "fast"])
@pytest.mark.parametrize("network_only", [False, True])
def test_settings_read_without_torch_match_the_loaded_model(name, network_only):
    path = bundled_model_path(name)
    model = load_model(path)
    expected = (model.without_tree() if network_only else model).featurizer
    assert prediction_featurizer(read_model_meta(path), network_only) == expected


def test_metadata_reader_needs_no_torch_and_featurizing_needs_none_either(tmp_path):
    """The premise of the head start: its process never pays for importing torch."""
    src = _write_smi(tmp_path / "in.smi", 20)
    code = (
        "import sys\n"
        "from scoremol.head_start import HeadStart\n"
        "from scoremol.dataset import featurize_chunk\n"
        "from scoremol.io import iter_chunks\n"
        "from scoremol.model_meta import prediction_featurizer, read_model_meta\n"
        "from scoremol.models import bundled_model_path\n"
        "settings = prediction_featurizer(read_model_meta(bundled_model_path('esol')), True)\n"
        f"data = featurize_chunk(next(iter_chunks({src!r})), settings)\n"
        "assert data.num_graphs > 0 and data.descriptors is not None\n"
        "print('torch' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04truncated"])
def test_unreadable_model_files_have_no_metadata(tmp_path, content):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(ValueError):
        read_model_meta(path)
    assert HeadStart.begin(str(_write_smi(tmp_path / "in.smi", 5)), path) is None


def test_a_pickle_that_would_run_code_is_not_run(tmp_path):
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({"meta": Exploit()}))
    with pytest.raises(ValueError):
        read_model_meta(path)
    assert not marker.exists()


def test_head_start_is_not_used_where_it_cannot_help(tiny_model, tmp_path):
    _, model_path = tiny_model
    src = _write_smi(tmp_path / "in.smi", 10)
    assert HeadStart.begin("-", model_path) is None
    assert HeadStart.begin(src, model_path, workers=1) is None
    assert HeadStart.begin("esol", model_path) is None  # a named data set: not worth resolving early


def test_a_named_pipe_is_read_once_by_predict_alone(tiny_model, tmp_path):
    """A head start reading a FIFO would take rows the main process then never sees."""
    import os
    import threading

    model, model_path = tiny_model
    fifo = tmp_path / "rows.smi"
    os.mkfifo(fifo)
    assert HeadStart.begin(str(fifo), model_path) is None
    text = "".join(f"{MOLECULES[i % len(MOLECULES)] or ' '} m{i}\n" for i in range(300))
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    from tests.conftest import run_cli

    out, err, rc = run_cli("predict", str(fifo), "--model", str(model_path), "--chunk-size", "50")
    writer.join()
    assert rc == 0, err
    assert len(pd.read_csv(io.StringIO(out), keep_default_na=False)) == 300


class _StopAfter:
    """A stop signal that turns on after ``checks`` looks (``None``: never), so the forked
    process's loop can be run deterministically in a thread."""

    def __init__(self, checks: int | None) -> None:
        self.checks = checks

    def is_set(self) -> bool:
        if self.checks is None:
            return False
        self.checks -= 1
        return self.checks < 0

    def wait(self, timeout: float | None = None) -> bool:
        return True


def _run_head(src: str, settings, stop, chunk_size: int = 200) -> list:
    """:func:`featurize_ahead` in a thread of this process, its output read back here."""
    import multiprocessing
    import os
    import threading

    reader, writer = multiprocessing.Pipe(duplex=False)
    thread = threading.Thread(target=head_start.featurize_ahead,
                              args=(writer, stop, os.getppid(), src, None, None, chunk_size, settings))
    thread.start()
    got = []
    try:
        while True:
            got.append(reader.recv())
    except EOFError:
        pass
    thread.join()
    return list(head_start.join_slices(got))


@pytest.mark.parametrize(("stop", "rows"), [(_StopAfter(None), [200, 125]), (_StopAfter(3), [200, 125]),
                                            (_StopAfter(1), [125]), (_StopAfter(0), [])])
def test_head_sends_whole_chunks_then_at_most_a_prefix(tiny_model, tmp_path, monkeypatch, stop, rows):
    """Stopped by the row limit (300) or by the signal: whole chunks first, then the rows of
    the next chunk done so far, each identical to featurizing those rows here."""
    model, _ = tiny_model
    monkeypatch.setattr(head_start, "SLICE_ROWS", 125)
    monkeypatch.setattr(head_start, "HEAD_MAX_ROWS", 300)
    src = _write_smi(tmp_path / "in.smi", 700)
    taken = _run_head(src, model.featurizer, stop)
    assert [d.num_rows for d in taken] == rows
    for data, chunk in zip(taken, iter_chunks(src, chunk_size=200)):
        local = featurize_chunk(bare_chunk(chunk), model.featurizer)
        n = data.num_rows
        assert data.status == local.status[:n] and data.reason == local.reason[:n]
        np.testing.assert_array_equal(data.graph_row, local.graph_row[: len(data.graph_row)])
        np.testing.assert_array_equal(data.x, local.x[: len(data.x)])
        np.testing.assert_array_equal(data.edge_attr, local.edge_attr[: len(data.edge_attr)])


def test_other_settings_or_an_unreadable_input_give_nothing(tiny_model, tmp_path):
    model, model_path = tiny_model
    head = HeadStart.begin(_write_smi(tmp_path / "in.smi", 50), model_path)
    assert not head.take(FeaturizerSettings(descriptors=True))
    assert HeadStart.begin(str(tmp_path / "missing.smi"), model_path) is None
    unreadable = tmp_path / "no_smiles.csv"  # the reader fails in the forked process: nothing taken
    unreadable.write_text("foo,bar\n1,2\n")
    head = HeadStart.begin(str(unreadable), model_path)
    assert not head.take(model.featurizer)


@pytest.mark.parametrize("rows", [450, 4500])  # one process; a worker pool
def test_predictions_from_features_made_ahead_are_identical(tiny_model, tmp_path, rows):
    """One whole chunk and the first 75 rows of the next, featurized elsewhere."""
    model, _ = tiny_model
    src = _write_smi(tmp_path / "in.smi", rows)
    first, second = list(iter_chunks(src, chunk_size=200))[:2]
    featurized = deque([featurize_chunk(bare_chunk(first), model.featurizer),
                        featurize_chunk(bare_chunk(slice_chunk(second, 0, 75)), model.featurizer)])
    plain, ahead = io.StringIO(), io.StringIO()
    predict_stream(model, src, plain, chunk_size=200, workers=2)
    summary = predict_stream(model, src, ahead, chunk_size=200, workers=2, featurized=featurized)
    assert ahead.getvalue() == plain.getvalue()
    assert summary.rows == rows == len(pd.read_csv(io.StringIO(ahead.getvalue()), keep_default_na=False))
    assert not featurized  # each taken as used, so freed before the run ends


def test_features_that_do_not_fit_their_chunk_are_redone(tiny_model, tmp_path):
    model, _ = tiny_model
    src = _write_smi(tmp_path / "in.smi", 50)
    chunk = next(iter_chunks(src, chunk_size=20))
    too_long = featurize_chunk(bare_chunk(next(iter_chunks(src, chunk_size=30))), model.featurizer)
    plain, ahead = io.StringIO(), io.StringIO()
    predict_stream(model, src, plain, chunk_size=20)
    predict_stream(model, src, ahead, chunk_size=20, featurized=deque([too_long]))
    assert ahead.getvalue() == plain.getvalue() and len(chunk) == 20


def test_real_head_start_gives_the_same_output(tiny_model, tmp_path):
    """The forked process end to end (how much it does in time varies; the output may not)."""
    model, model_path = tiny_model
    src = _write_smi(tmp_path / "in.smi", 4500)
    head = HeadStart.begin(src, model_path, chunk_size=200, workers=2)
    plain, ahead = io.StringIO(), io.StringIO()
    predict_stream(model, src, plain, chunk_size=200, workers=2)  # meanwhile the head start works
    featurized = head.take(model.featurizer)
    assert all(d.num_rows == 200 for d in list(featurized)[:-1])
    assert sum(d.num_rows for d in featurized) <= head_start.HEAD_MAX_ROWS
    predict_stream(model, src, ahead, chunk_size=200, workers=2, featurized=featurized)
    assert ahead.getvalue() == plain.getvalue()


@pytest.mark.parametrize("workers", [1, 2])
def test_ready_chunks_come_first_and_in_order(tmp_path, workers):
    src = _write_smi(tmp_path / "in.smi", 90)
    settings = FeaturizerSettings()
    ready = [lambda chunk, i=i: f"ready {i} @ {chunk.start}" for i in range(2)]
    got = list(iter_chunk_results(iter_chunks(src, chunk_size=10), featurization_job(settings), workers,
                                  min_rows=20, ready=ready))
    assert [c.start for c, _ in got] == list(range(0, 90, 10))
    assert [r for _, r in got[:2]] == ["ready 0 @ 0", "ready 1 @ 10"]
    assert all(d.num_rows == 10 for _, d in got[2:])
