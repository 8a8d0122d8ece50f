"""The console entry point, kept free of heavy imports.

Importing the command line is light (torch loads inside the commands that need it, see
:func:`scoremol.process.importing`), but a Ctrl-C in that window must still end with the
one-line message and status 130, not a traceback.

A finished command also leaves quickly: once its work is done and its files are closed,
tearing down the interpreter (freeing every torch, pandas and RDKit module object one by
one) costs about 0.7 s that nobody waits for usefully, a tenth of a 20,000-molecule
prediction. :func:`fast_exit` runs the exit handlers and flushes the streams, then skips
that teardown, as worker processes started by ``multiprocessing`` always do.
"""

from __future__ import annotations

import atexit
import os
import sys

from scoremol.process import exit_interrupted, flush_streams, importing


def exit_code(code: object) -> int:
    """The process status ``sys.exit(code)`` would give (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def fast_exit(code: object) -> None:
    """Exit with ``code`` after the ``atexit`` handlers and a flush, without interpreter teardown.

    Every file the commands write is closed by a ``with`` block before they return, so the
    teardown has nothing left to save; ``atexit`` handlers (temporary folders, logging) still run.
    """
    status = exit_code(code)
    atexit._run_exitfuncs()
    flush_streams()
    os._exit(status)


def run() -> None:
    """Import the command line, then run it; an interrupt during the import exits cleanly."""
    try:
        with importing():
            from scoremol.cli import main
    except KeyboardInterrupt:  # one that landed before the handler was set
        exit_interrupted("scoremol: interrupted", 130)
    code: object = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    fast_exit(code)  # outside the handler: the exception's frames are released first
