"""Prediction on a Dask LocalCluster of two worker processes, every port on 127.0.0.1:
the single-machine output, a worker killed mid-run, --resume, Parquet in and out.

One cluster serves the whole module (starting one costs seconds); the test that kills a
worker runs last and waits for the cluster to be whole again.
"""

from __future__ import annotations

import io
import json
import os
import signal
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoremol.errors import ScoremolError
from tests.conftest import run_cli

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from scoremol.inference.distributed.client import predict_distributed  # noqa: E402
from scoremol.inference.distributed.cluster import dask_client  # noqa: E402
from scoremol.inference.distributed.manifest import manifest_summary, remove_parts  # noqa: E402
from scoremol.inference.distributed.worker import part_path  # noqa: E402
from scoremol.inference.output import CsvSink, ParquetSink  # noqa: E402
from scoremol.inference.predict import OutputOptions, predict_stream  # noqa: E402
from scoremol.inference.shards import ShardSize, plan_shards  # noqa: E402
from scoremol.models.checkpoint import load_model  # noqa: E402
from scoremol.pretrained import bundled_model_path  # noqa: E402

pytestmark = pytest.mark.slow

BAD = {3: "not_a_smiles", 10: "", 250: "C1CC", 511: "[Xx]", 700: "", 1100: "c1cccc1"}


@pytest.fixture(scope="module")
def client():
    with dask_client("local", workers=2) as c:
        workers = c.scheduler_info()["workers"]
        assert len(workers) == 2 and all(a.startswith("tcp://127.0.0.1:") for a in workers)
        yield c


@pytest.fixture(scope="module")
def model_path() -> Path:
    return bundled_model_path("esol-fast")  # small, fast, calibrated, with a domain


@pytest.fixture(scope="module")
def messy_smiles(esol_path) -> list[str]:
    smiles = pd.read_csv(esol_path)["smiles"].tolist()
    for row, bad in BAD.items():
        smiles[row] = bad
    return smiles


def _single(model_path, path, chunk_size=2000, **kwargs) -> str:
    """The single-machine output, computed with one torch thread as every worker is (pool
    workers and Dask workers alike): rounding then follows the same path."""
    import torch

    out, threads = io.StringIO(), torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        predict_stream(load_model(model_path), str(path), out, chunk_size=chunk_size, workers=1, **kwargs)
    finally:
        torch.set_num_threads(threads)
    return out.getvalue()


def _distributed(client, model_path, path, parts, **kwargs):
    out = io.StringIO()
    summary = predict_distributed(client, model_path, str(path), out, parts, **kwargs)
    return out.getvalue(), summary


def _executing(dask_worker) -> int:
    return dask_worker.state.executing_count  # cancelled tasks too: their threads still run


def _wait_idle(client, timeout: float = 60) -> None:
    """Until no worker runs a task (a cancelled shard still finishes, and writes its part)."""
    deadline = time.monotonic() + timeout
    while any(client.run(_executing).values()):
        assert time.monotonic() < deadline, "tasks still running"
        time.sleep(0.1)


def test_byte_identical_to_one_machine_with_bad_rows_in_place(client, model_path, messy_smiles, tmp_path):
    """Rows of equal length and shards of whole chunks: every molecule is batched as on one
    machine, so the bytes are the same (see the next test for arbitrary cuts)."""
    width = max(map(len, messy_smiles)) + 1
    path = tmp_path / "fixed.csv"
    path.write_text(
        "smiles,name,pad\n" + "".join(f"{s},m{i:04d},{'x' * (width - len(s))}\n" for i, s in enumerate(messy_smiles))
    )
    assert len(plan_shards(str(path), size=ShardSize(rows=256)).shards) == 5
    expected = _single(model_path, path, chunk_size=256)
    got, summary = _distributed(client, model_path, path, tmp_path / "parts", chunk_size=256, shard_size=256)
    assert got == expected
    assert (summary.shards, summary.rows, summary.computed) == (5, len(messy_smiles), [0, 1, 2, 3, 4])
    frame = pd.read_csv(io.StringIO(got), keep_default_na=False)
    assert frame["name"].tolist() == [f"m{i:04d}" for i in range(len(messy_smiles))]
    for row, bad in BAD.items():
        assert frame.loc[row, "status"] == ("empty" if bad == "" else "invalid"), (row, bad)
        assert frame.loc[row, "reason"] and frame.loc[row, "logS_pred"] == ""
    assert summary.failed == len(BAD)


def test_arbitrary_cuts_agree_with_one_machine(client, model_path, messy_smiles, tmp_path):
    """Byte cuts of uneven rows: the same rows, statuses and reasons; the numbers agree to
    float32 rounding (a molecule's similarity depends slightly on its batch)."""
    path = tmp_path / "messy.smi"
    path.write_text("".join(f"{s} m{i}\n" if s else "\n" for i, s in enumerate(messy_smiles)))
    expected = pd.read_csv(io.StringIO(_single(model_path, path)), keep_default_na=False)
    got, summary = _distributed(client, model_path, path, tmp_path / "parts", shard_size="9KB")
    assert summary.shards >= 4
    frame = pd.read_csv(io.StringIO(got), keep_default_na=False)
    assert frame[["smiles", "name", "status", "domain"]].equals(expected[["smiles", "name", "status", "domain"]])
    failed = frame["status"] != "ok"
    assert frame["reason"][failed].tolist() == expected["reason"][failed].tolist()
    for column, tolerance in (("logS_pred", 1e-4), ("logS_lo", 1e-2), ("logS_hi", 1e-2), ("similarity", 1e-2)):
        a = pd.to_numeric(frame[column]).to_numpy()
        b = pd.to_numeric(expected[column]).to_numpy()
        assert np.array_equal(np.isnan(a), np.isnan(b)) and np.nanmax(np.abs(a - b)) < tolerance, column


def test_sdf_with_varying_properties(client, model_path, tmp_path):
    """SDF shards are whole chunks of records: each chunk gets the columns, names and record
    numbers it gets on one machine, whichever properties later records add or lack."""
    from rdkit import Chem

    blocks = []
    for i in range(40):
        if i in (5, 22):
            blocks.append("broken\n  junk\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\nnot an atom line\n$$$$\n")
            continue
        mol = Chem.MolFromSmiles("C" * (i % 6 + 1) + "O")
        mol.SetProp("_Name", f"m{i}")
        props = f"> <k>\n{i}\n\n" + (f"> <extra>\nx{i}\n\n" if i >= 9 and i % 2 else "")
        blocks.append(Chem.MolToMolBlock(mol) + props + "$$$$\n")
    path = tmp_path / "in.sdf"
    path.write_text("".join(blocks))
    expected = _single(model_path, path, chunk_size=4)
    got, summary = _distributed(client, model_path, path, tmp_path / "parts", chunk_size=4, shard_size=10)
    assert summary.shards == 4 and got == expected  # shards of 12 records: 3 chunks of 4
    assert "SDF record 23 could not be parsed" in got


def test_resume_recomputes_only_the_missing_shards(client, model_path, messy_smiles, tmp_path):
    path = tmp_path / "in.csv"
    pd.DataFrame({"smiles": messy_smiles, "n": range(len(messy_smiles))}).to_csv(path, index=False)
    parts = tmp_path / "run.parts"
    reference, full = _distributed(client, model_path, path, tmp_path / "ref.parts", shard_size=100)
    assert full.shards == 12

    def interrupt_after_two(done, total, rows, predicted):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _distributed(client, model_path, path, parts, shard_size=100, on_shard=interrupt_after_two)
    _wait_idle(client)
    manifest = manifest_summary(parts)
    assert len(manifest["done"]) >= 2 and manifest["input"]["size"] == path.stat().st_size
    assert len(manifest["plan"]["shards"]) == 12
    present = {i for i in range(12) if part_path(parts, i).exists()}
    assert 2 <= len(present) < 12

    # the same run again without resume would overwrite or mix: refused
    with pytest.raises(ScoremolError, match="holds the shards of an earlier run: resume it"):
        _distributed(client, model_path, path, parts, shard_size=100)
    # other options, another model: refused, naming what differs
    with pytest.raises(ScoremolError, match=r"cannot resume .*options differ: coverage 0.9 -> 0.8"):
        _distributed(client, model_path, path, parts, shard_size=100, resume=True, options=OutputOptions(0.8))
    with pytest.raises(ScoremolError, match="cannot resume .*the model differs"):
        _distributed(client, bundled_model_path("fast"), path, parts, shard_size=100, resume=True)

    got, summary = _distributed(client, model_path, path, parts, shard_size=100, resume=True)
    assert summary.computed == sorted(set(range(12)) - present)
    assert got == reference  # same plan, same batches: the same bytes, no row lost or repeated
    assert len(manifest_summary(parts)["done"]) == 12

    # a part lost after the run: only that shard again
    part_path(parts, 7).unlink()
    got, summary = _distributed(client, model_path, path, parts, shard_size=100, resume=True)
    assert summary.computed == [7] and got == reference
    # all done: the output is assembled from the parts alone
    got, summary = _distributed(client, model_path, path, parts, shard_size=100, resume=True)
    assert summary.computed == [] and got == reference

    # the input changed: refused
    path.write_text(path.read_text() + "CCO,9999\n")
    with pytest.raises(ScoremolError, match="the input file changed"):
        _distributed(client, model_path, path, parts, shard_size=100, resume=True)
    remove_parts(parts)
    assert not parts.exists()


def test_parquet_in_and_out(client, model_path, messy_smiles, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": list(range(len(messy_smiles))), "smiles": messy_smiles})
    source = tmp_path / "in.parquet"
    pq.write_table(table, source, row_group_size=150)
    with open(tmp_path / "out.parquet", "wb") as handle:
        summary = predict_distributed(
            client, model_path, str(source), ParquetSink(handle), tmp_path / "a.parts", shard_size=400
        )
    assert summary.shards == 4  # 7 row groups of 150 and one of 78, taken two at a time
    as_csv, _ = _distributed(client, model_path, source, tmp_path / "b.parts", shard_size=400)
    frame = pd.read_parquet(tmp_path / "out.parquet")
    assert frame["id"].tolist() == list(range(len(messy_smiles))) and frame["id"].dtype == np.int64
    rendered = io.StringIO()
    CsvSink(rendered).write(frame)
    assert rendered.getvalue() == as_csv  # Parquet and CSV hold the same rows and values
    # and the single-machine path reads and writes Parquet the same way
    single = tmp_path / "single.parquet"
    with open(single, "wb") as handle:
        predict_stream(load_model(model_path), str(source), ParquetSink(handle), workers=1)
    pd.testing.assert_frame_equal(
        pd.read_parquet(single)[["id", "status", "reason"]], frame[["id", "status", "reason"]]
    )


def test_cli_on_a_running_scheduler(client, model_path, messy_smiles, tmp_path):
    path = tmp_path / "in.smi"
    path.write_text("".join(f"{s or 'xx'} m{i}\n" for i, s in enumerate(messy_smiles[:300])))
    output = tmp_path / "out.csv"
    address = client.scheduler.address
    args = ["predict", str(path), "--model", str(model_path), "--scheduler", address, "--shard-size", "100"]
    _, err, code = run_cli(*args, "-o", str(output), "--progress")
    assert code == 0, err
    assert "shard 3/3: 300 rows, " in err and "molecules/s" in err
    assert "predicted 297/300 rows (3 without a prediction, see the reason column) in 3 shards in" in err
    assert not Path(f"{output}.parts").exists()  # removed once the output is in place
    _, err, code = run_cli("predict", str(path), "--model", str(model_path), "-o", str(tmp_path / "one.csv"))
    assert code == 0 and "predicted 297/300 rows" in err, err
    frame, one = (pd.read_csv(p, keep_default_na=False) for p in (output, tmp_path / "one.csv"))
    assert frame[["smiles", "name", "status", "reason"]].equals(one[["smiles", "name", "status", "reason"]])
    _, err, code = run_cli(*args, "--workers", "2", "-o", str(output))
    assert code == 1 and "--workers sizes a cluster of --scheduler local" in err


def test_manifest_is_json_with_the_input_model_and_options(client, model_path, tmp_path):
    path = tmp_path / "in.smi"
    path.write_text("CCO a\nc1ccccc1 b\n")
    parts = tmp_path / "p"
    _distributed(client, model_path, path, parts, shard_size="1B")  # a shard per line
    manifest = json.loads((parts / "manifest.json").read_text())
    assert manifest["input"]["path"] == str(path.resolve()) and len(manifest["input"]["head_sha256"]) == 64
    assert manifest["options"]["shard_size"] == "1 bytes" and manifest["done"] == {"0": [1, 1], "1": [1, 1]}


def _poll(condition, timeout: float = 120.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _client_process(args: list[str]):
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "scoremol", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def _cluster_predict(path: Path, model_path: Path, client, output: Path) -> list[str]:
    """The arguments of a `predict` on the module's cluster, in shards of 500 rows."""
    address = client.scheduler.address
    return [
        "predict",
        str(path),
        "--model",
        str(model_path),
        "--scheduler",
        address,
        "--shard-size",
        "500",
        "-o",
        str(output),
    ]


def _large_smi(esol_path, tmp_path, copies: int = 8) -> tuple[Path, int]:
    smiles = pd.read_csv(esol_path)["smiles"].str.strip().tolist() * copies
    path = tmp_path / "large.smi"
    path.write_text("".join(f"{s} m{i}\n" for i, s in enumerate(smiles)))
    return path, len(smiles)


def test_two_clients_one_output_the_second_is_refused(client, model_path, esol_path, tmp_path):
    from scoremol.data.lock import lock_path

    path, rows = _large_smi(esol_path, tmp_path)
    output = tmp_path / "out.csv"
    args = _cluster_predict(path, model_path, client, output)
    first = _client_process(args)
    try:
        _poll(lambda: lock_path(output).exists() or first.poll() is not None, what="the first run's lock")
        assert first.poll() is None, first.stderr.read()
        start = time.monotonic()
        _, err, code = run_cli(*args)
        refused_in = time.monotonic() - start
        assert code == 1 and "out.csv is being written by another scoremol run (pid " in err, err
        assert f"pid {first.pid} " in err and len(err.strip().splitlines()) == 1
        print(f"second run refused in {refused_in:.2f} s")
        assert first.wait(timeout=300) == 0, first.stderr.read()
    finally:
        first.kill()
        first.wait()
        first.stderr.close()
    frame = pd.read_csv(output, keep_default_na=False)
    assert len(frame) == rows and frame.name.tolist() == [f"m{i}" for i in range(rows)]
    assert not lock_path(output).exists()


def test_a_killed_client_then_resume(client, model_path, esol_path, tmp_path):
    path, rows = _large_smi(esol_path, tmp_path)
    output = tmp_path / "out.csv"
    parts = Path(f"{output}.parts")
    args = _cluster_predict(path, model_path, client, output)
    first = _client_process(args)
    try:
        _poll(lambda: any(parts.glob("shard-*.parquet")) or first.poll() is not None, what="a first part")
        first.kill()
    finally:
        first.wait()
        first.stderr.close()
    _wait_idle(client)
    _, err, code = run_cli(*args, "--resume")
    assert code == 0, err
    frame = pd.read_csv(output, keep_default_na=False)
    assert len(frame) == rows and frame.name.tolist() == [f"m{i}" for i in range(rows)]


def test_the_torture_set_through_the_cluster_loses_no_worker(client, model_path, tmp_path):
    from tests.integration.test_torture import TORTURE

    path = tmp_path / "torture.csv"
    pd.DataFrame({"smiles": [s for s, _ in TORTURE.values()], "name": list(TORTURE)}).to_csv(path, index=False)
    before = set(client.scheduler_info()["workers"])
    got, summary = _distributed(client, model_path, path, tmp_path / "parts", shard_size=4)
    frame = pd.read_csv(io.StringIO(got), keep_default_na=False)
    assert frame.name.tolist() == list(TORTURE)
    for name, status in zip(frame.name, frame.status):
        assert TORTURE[name][1] is None or status == TORTURE[name][1], (name, status)
    assert set(client.scheduler_info()["workers"]) == before  # no worker lost


def test_a_worker_killed_mid_run_loses_and_repeats_no_row(client, model_path, messy_smiles, tmp_path):
    """SIGKILL to a worker that is running a shard: Dask runs the shard again elsewhere."""
    path = tmp_path / "in.smi"
    path.write_text("".join(f"{s} m{i}\n" if s else "\n" for i, s in enumerate(messy_smiles * 3)))
    reference, _ = _distributed(client, model_path, path, tmp_path / "ref.parts", shard_size=150)
    pids = client.run(os.getpid)  # worker address -> pid
    killed: list[int] = []

    def kill_a_busy_worker(done, total, rows, predicted):
        if killed:
            return
        busy = [address for address, keys in client.processing().items() if keys and address in pids]
        assert busy, "no shard running to interrupt"
        killed.append(pids[busy[0]])
        os.kill(pids[busy[0]], signal.SIGKILL)

    got, summary = _distributed(
        client, model_path, path, tmp_path / "parts", shard_size=150, on_shard=kill_a_busy_worker
    )
    assert killed and killed[0] not in client.run(os.getpid).values()  # that worker is gone
    assert summary.rows == 3 * len(messy_smiles) and summary.computed == list(range(summary.shards))
    assert got == reference
    names = pd.read_csv(io.StringIO(got), keep_default_na=False)["name"]
    assert names.tolist() == [f"m{i}" if s else "" for i, s in enumerate(messy_smiles * 3)]
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it
