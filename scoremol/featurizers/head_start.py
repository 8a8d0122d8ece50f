"""Featurize an input's first rows while the calling process is still importing torch.

``scoremol predict`` spends its first second or so importing torch and loading the model
on one core, while the other cores wait. A :class:`HeadStart` forks one helper process
before that import (the helper never loads torch): it featurizes the first rows of the
input, a unit of :data:`HEAD_UNIT_ROWS` rows at a time, until the caller is ready. The
caller then predicts those units from their features itself, and sends every later row
to the worker pool as usual (:func:`scoremol.featurizers.parallel.iter_chunk_results`),
so the work starts about a second sooner on a multi-core machine.

The helper claims each unit before featurizing it, so when the caller stops it every row
belongs to exactly one side: the units claimed (the helper finishes them) or the rest
(the pool). A helper that dies leaves its unfinished units to this process. Features are
identical with or without a head start; predictions are the same to float rounding (the
last of six digits, now and then), as between any two groupings of rows into batches.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Iterator
from itertools import chain

from scoremol.data.read import MoleculeChunk
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings, featurize_chunk
from scoremol.featurizers.parallel import PARALLEL_MIN_ROWS, bare_chunk, slice_chunk, split_chunk
from scoremol.pool import signals_held, start_worker

#: Rows per unit the helper featurizes (small, so stopping it waits little).
HEAD_UNIT_ROWS = 250
#: Rows read ahead for the helper: more than it featurizes while torch imports (about
#: 5,000 drug-like molecules a second without descriptors).
HEAD_ROWS = 10_000


class HeadStart:
    """A helper featurizing ``chunks``' first rows; :meth:`finish` hands them over.

    No helper starts for an input of at most ``min_rows`` rows (the work is too small to
    share) or with one worker; then every chunk is handed back untouched. ``source``: what
    the chunks were read from and how, for callers to check that they continue the same
    input.
    """

    def __init__(
        self,
        chunks: Iterator[MoleculeChunk],
        settings: FeaturizerSettings,
        workers: int,
        rows: int = HEAD_ROWS,
        unit_rows: int = HEAD_UNIT_ROWS,
        min_rows: int = PARALLEL_MIN_ROWS,
        source: tuple = (),
    ) -> None:
        self.settings = settings
        self.source = source  # how the caller read ``chunks`` (to check a later reader matches)
        self._chunks = chunks
        self._buffered: list[MoleculeChunk] = []
        seen = 0
        for chunk in chunks:
            self._buffered.append(chunk)
            seen += len(chunk)
            if seen >= rows:
                break
        self._units: list[MoleculeChunk] = []
        self._process: multiprocessing.process.BaseProcess | None = None
        if workers > 1 and seen > min_rows:
            self._units = [u for c in self._buffered for u in split_chunk(c, unit_rows)]
            self._start()

    @property
    def started(self) -> bool:
        return self._process is not None

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        self._claimed = context.Value("i", 0)  # units the helper has taken (-1 - n once stopped)
        self._results, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_featurize_units,
            args=([bare_chunk(u) for u in self._units], self.settings, self._claimed, sending, self._results),
            daemon=True,
        )
        with signals_held():
            self._process.start()
        sending.close()  # the helper holds the only sending end: its exit ends the stream

    def finish(
        self, settings: FeaturizerSettings
    ) -> tuple[Iterator[tuple[MoleculeChunk, FeaturizedDataset]], Iterator[MoleculeChunk]]:
        """Stop the helper: ``(the helper's units with their features, the remaining chunks)``.

        The units come first in input order, then the remaining chunks. Features arrive as
        the first iterator is consumed (the helper may still be finishing its last unit),
        so start the other work before reading it. They are for ``settings`` (the
        model's); when the helper featurized for other settings its work is dropped and
        every row comes back as a chunk.
        """
        if self._process is None:
            return iter(()), chain(self._buffered, self._chunks)
        with self._claimed.get_lock():
            taken = self._claimed.value
            self._claimed.value = -1 - taken  # the helper claims nothing more
        if settings != self.settings:
            taken = 0
        units = self._units[:taken]
        done_rows = sum(len(u) for u in units)
        return self._receive(units), chain(_rows_after(self._buffered, done_rows), self._chunks)

    def _receive(self, units: list[MoleculeChunk]) -> Iterator[tuple[MoleculeChunk, FeaturizedDataset]]:
        """``(unit, its features)`` for ``units``, in order, from the helper; those it never
        sent (it died) are featurized here. The helper is ended after the last."""
        helper_alive = True
        for unit in units:
            data = None
            if helper_alive:
                try:
                    data = self._results.recv()
                except (EOFError, OSError):  # the helper ended before sending this unit
                    helper_alive = False
            yield unit, data if data is not None else featurize_chunk(bare_chunk(unit), self.settings)
        self.close()

    def close(self) -> None:
        """End the helper now (safe to call twice); unclaimed units were never started.

        Closed right after it started, the helper may not yet have its own SIGTERM handler
        (it inherits one that only notes the signal, see :func:`scoremol.pool.signals_held`).
        So it is also told to claim nothing more, and its pipe is closed (a send then
        fails): it ends by itself within a unit.
        """
        if self._process is None:
            return
        with self._claimed.get_lock():
            if self._claimed.value >= 0:
                self._claimed.value = -1 - self._claimed.value
        self._results.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()


def _rows_after(chunks: list[MoleculeChunk], rows: int) -> Iterator[MoleculeChunk]:
    """``chunks`` without their first ``rows`` rows (a chunk split where they end)."""
    for chunk in chunks:
        if rows >= len(chunk):
            rows -= len(chunk)
            continue
        yield slice_chunk(chunk, rows, len(chunk)) if rows else chunk
        rows = 0


def _featurize_units(units: list[MoleculeChunk], settings: FeaturizerSettings, claimed, results, inherited) -> None:
    """The helper: claim the next unit, featurize it, send it; stop when told, when done,
    or when the caller has gone (it exits at once on Ctrl-C while importing torch).

    A thread sends, so featurizing goes on while the caller, busy importing, has not yet
    read what was sent before. ``inherited`` is the caller's receiving end, closed here:
    with the caller gone, a send then fails instead of waiting for a reader forever.
    """
    start_worker(None, ())
    inherited.close()
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(outbox, results), daemon=True)
    sender.start()
    caller = os.getppid()
    while os.getppid() == caller:
        with claimed.get_lock():
            i = claimed.value
            if i < 0 or i >= len(units):
                break
            claimed.value = i + 1
        outbox.put(featurize_chunk(units[i], settings))
    outbox.put(None)
    if os.getppid() == caller:
        sender.join()  # everything claimed reaches the caller


def _send_all(outbox: queue.SimpleQueue, results) -> None:
    while (item := outbox.get()) is not None:
        try:
            results.send(item)
        except OSError:  # the caller has gone
            return
