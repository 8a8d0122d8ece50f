"""Train the members of an ensemble side by side: one process per core, one thread each.

A small molecular GNN on a CPU gains almost nothing from a second torch thread (hidden 64:
0.123 s per ESOL epoch on one thread, 0.122 s on two), while two members in two processes
train in the time of one. One thread per process also keeps a fit from spinning against
other work on a shared machine: it slows in proportion to the cores it loses.

Every member is trained with the same thread count whatever the number of processes
(:func:`member_plan`), so the same seed on the same machine gives identical models.
Workers are forked: they inherit the prepared graphs without pickling them, and send back
each finished member and, on the way, every epoch record for the progress display.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, NamedTuple

import torch

from scoremol.pool import WorkerPool, worker_count

#: What the forked workers inherit: set just before the pool starts, cleared after.
_SHARED: dict[str, Any] = {}


class MemberPlan(NamedTuple):
    """How an ensemble is trained: ``processes`` at once, ``threads`` torch threads each."""

    processes: int
    threads: int


def member_plan(ensemble: int, device: str = "cpu", cpus: int | None = None) -> MemberPlan:
    """Processes and threads for ``ensemble`` members on this machine.

    One member per core while there are members for every core; a lone member (or a GPU,
    which forked processes cannot share) trains in this process with all the cores.
    """
    cpus = worker_count(cpus)
    if device != "cpu":
        return MemberPlan(1, torch.get_num_threads())
    processes = max(1, min(ensemble, cpus))
    return MemberPlan(processes, max(1, cpus // processes))


def _start(threads: int) -> None:
    torch.set_num_threads(threads)


def _train_remote(index: int) -> Any:
    fit, relay = _SHARED["fit"], _SHARED["relay"]
    return fit(_SHARED["jobs"][index], on_epoch=lambda member, record: relay.put((member, record)))


def train_members(
    fit: Callable[..., Any],
    jobs: list,
    plan: MemberPlan,
    on_epoch: Callable[[int, dict], None] | None = None,
) -> list[Any]:
    """``[fit(job, on_epoch=...) for job in jobs]``, in order, ``plan.processes`` at a time.

    ``fit`` and the objects in ``jobs`` reach forked workers by inheritance; the results
    (members) come back pickled. Epoch records are relayed to ``on_epoch`` in this
    process as they happen.
    """
    previous = torch.get_num_threads()
    if plan.processes <= 1 or len(jobs) <= 1:
        torch.set_num_threads(plan.threads)
        try:
            return [fit(job, on_epoch=on_epoch) for job in jobs]
        finally:
            torch.set_num_threads(previous)
    relay = multiprocessing.get_context("fork").SimpleQueue()
    _SHARED.update(fit=fit, jobs=jobs, relay=relay)  # inherited by fork, never pickled
    pool = WorkerPool(plan.processes, _start, (plan.threads,))
    try:
        futures: list[Future] = [pool.submit(_train_remote, k) for k in range(len(jobs))]
        pending = set(futures)
        while pending:
            _drain(relay, on_epoch)
            done, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()  # a worker's error surfaces here, at once
        _drain(relay, on_epoch)
        results = [f.result() for f in futures]
    except BaseException:
        # workers ignore Ctrl-C (the parent reports it): stop them now, not after a member
        pool.stop()
        _SHARED.clear()
        raise
    pool.shutdown()
    _SHARED.clear()
    return results


def _drain(relay, on_epoch: Callable[[int, dict], None] | None) -> None:
    try:
        while not relay.empty():
            member, record = relay.get()
            if on_epoch is not None:
                on_epoch(member, record)
    except (EOFError, OSError):  # a worker died mid-message: its future reports why
        pass
