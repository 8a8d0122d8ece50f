"""Predict one input on a Dask cluster, shard by shard, resumably, rows in input order.

The input is cut into shards (:mod:`scoremol.inference.shards`). Each shard is one Dask
task: a worker reads it, featurizes and predicts it with the single-machine code
(:func:`~scoremol.inference.predict.predict_part` and
:func:`~scoremol.inference.predict.chunk_output`), and writes its rows to
``<parts>/shard-000123.parquet`` atomically, so a part file is either whole or absent.
The model file's bytes are scattered to every worker once and loaded once per worker
process. This process writes the output from the part files in shard order as they
finish, so the output is the single-machine output, row for row.

``<parts>/manifest.json`` (written atomically) records what the parts belong to: the
input (path, size, modification time, a hash of its first MiB), the model's SHA-256, the
options that shape the output, the shard plan, and the shards finished. A run that stops
(Ctrl-C, a crash, a lost client) keeps its parts; ``resume=True`` recomputes only the
shards without a part, and refuses when the input, model or options differ. A worker
that dies mid-shard leaves no part: Dask runs the shard again elsewhere, and since a part
only ever appears whole, under its shard's name, no row is lost or written twice.

Workers must see the input and the parts folder at the same paths as this process (one
machine, or a shared file system); every worker needs scoremol installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import pandas as pd

from scoremol.data.atomic import atomic_write
from scoremol.data.read import parquet_module
from scoremol.errors import ScoremolError
from scoremol.featurizers.molecule import STATUS_OK
from scoremol.inference.output import FrameSink, ParquetSink, as_sink
from scoremol.inference.predict import (
    OutputOptions,
    PredictSummary,
    chunk_output,
    conform_columns,
    default_batch_size,
    predict_part,
)
from scoremol.inference.shards import Shard, ShardPlan, iter_shard_chunks, parse_shard_size, plan_shards
from scoremol.version import __version__

if TYPE_CHECKING:
    from distributed import Client

    from scoremol.models.trained import TrainedModel

DASK_HINT = "pip install 'scoremol[dask]'"
MANIFEST = "manifest.json"
FORMAT_NAME = "scoremol-shards"
FORMAT_VERSION = 1
#: Key of a part file's Parquet metadata: run id, shard, rows, predicted, first chunk's columns.
PART_KEY = b"scoremol"
#: Seconds between manifest rewrites while shards finish (it is always written at the end).
MANIFEST_EVERY_S = 2.0


def require_dask() -> None:
    """Fail with a one-line hint when the optional Dask extra is not installed."""
    try:
        import distributed  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ScoremolError(
            f"distributed prediction needs Dask and pyarrow ({exc.name} is missing): {DASK_HINT}"
        ) from None


# -- on the workers -------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardSettings:
    """How every shard is predicted (the same for all shards of a run)."""

    chunk_size: int = 2000
    batch_size: int = 128
    options: OutputOptions = field(default_factory=OutputOptions)
    network_only: bool = False


@dataclass(frozen=True)
class ShardResult:
    index: int
    rows: int
    predicted: int
    seconds: float = 0.0


#: The model each worker process serves, by (model hash, network only): loaded once.
_MODELS: dict[tuple[str, bool], TrainedModel] = {}
_MODELS_LOCK = threading.Lock()


def _reuse_freed_memory() -> None:
    """Let glibc keep and reuse freed blocks in this worker process.

    Dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also pins glibc's
    mmap threshold at 128 KiB: every tensor above that size (a batch's messages, the domain
    search's distance block) is then mapped, faulted in page by page and unmapped again.
    Measured on 1,000,000 SMILES with the fast model: a third of a worker's CPU time in the
    kernel, and 0.6x the local pool's throughput. A no-op where libc is not glibc.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks up to 32 MiB come from the heap
        libc.mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD: keep up to 128 MiB of freed heap
    except (OSError, AttributeError):
        pass


def _worker_model(data: bytes, key: str, network_only: bool) -> TrainedModel:
    with _MODELS_LOCK:  # a worker with several threads builds the model once
        model = _MODELS.get((key, network_only))
        if model is None:
            import torch

            _reuse_freed_memory()
            from scoremol.models.checkpoint import load_model_bytes

            torch.set_num_threads(1)  # one core per task: more threads would only compete
            model = load_model_bytes(data, f"model {key[:12]}")
            if network_only:
                model = model.without_tree()
            model.modules("cpu")
            _MODELS.clear()  # a worker serves one model at a time
            _MODELS[(key, network_only)] = model
        return model


def part_path(parts: str | Path, index: int) -> Path:
    return Path(parts) / f"shard-{index:06d}.parquet"


def predict_shard(
    model_bytes: bytes,
    model_key: str,
    plan: ShardPlan,
    shard: Shard,
    settings: ShardSettings,
    parts: str,
    run_id: str,
) -> ShardResult:
    """Predict one shard and write its rows to its part file (a Dask task)."""
    started = time.perf_counter()
    model = _worker_model(model_bytes, model_key, settings.network_only)
    vary = plan.kind == "sdf"  # SDF records carry different properties: columns may vary by chunk
    held: list[pd.DataFrame] = []
    first: list[str] | None = None
    rows = predicted = 0
    with atomic_write(part_path(parts, shard.index), "wb") as handle:
        sink = ParquetSink(handle)
        try:
            for chunk in iter_shard_chunks(plan, shard, settings.chunk_size):
                prediction = predict_part(model, chunk, settings.batch_size)
                frame = chunk_output(model, chunk, prediction, settings.options)
                first = first or list(frame.columns)
                rows += len(frame)
                predicted += sum(s == STATUS_OK for s in prediction.status)
                if vary:
                    held.append(frame)
                else:  # rows go to disk chunk by chunk: memory does not grow with the shard
                    sink.write(frame)
            if held:
                # every column of any chunk, so that the assembly can give each chunk exactly
                # the columns a single-machine run gives it
                columns = list(dict.fromkeys(c for f in held for c in f.columns))
                for frame in held:
                    sink.write(conform_columns(frame, columns))
            if rows == 0:
                sink.write(pd.DataFrame({"empty": pd.Series([], dtype=object)}))
            meta = {
                "run": run_id,
                "shard": shard.index,
                "rows": rows,
                "predicted": predicted,
                "first_columns": first or [],
            }
            sink.add_metadata({PART_KEY: json.dumps(meta).encode()})
        finally:
            sink.close()  # the footer; a failed shard's file is discarded whole by atomic_write
    return ShardResult(shard.index, rows, predicted, time.perf_counter() - started)


# -- the manifest ---------------------------------------------------------------------------


def input_identity(path: str) -> dict:
    """What identifies an input cheaply, even a huge one: path, size, mtime, first MiB."""
    stat = os.stat(path)
    with open(path, "rb") as handle:
        head = hashlib.sha256(handle.read(1 << 20)).hexdigest()
    return {"path": str(Path(path).resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "head_sha256": head}


def _write_manifest(path: Path, manifest: dict) -> None:
    with atomic_write(path, "w") as handle:
        json.dump(manifest, handle, indent=1)


def _read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ScoremolError(f"{path} is unreadable ({type(exc).__name__}); delete its folder to start over") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise ScoremolError(f"{path} is not a scoremol shard manifest")
    if int(manifest.get("format_version", 0)) > FORMAT_VERSION:
        raise ScoremolError(f"{path} was written by a newer scoremol ({manifest.get('scoremol_version')}); upgrade")
    return manifest


def _check_resumable(manifest: dict, identity: dict, model_sha: str, options: dict, parts: Path) -> None:
    """Refuse to mix the parts of another input, model or options into this output."""
    old = manifest["input"]
    differences = []
    if old["path"] != identity["path"]:
        differences.append(f"the input is {identity['path']}, was {old['path']}")
    elif (old["size"], old["mtime_ns"], old["head_sha256"]) != (
        identity["size"],
        identity["mtime_ns"],
        identity["head_sha256"],
    ):
        differences.append("the input file changed (size, time or content)")
    if manifest["model_sha256"] != model_sha:
        differences.append("the model differs")
    changed = [
        k for k in sorted(set(options) | set(manifest["options"])) if options.get(k) != manifest["options"].get(k)
    ]
    if changed:
        differences.append(
            "options differ: " + ", ".join(f"{k} {manifest['options'].get(k)!r} -> {options.get(k)!r}" for k in changed)
        )
    if differences:
        raise ScoremolError(
            f"cannot resume from {parts}: {'; '.join(differences)} "
            "(rerun as before, or delete the folder to start over)"
        )


def _finished_parts(parts: Path, plan: ShardPlan, run_id: str) -> dict[int, ShardResult]:
    """Shards of this run whose part file is in place (a part is only ever whole)."""
    pq = parquet_module()
    done = {}
    for shard in plan.shards:
        path = part_path(parts, shard.index)
        if not path.is_file():
            continue
        try:
            meta = json.loads(pq.read_metadata(path).metadata[PART_KEY])
        except Exception:  # unreadable or foreign: compute the shard again
            continue
        if meta.get("run") == run_id and meta.get("shard") == shard.index:
            done[shard.index] = ShardResult(shard.index, int(meta["rows"]), int(meta["predicted"]))
    return done


def remove_parts(parts: str | Path) -> None:
    """Delete a run's part files and manifest (and the folder, if nothing else is in it)."""
    folder = Path(parts)
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        name = path.name
        ours = (name.startswith("shard-") and name.endswith(".parquet")) or name == MANIFEST
        leftover = name.startswith((".shard-", f".{MANIFEST}.")) and name.endswith(".part")  # a killed write
        if path.is_file() and (ours or leftover):
            path.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()


# -- on the client --------------------------------------------------------------------------


@dataclass
class DistributedSummary(PredictSummary):
    """Rows and predictions written, and which shards this run computed (the others came
    from the parts of an interrupted run)."""

    shards: int = 0
    computed: list[int] = field(default_factory=list)
    parts: str = ""


def _write_part(path: Path, sink: FrameSink, columns: list[str] | None) -> list[str]:
    """Append one part's rows to ``sink`` with the run's columns (the first chunk's)."""
    pq = parquet_module()
    parquet = pq.ParquetFile(path)
    meta = json.loads(parquet.metadata.metadata[PART_KEY])
    columns = columns if columns is not None else meta["first_columns"]
    for group in range(parquet.num_row_groups):
        frame = parquet.read_row_group(group, use_threads=False).to_pandas()
        if len(frame):
            sink.write(conform_columns(frame, columns))
    return columns


def predict_distributed(
    client: Client,
    model_path: str | Path,
    path: str,
    out: TextIO | FrameSink,
    parts: str | Path,
    smiles_col: str | None = None,
    fmt: str | None = None,
    chunk_size: int = 2000,
    batch_size: int | None = None,
    options: OutputOptions | None = None,
    network_only: bool = False,
    shard_size: str | int | None = None,
    resume: bool = False,
    on_shard: Callable[[int, int, int, int], None] | None = None,
) -> DistributedSummary:
    """Predict every row of ``path`` on ``client``'s cluster and write it to ``out`` (CSV
    text, or a :class:`~scoremol.inference.output.FrameSink`) in input order.

    ``parts`` holds the part files and the manifest (kept afterwards: see
    :func:`remove_parts`); ``resume`` continues an interrupted run there. ``on_shard(done,
    total, rows, predicted)`` is called as shards finish (rows: those computed this run).
    """
    require_dask()
    options = options or OutputOptions()
    sink = as_sink(out)
    model_bytes = Path(model_path).read_bytes()
    model_sha = hashlib.sha256(model_bytes).hexdigest()
    size = parse_shard_size(shard_size)
    settings = ShardSettings(chunk_size, batch_size or default_batch_size("cpu"), options, network_only)
    identity = input_identity(path) if path != "-" else {}
    wanted = {
        "smiles_col": smiles_col,
        "format": fmt,
        "chunk_size": chunk_size,
        "shard_size": "auto" if shard_size is None else str(size),
        "coverage": options.coverage,
        "threshold": options.threshold,
        "legacy_names": options.legacy_names,
        "network_only": network_only,
    }
    parts = Path(parts)
    manifest_path = parts / MANIFEST
    if manifest_path.exists():
        if not resume:
            raise ScoremolError(
                f"{parts} holds the shards of an earlier run: resume it (--resume), or delete the folder to start over"
            )
        manifest = _read_manifest(manifest_path)
        _check_resumable(manifest, identity, model_sha, wanted, parts)
        plan = ShardPlan.from_dict(manifest["plan"])
    else:
        # the default size gives each worker thread a few shards even on a small input
        min_shards = 4 * _threads(client) if shard_size is None else 0
        plan = plan_shards(path, fmt, smiles_col, size, chunk_size, min_shards)
        manifest = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "scoremol_version": __version__,
            "run": uuid.uuid4().hex,
            "input": identity,
            "model_sha256": model_sha,
            "options": wanted,
            "plan": plan.to_dict(),
            "done": {},
        }
        parts.mkdir(parents=True, exist_ok=True)
        _write_manifest(manifest_path, manifest)
    run_id = manifest["run"]
    finished = _finished_parts(parts, plan, run_id)
    summary = DistributedSummary(shards=len(plan.shards), parts=str(parts))
    bare = replace(plan, shards=())  # what a task needs of the plan besides its own shard
    pending: dict = {}
    state = {"next": 0, "columns": None, "flushed": time.monotonic()}

    def flush_manifest(force: bool = False) -> None:
        if force or time.monotonic() - state["flushed"] >= MANIFEST_EVERY_S:
            manifest["done"] = {str(i): [r.rows, r.predicted] for i, r in sorted(finished.items())}
            _write_manifest(manifest_path, manifest)
            state["flushed"] = time.monotonic()

    def write_ready() -> None:
        while state["next"] in finished:
            index = state["next"]
            state["columns"] = _write_part(part_path(parts, index), sink, state["columns"])
            summary.rows += finished[index].rows
            summary.predicted += finished[index].predicted
            state["next"] += 1

    try:
        write_ready()
        todo = [s for s in plan.shards if s.index not in finished]
        if todo:
            from distributed import as_completed

            model_future = client.scatter(model_bytes, broadcast=True, hash=False)
            token = uuid.uuid4().hex[:8]
            for shard in todo:
                future = client.submit(
                    predict_shard,
                    model_future,
                    model_sha,
                    bare,
                    shard,
                    settings,
                    str(parts),
                    run_id,
                    key=f"scoremol-shard-{shard.index:06d}-{token}",
                )
                pending[future.key] = (future, shard.index)
            rows = predicted = 0
            for future in as_completed([f for f, _ in pending.values()]):
                result = _result(future, pending[future.key][1])
                del pending[future.key]
                finished[result.index] = result
                summary.computed.append(result.index)
                rows += result.rows
                predicted += result.predicted
                flush_manifest()
                write_ready()
                if on_shard is not None:
                    on_shard(len(finished), len(plan.shards), rows, predicted)
        write_ready()
    finally:
        if pending:
            client.cancel([f for f, _ in pending.values()])
        flush_manifest(force=True)
        sink.close()
    summary.computed.sort()
    if summary.rows == 0:
        raise ScoremolError(f"no data rows in {path}")
    return summary


def _threads(client: Client) -> int:
    """Worker threads of the cluster now (at least 1: workers may still be on their way)."""
    return max(1, sum(client.nthreads().values()))


def _result(future, index: int) -> ShardResult:
    """A finished shard's result; a shard that keeps killing its worker is a one-line error."""
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker:
        raise ScoremolError(
            f"shard {index} was lost with its worker several times (out of memory?): lower --shard-size "
            "or --chunk-size and --resume"
        ) from None


@contextlib.contextmanager
def dask_client(scheduler: str, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler`` (``tcp://HOST:PORT``), or of a new
    LocalCluster on this machine for ``"local"``: ``workers`` processes (default: one per
    CPU) of one thread each, every port on the loopback interface only."""
    require_dask()
    import logging

    from distributed import Client, LocalCluster

    if scheduler != "local":
        if workers is not None:
            raise ScoremolError("workers sizes a local cluster; a scheduler's cluster has its own workers")
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise ScoremolError(f"cannot reach the Dask scheduler at {scheduler} ({exc})".splitlines()[0]) from None
        try:
            yield client
        finally:
            client.close()
        return
    from scoremol.featurizers.parallel import default_workers

    cluster = LocalCluster(
        n_workers=workers or default_workers(),
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # the scheduler's HTTP server, with or without bokeh: loopback only
        silence_logs=logging.ERROR,
    )
    try:
        with Client(cluster) as client:
            yield client
    finally:
        cluster.close()


def _has_bokeh() -> bool:
    try:
        import bokeh  # noqa: F401
    except ImportError:
        return False
    return True


def dashboard_link(client: Client, local: bool = False) -> str | None:
    """The Dask dashboard's address, when the scheduler runs one (``local``: a cluster of
    this process, whose dashboard needs bokeh here)."""
    if local and not _has_bokeh():
        return None
    try:
        services = client.scheduler_info().get("services", {})
    except Exception:  # a scheduler that does not say: no link
        return None
    return client.dashboard_link if "dashboard" in services else None


def manifest_summary(parts: str | Path) -> dict:
    """The manifest of ``parts`` (for tools and tests)."""
    return _read_manifest(Path(parts) / MANIFEST)
