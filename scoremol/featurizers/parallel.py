"""Work on every core, chunk by chunk, in input order.

RDKit parsing and graph building are pure Python/C++ per molecule and hold the GIL, so
the only way to use more than one core is more than one process. Work goes out in chunks
(a few thousand rows), results come back in submission order, and at most a few chunks
are in flight, so memory stays bounded on screening-size inputs. Small inputs never start
a pool: starting workers costs more than featurizing a few thousand molecules.

The workers are a :class:`scoremol.pool.WorkerPool`. What a worker does is a
:class:`ChunkJob`: featurization (send back packed arrays), or for prediction on a CPU,
featurization and inference (send back predictions). Workers receive only what the job
needs (SMILES or parsed SDF records); the caller re-attaches the user's columns, so
output is identical to doing the work in one process.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import partial
from typing import Generic, TypeVar

import numpy as np
import pandas as pd

from scoremol.data.read import MoleculeChunk
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings, featurize_chunk
from scoremol.pool import WorkerPool, worker_count

Part = TypeVar("Part")
Result = TypeVar("Result")

#: Inputs with fewer rows than this are featurized in the calling process.
PARALLEL_MIN_ROWS = 4000
#: Rows per unit of work sent to a worker.
WORK_ROWS = 1000


def bare_chunk(chunk: MoleculeChunk) -> MoleculeChunk:
    """The chunk without its user columns: all a worker needs, cheap to send."""
    return MoleculeChunk(
        pd.DataFrame(index=range(len(chunk))), chunk.smiles, chunk.start, chunk.smiles_col, chunk.mols, chunk.errors
    )


def slice_chunk(chunk: MoleculeChunk, start: int, stop: int) -> MoleculeChunk:
    """Rows ``start:stop`` of ``chunk`` as a chunk of their own."""
    return MoleculeChunk(
        chunk.frame.iloc[start:stop],
        chunk.smiles[start:stop],
        chunk.start + start,
        chunk.smiles_col,
        None if chunk.mols is None else chunk.mols[start:stop],
        None if chunk.errors is None else chunk.errors[start:stop],
    )


def split_chunk(chunk: MoleculeChunk, rows: int) -> list[MoleculeChunk]:
    """Consecutive slices of ``chunk`` with at most ``rows`` rows each."""
    return [slice_chunk(chunk, s, min(s + rows, len(chunk))) for s in range(0, len(chunk), rows)]


def concat_row_indices(indices: list[np.ndarray], row_counts: list[int]) -> np.ndarray:
    """Row indices of consecutive slices (each local to its slice) as indices into the whole."""
    offsets = np.cumsum([0] + row_counts[:-1])
    return np.concatenate([i + o for i, o in zip(indices, offsets)]).astype(np.int64)


def concat_datasets(parts: list[FeaturizedDataset], table: pd.DataFrame) -> FeaturizedDataset:
    """Join featurized consecutive slices back into one data set over ``table``'s rows."""
    if len(parts) == 1:
        return replace(parts[0], table=table)
    atom_offsets = np.cumsum([0] + [int(p.atom_ptr[-1]) for p in parts[:-1]])
    edge_offsets = np.cumsum([0] + [int(p.edge_ptr[-1]) for p in parts[:-1]])
    descriptors = None
    if parts[0].descriptors is not None:
        descriptors = np.concatenate([p.descriptors for p in parts])
    return FeaturizedDataset(
        table=table,
        smiles_col=parts[0].smiles_col,
        status=[s for p in parts for s in p.status],
        reason=[r for p in parts for r in p.reason],
        settings=parts[0].settings,
        graph_row=concat_row_indices([p.graph_row for p in parts], [p.num_rows for p in parts]),
        x=np.concatenate([p.x for p in parts]),
        edge_index=np.concatenate([p.edge_index for p in parts], axis=1),
        edge_attr=np.concatenate([p.edge_attr for p in parts]),
        atom_ptr=np.concatenate([[0]] + [p.atom_ptr[1:] + o for p, o in zip(parts, atom_offsets)]).astype(np.int64),
        edge_ptr=np.concatenate([[0]] + [p.edge_ptr[1:] + o for p, o in zip(parts, edge_offsets)]).astype(np.int64),
        descriptors=descriptors,
    )


@dataclass(frozen=True)
class ChunkJob(Generic[Part, Result]):
    """What to do to every chunk, in this process or in worker processes.

    ``local(chunk)`` runs in this process (small inputs). In a pool, each worker runs
    ``initializer(*initargs)`` once, then ``remote(part)`` on slices of at most
    ``WORK_ROWS`` rows (stripped of user columns); ``combine(parts, chunk)`` joins a
    chunk's part results into what ``local`` would have returned. ``remote`` and
    ``initializer`` must be picklable (module-level functions, or partials of them).
    """

    local: Callable[[MoleculeChunk], Result]
    remote: Callable[[MoleculeChunk], Part]
    combine: Callable[[list[Part], MoleculeChunk], Result]
    initializer: Callable[..., None] | None = None
    initargs: tuple = ()


def iter_chunk_results(
    chunks: Iterable[MoleculeChunk],
    job: ChunkJob,
    workers: int | None = None,
    min_rows: int = PARALLEL_MIN_ROWS,
    ready: Iterable[tuple[MoleculeChunk, object]] = (),
) -> Iterator[tuple[MoleculeChunk, object]]:
    """``(chunk, result of job on it)`` for every chunk, in order.

    A pool starts only once more than ``min_rows`` rows have been seen, so a small input
    is processed in this process; up to ``2 * workers`` chunks are in flight, so the
    consumer (e.g. writing output) overlaps with the work on the next chunks.

    ``ready``: ``(chunk, result)`` pairs that come before ``chunks`` in the input and
    whose results this process makes itself (e.g. from a
    :class:`~scoremol.featurizers.head_start.HeadStart`'s features); a lazy iterable,
    consumed once the pool has its first work.
    """
    workers = worker_count(workers)
    iterator = iter(chunks)
    buffered: list[MoleculeChunk] = []
    seen = 0
    for chunk in iterator:
        buffered.append(chunk)
        seen += len(chunk)
        if workers > 1 and seen > min_rows:
            break
    else:  # the input fits under the threshold, or one worker: no pool
        yield from ready
        for chunk in _chain(buffered, iterator):
            yield chunk, job.local(chunk)
        return
    pending: deque[tuple[MoleculeChunk, list[Future]]] = deque()
    source = _chain(buffered, iterator)
    pool = WorkerPool(workers, job.initializer, job.initargs)
    try:

        def submit(chunk: MoleculeChunk) -> None:
            pending.append((chunk, [pool.submit(job.remote, bare_chunk(p)) for p in split_chunk(chunk, WORK_ROWS)]))

        def fill() -> None:
            """Submit chunks until ``2 * workers`` are unfinished (or the input ends)."""
            while sum(not all(f.done() for f in parts) for _, parts in pending) < 2 * workers:
                chunk = next(source, None)
                if chunk is None:
                    return
                submit(chunk)

        fill()
        for item in ready:  # made here, while the pool keeps busy on the next chunks
            yield item
            fill()
        for chunk in source:
            done, parts = pending.popleft()
            yield done, job.combine([f.result() for f in parts], done)
            submit(chunk)
        while pending:
            done, parts = pending.popleft()
            yield done, job.combine([f.result() for f in parts], done)
    finally:  # also on an interrupt or when the consumer stops early (`| head`)
        pool.shutdown(cancel=True)


def _chain(first: list[MoleculeChunk], rest: Iterator[MoleculeChunk]) -> Iterator[MoleculeChunk]:
    yield from first
    yield from rest


def featurization_job(settings: FeaturizerSettings) -> ChunkJob:
    """Featurize every chunk (results: :class:`FeaturizedDataset` over the chunk's rows)."""
    work = partial(featurize_chunk, settings=settings)
    return ChunkJob(local=work, remote=work, combine=lambda parts, chunk: concat_datasets(parts, chunk.frame))


def iter_featurized(
    chunks: Iterable[MoleculeChunk],
    settings: FeaturizerSettings,
    workers: int | None = None,
    min_rows: int = PARALLEL_MIN_ROWS,
) -> Iterator[tuple[MoleculeChunk, FeaturizedDataset]]:
    """``(chunk, featurized chunk)`` for every chunk, in order (see :func:`iter_chunk_results`)."""
    return iter_chunk_results(chunks, featurization_job(settings), workers, min_rows)


def featurize_all(
    chunk: MoleculeChunk, settings: FeaturizerSettings, workers: int | None = None, min_rows: int = PARALLEL_MIN_ROWS
) -> FeaturizedDataset:
    """Featurize one (possibly large) chunk, in parallel when it is large enough."""
    workers = worker_count(workers)
    if workers == 1 or len(chunk) <= min_rows:
        return featurize_chunk(chunk, settings)
    parts = [data for _, data in iter_featurized(split_chunk(chunk, WORK_ROWS), settings, workers, min_rows=0)]
    return concat_datasets(parts, chunk.frame)
