"""The Dask cluster a run uses: a scheduler's address, or a LocalCluster on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from scoremol.errors import ScoremolError

if TYPE_CHECKING:
    from distributed import Client

DASK_HINT = "pip install 'scoremol[dask]'"


def require_dask() -> None:
    """Fail with a one-line hint when the optional Dask extra is not installed."""
    try:
        import distributed  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ScoremolError(
            f"distributed prediction needs Dask and pyarrow ({exc.name} is missing): {DASK_HINT}"
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
    from scoremol.pool import default_workers

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


def cluster_threads(client: Client) -> int:
    """Worker threads of the cluster now (at least 1: workers may still be on their way)."""
    return max(1, sum(client.nthreads().values()))


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
