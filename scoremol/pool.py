"""The one process pool: forked workers that leave Ctrl-C to the parent and can be stopped.

RDKit featurization holds the GIL and a small GNN gains nothing from a second torch
thread, so scoremol uses more cores with more processes: feature and prediction chunks
(:mod:`scoremol.featurizers.parallel`) and ensemble members side by side
(:mod:`scoremol.training.members`) both run here. Workers are forked: they start in
milliseconds and inherit the parent's imports and objects without pickling them, the
trade-off torch's own DataLoader makes on Linux.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

#: Signals held while this process forks (see :func:`signals_held`).
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def default_workers() -> int:
    """Worker processes to use: the CPUs this process may run on (``SCOREMOL_WORKERS``
    overrides; 1 disables the pool)."""
    env = os.environ.get("SCOREMOL_WORKERS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(requested: int | None) -> int:
    """The processes to use for a ``workers`` argument: :func:`default_workers` for None, else at least 1."""
    return default_workers() if requested is None else max(1, requested)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while this process forks, and raise them right after.

    Right after a fork CPython runs at-fork callbacks (logging's lock release, among
    others), where an exception is printed as "ignored" and lost: a Ctrl-C landing in
    that instant was swallowed, and the command ran on to the end. Meanwhile the handlers
    only note the signal; once the fork is done the usual handlers are back and the noted
    signals are raised again. (Blocking the signal in this thread is not enough: numpy's
    and torch's threads would still take it.) Forked workers reset what they inherit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: noted.append(signum)) for s in HELD_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(noted):
            signal.raise_signal(s)


def start_worker(initializer: Callable[..., None] | None, initargs: tuple) -> None:
    """Workers leave Ctrl-C to the parent, which stops the pool and reports once; SIGTERM
    (held while forking, see :func:`signals_held`) ends a worker again."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


class WorkerPool:
    """``workers`` forked processes, each running ``initializer(*initargs)`` once.

    The processes start at the first :meth:`submit` (every one of them at once, under
    :func:`signals_held`); :meth:`stop` ends them without waiting for their jobs.
    """

    def __init__(self, workers: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=start_worker, initargs=(initializer, initargs)
        )
        self._before = set(multiprocessing.active_children())
        self._processes: list[multiprocessing.process.BaseProcess] | None = None

    def submit(self, fn: Callable, *args) -> Future:
        if self._processes is not None:
            return self._executor.submit(fn, *args)
        with signals_held():  # the first submit forks the workers
            future = self._executor.submit(fn, *args)
        self._processes = [p for p in multiprocessing.active_children() if p not in self._before]
        return future

    def shutdown(self, cancel: bool = False) -> None:
        """Wait for the workers to finish (``cancel``: the jobs not yet started are dropped)."""
        self._executor.shutdown(wait=True, cancel_futures=cancel)

    def stop(self, grace: float = 5.0) -> None:
        """End every worker now: SIGTERM first, SIGKILL for one that survives it (a worker
        forked a moment ago may still run the parent's signal handlers, which only note the
        signal), so a failed job never hangs on its workers."""
        for process in self._processes or []:
            process.terminate()
        for process in self._processes or []:
            process.join(grace)
            if process.is_alive():
                process.kill()
                process.join(grace)
        self._executor.shutdown(wait=False, cancel_futures=True)
