"""One writer per output: an OS lock held while a run writes a file (or its parts folder).

The lock is ``flock`` on a small file beside the output (``.NAME.lock``), holding the pid,
host and start time of the run that owns it, so a second run names it in its error. The
operating system releases the lock when its process ends, however it ends, so a crashed or
killed run never blocks the next one (``--resume`` included); a finishing run removes the
file. Locks are advisory and local: on a network file system that does not support
``flock``, two hosts are not kept apart.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scoremol.errors import ScoremolError
from scoremol.process import remove_on_exit

try:
    import fcntl
except ImportError:  # not a POSIX system: no locking
    fcntl = None


def lock_path(target: str | os.PathLike) -> Path:
    target = Path(target)
    return target.with_name(f".{target.name}.lock")


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        owner = json.loads(os.read(fd, 4096).decode() or "{}")
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner["started"]))
        return f"pid {owner['pid']} on {owner['host']}, since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that has just started"


@contextmanager
def output_lock(target: str | os.PathLike | None) -> Iterator[None]:
    """Hold ``target``'s lock while the block runs (nothing for None, standard output).

    A second run on the same ``target`` gets at once a one-line :class:`ScoremolError`
    naming the run that holds it.
    """
    if (
        target is None
        or fcntl is None
        or (Path(target).exists() and not Path(target).is_file() and not Path(target).is_dir())
    ):
        yield  # standard output, /dev/null, a FIFO: nothing to keep apart
        return
    path = lock_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise ScoremolError(
                f"{target} is being written by another scoremol run ({holder}); wait for it or write elsewhere"
            ) from None
        try:  # a finishing run removes the file: lock the one that is at the path now
            current = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if current:
            break
        os.close(fd)
    remove_on_exit(path)  # also when an interrupt during an import exits at once
    try:
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(owner).encode())
        yield
    finally:
        remove_on_exit(path, remove=False)
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)  # releases the lock
