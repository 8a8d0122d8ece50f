"""Check where a run will write before it starts, so that no work is lost and no input is overwritten.

An atomic write (:mod:`scoremol.data.atomic`) keeps a failed write from leaving half a
file, but it only fails once the work is done: a training run of many minutes then
loses its model to a typo in ``-o``. And it replaces whatever the path names, an input
included. :func:`check_destination` fails at once, with a one-line reason, where the
write would fail or destroy something the run reads or writes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from scoremol.errors import ScoremolError


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _nearest_folder(path: Path) -> Path:
    """The deepest existing ancestor of ``path`` (the folder a write would be made in)."""
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_destination(
    path: str | os.PathLike | None,
    option: str,
    reads: Iterable[str | os.PathLike | None] = (),
    other_outputs: Mapping[str, str | os.PathLike | None] | None = None,
    folder: bool = False,
) -> None:
    """Raise a one-line :class:`ScoremolError` when the run cannot or must not write ``path``.

    ``option``: how the user named the path (``-o``, ``--report``), for the message;
    ``reads``: what the run reads (files that do not exist, data set names and None are
    skipped); ``other_outputs``: the run's other outputs by option; ``folder``: the
    output is a folder of files. Nothing to check for None, ``-`` (standard output) or a
    device such as ``/dev/null``.
    """
    if path is None or str(path) == "-":
        return
    target = Path(path)
    if target.exists() and not target.is_file() and not target.is_dir():
        return  # /dev/null, a FIFO: written straight through
    if folder:
        if target.exists() and not target.is_dir():
            raise ScoremolError(f"{option} {path} is a file; give a folder for the output files")
    elif target.is_dir():
        raise ScoremolError(f"{option} {path} is a folder; give a file name")
    for read in reads:
        if read and _same_file(target, Path(read)):
            raise ScoremolError(f"{option} {path} is also what this run reads; write the output elsewhere")
    for other_option, other in (other_outputs or {}).items():
        if other is not None and str(other) != "-" and Path(other).absolute() == target.absolute():
            raise ScoremolError(f"{option} and {other_option} name the same file ({path}); give each its own")
    probe_in = target if folder and target.is_dir() else _nearest_folder(target)
    try:  # the write makes a temporary file beside the target: make one now
        fd, probe = tempfile.mkstemp(prefix=".scoremol-probe-", dir=probe_in)
    except OSError as exc:
        raise ScoremolError(f"cannot write {option} {path}: {exc.strerror or exc} ({probe_in})") from None
    os.close(fd)
    os.unlink(probe)
