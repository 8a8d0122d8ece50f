"""The client side of a distributed run: plan the shards, submit them, and write the
output from their part files in shard order as they finish."""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from scoremol.data.parquet import parquet_module
from scoremol.errors import ScoremolError
from scoremol.inference.distributed.cluster import cluster_threads, dashboard_link, dask_client, require_dask
from scoremol.inference.distributed.manifest import (
    check_resumable,
    finished_parts,
    input_identity,
    new_manifest,
    read_manifest,
    remove_parts,
    write_manifest,
)
from scoremol.inference.distributed.request import DistributedRequest
from scoremol.inference.distributed.worker import PART_KEY, ShardResult, ShardSettings, part_path, predict_shard
from scoremol.inference.output import FrameSink, as_sink, open_output
from scoremol.inference.predict import OutputOptions, PredictSummary, conform_columns, default_batch_size
from scoremol.inference.shards import ShardPlan, parse_shard_size, plan_shards

if TYPE_CHECKING:
    from distributed import Client

#: Seconds between manifest rewrites while shards finish (it is always written at the end).
MANIFEST_EVERY_S = 2.0


@dataclass
class DistributedSummary(PredictSummary):
    """Rows and predictions written, and which shards this run computed (the others came
    from the parts of an interrupted run)."""

    shards: int = 0
    computed: list[int] = field(default_factory=list)
    parts: str = ""

    def where(self, resumed: bool = False) -> str:
        reused = self.shards - len(self.computed)
        spread = f" in {self.shards:,} shard{'s' if self.shards != 1 else ''}"
        return spread + (f"; {reused:,} shards reused from {self.parts}" if resumed else "")


class _Assembly:
    """Writes finished shards to the output in shard order, and keeps the manifest's list
    of finished shards current (at most every :data:`MANIFEST_EVERY_S` seconds)."""

    def __init__(self, parts: Path, manifest: dict, finished: dict[int, ShardResult], sink: FrameSink) -> None:
        self.parts, self.manifest, self.finished, self.sink = parts, manifest, finished, sink
        self.next = 0
        self.columns: list[str] | None = None  # the run's columns: the first chunk's
        self.flushed = time.monotonic()
        self.summary = DistributedSummary(shards=len(manifest["plan"]["shards"]), parts=str(parts))

    def add(self, result: ShardResult) -> None:
        self.finished[result.index] = result
        self.summary.computed.append(result.index)
        if time.monotonic() - self.flushed >= MANIFEST_EVERY_S:
            self.save_manifest()
        self.write_ready()

    def write_ready(self) -> None:
        """Append every finished shard that is next in order."""
        while self.next in self.finished:
            self._write_part(part_path(self.parts, self.next))
            result = self.finished[self.next]
            self.summary.rows += result.rows
            self.summary.predicted += result.predicted
            self.next += 1

    def _write_part(self, path: Path) -> None:
        parquet = parquet_module().ParquetFile(path)
        if self.columns is None:
            self.columns = json.loads(parquet.metadata.metadata[PART_KEY])["first_columns"]
        for group in range(parquet.num_row_groups):
            frame = parquet.read_row_group(group, use_threads=False).to_pandas()
            if len(frame):
                self.sink.write(conform_columns(frame, self.columns))

    def save_manifest(self) -> None:
        write_manifest(self.parts, self.manifest, self.finished)
        self.flushed = time.monotonic()


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
    if (parts / "manifest.json").exists():
        if not resume:
            raise ScoremolError(
                f"{parts} holds the shards of an earlier run: resume it (--resume), or delete the folder to start over"
            )
        manifest = read_manifest(parts)
        check_resumable(manifest, identity, model_sha, wanted, parts)
        plan = ShardPlan.from_dict(manifest["plan"])
    else:
        # the default size gives each worker thread a few shards even on a small input
        min_shards = 4 * cluster_threads(client) if shard_size is None else 0
        plan = plan_shards(path, fmt, smiles_col, size, chunk_size, min_shards)
        manifest = new_manifest(identity, model_sha, wanted, plan)
        parts.mkdir(parents=True, exist_ok=True)
        write_manifest(parts, manifest)
    assembly = _Assembly(parts, manifest, finished_parts(parts, plan, manifest["run"]), as_sink(out))
    bare = replace(plan, shards=())  # what a task needs of the plan besides its own shard
    pending: dict = {}
    try:
        assembly.write_ready()
        todo = [s for s in plan.shards if s.index not in assembly.finished]
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
                    manifest["run"],
                    key=f"scoremol-shard-{shard.index:06d}-{token}",
                )
                pending[future.key] = (future, shard.index)
            rows = predicted = 0
            for future in as_completed([f for f, _ in pending.values()]):
                result = _result(future, pending.pop(future.key)[1])
                assembly.add(result)
                rows += result.rows
                predicted += result.predicted
                if on_shard is not None:
                    on_shard(len(assembly.finished), len(plan.shards), rows, predicted)
        assembly.write_ready()
    finally:
        if pending:
            client.cancel([f for f, _ in pending.values()])
        assembly.save_manifest()
        assembly.sink.close()
    summary = assembly.summary
    summary.computed.sort()
    if summary.rows == 0:
        raise ScoremolError(f"no data rows in {path}")
    return summary


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


def predict_distributed_to(
    request: DistributedRequest,
    model_path: Path,
    path: str,
    output: Path | None,
    *,
    on_shard: Callable[[int, int, int, int], None] | None = None,
    on_dashboard: Callable[[str], None] | None = None,
    **settings,
) -> DistributedSummary:
    """Predict ``path`` on the cluster of ``request`` into ``output`` (standard output when
    None), written atomically; then drop the parts folder unless asked to keep it.
    ``settings``: those of :func:`predict_distributed`."""
    temporary = None
    parts_dir = request.parts_dir
    if parts_dir is None:
        if output is not None:
            parts_dir = output.with_name(output.name + ".parts")
        else:
            temporary = tempfile.TemporaryDirectory(prefix="scoremol-parts-")
            parts_dir = Path(temporary.name)
    try:
        with dask_client(request.scheduler or "local", request.workers) as client:
            link = dashboard_link(client, local=request.scheduler == "local")
            if link and on_dashboard is not None:
                on_dashboard(link)
            with open_output(output) as out:
                summary = predict_distributed(
                    client,
                    model_path,
                    path,
                    out,
                    parts=parts_dir,
                    resume=request.resume,
                    on_shard=on_shard,
                    **settings,
                )
        if not request.keep_parts:  # the output is in place: its parts are no longer needed
            remove_parts(parts_dir)
    finally:
        if temporary is not None:
            temporary.cleanup()
    return summary
