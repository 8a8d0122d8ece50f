"""Atomic file writes: a file appears whole or not at all, even on Ctrl-C or a crash."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[io.IOBase]:
    """Open a temporary file beside ``path`` and move it into place only on success.

    An error or interrupt leaves any previous file untouched and no partial file behind.
    """
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/null, a FIFO: write straight through
        with open(target, mode, **kwargs) as handle:
            yield handle
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file normal permissions
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
