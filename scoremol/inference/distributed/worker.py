"""What a Dask worker runs: one shard in, one whole part file out."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from scoremol.data.atomic import atomic_write
from scoremol.featurizers.molecule import STATUS_OK
from scoremol.inference.output import ParquetSink
from scoremol.inference.predict import OutputOptions, chunk_output, conform_columns, predict_part
from scoremol.inference.shards import Shard, ShardPlan, iter_shard_chunks

if TYPE_CHECKING:
    from scoremol.models.trained import TrainedModel

#: Key of a part file's Parquet metadata: run id, shard, rows, predicted, first chunk's columns.
PART_KEY = b"scoremol"


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
