"""Featurize the first rows of an input while this process imports torch.

``scoremol predict`` spends over a second importing torch and loading the model on one
core while the others wait; for 20,000 molecules on two cores that is a quarter of the
run. A process forked before torch is imported needs only RDKit and the model's featurizer
settings (read without torch by :mod:`scoremol.model_meta`), so it featurizes the input's
first chunks in that time. This process then predicts them while the worker pool takes the
rest. The results are the same as without it: the same chunks, by the same code, and they
are dropped unless the loaded model asks for exactly the settings they were made with.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path

import pandas as pd

from scoremol.dataset import FeaturizedDataset, FeaturizerSettings, featurize_chunk
from scoremol.io import iter_chunks
from scoremol.model_meta import prediction_featurizer, read_model_meta
from scoremol.parallel import (bare_chunk, concat_datasets, default_workers, release_signals, signals_held,
                               split_chunk)

#: At most this many rows are featurized ahead (bounded memory whatever the import takes).
HEAD_MAX_ROWS = 6_000
#: Rows featurized between looks at the stop signal: the parent waits for at most this
#: many (about 0.04 s).
SLICE_ROWS = 125
#: How long to wait, after the stop, for the first featurized chunk before giving up.
REPLY_TIMEOUT_S = 5.0


def _head_process(*args: object) -> None:
    """The forked process: Ctrl-C is the parent's to handle; then :func:`featurize_ahead`."""
    release_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    featurize_ahead(*args)


def featurize_ahead(writer: Connection, stop, parent: int, path: str, smiles_col: str | None, fmt: str | None,
                    chunk_size: int, settings: FeaturizerSettings) -> None:
    """Featurize chunks of ``path`` until ``stop`` is set (or ``HEAD_MAX_ROWS``), then send
    them through ``writer``, one data set per chunk; the last may be a prefix of its chunk."""
    done: list[tuple[int, FeaturizedDataset]] = []  # (chunk number, slice)
    rows = 0
    try:
        for number, chunk in enumerate(iter_chunks(path, smiles_col, fmt, chunk_size=chunk_size)):
            parts = split_chunk(chunk, SLICE_ROWS)
            for part in parts:
                if stop.is_set() or rows >= HEAD_MAX_ROWS:
                    break
                done.append((number, featurize_chunk(bare_chunk(part), settings)))
                rows += len(part)
            else:
                continue
            break
        # Send only once asked: the parent reads nothing while it imports torch, and a full
        # pipe would stall featurization. Slice by slice: small messages leave no large
        # buffers behind in the parent's heap (whole chunks cost it about twice their size).
        while not stop.wait(1.0):
            if os.getppid() != parent:  # the parent is gone
                return
        for item in done:
            writer.send(item)
    except Exception:  # the parent reads the same input itself and reports any problem
        pass
    finally:
        writer.close()


def join_slices(slices: list[tuple[int, FeaturizedDataset]]) -> deque[FeaturizedDataset]:
    """``(chunk number, slice)`` pairs, in order, as one data set per chunk."""
    by_chunk: dict[int, list[FeaturizedDataset]] = {}
    for number, data in slices:
        by_chunk.setdefault(number, []).append(data)
    return deque(concat_datasets(parts, pd.DataFrame(index=range(sum(d.num_rows for d in parts))))
                 for _, parts in sorted(by_chunk.items()))


class HeadStart:
    """A process featurizing the first chunks of an input; :meth:`take` collects them."""

    def __init__(self, process, reader: Connection, stop, settings: FeaturizerSettings) -> None:
        self._process = process
        self._reader = reader
        self._stop = stop
        self.settings = settings

    @classmethod
    def begin(cls, input: str, model: str | Path, network_only: bool = False, smiles_col: str | None = None,
              fmt: str | None = None, chunk_size: int = 2000, workers: int | None = None) -> HeadStart | None:
        """Start featurizing ``input`` for ``model``; None where it cannot help or cannot run
        (one worker, no ``fork``, a model file without readable metadata), and for anything
        but a regular file: standard input, a named pipe or ``<(...)`` can be read only
        once, so rows read there would be lost to this process."""
        workers = default_workers() if workers is None else workers
        if not os.path.isfile(input) or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            return None
        try:
            settings = prediction_featurizer(read_model_meta(model), network_only)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None  # load_model will say what is wrong with the file
        context = multiprocessing.get_context("fork")
        reader, writer = context.Pipe(duplex=False)
        stop = context.Event()
        for stream in (sys.stdout, sys.stderr):  # nothing buffered for the child to write twice
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        process = context.Process(target=_head_process, daemon=True, name="scoremol-head-start",
                                  args=(writer, stop, os.getpid(), input, smiles_col, fmt, chunk_size, settings))
        with signals_held():
            process.start()
        writer.close()  # only the child writes: its exit is our end of file
        return cls(process, reader, stop, settings)

    def take(self, settings: FeaturizerSettings) -> deque[FeaturizedDataset]:
        """Stop featurizing and return what is done, one data set per chunk from the first,
        the last possibly covering only the first rows of its chunk; none unless
        ``settings`` (those of the loaded model) are the ones they were made with."""
        self._stop.set()
        received: list[tuple[int, FeaturizedDataset]] = []
        try:
            if self._reader.poll(REPLY_TIMEOUT_S):
                while True:
                    received.append(self._reader.recv())
        except (EOFError, OSError):
            pass
        finally:
            self.close()
        return join_slices(received) if settings == self.settings else deque()

    def close(self) -> None:
        """End the child (if still running) and release the pipe."""
        self._stop.set()
        self._reader.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(timeout=5)
