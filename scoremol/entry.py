"""The console entry point, kept free of heavy imports.

Importing the command line pulls in torch and PyTorch Geometric (seconds). A Ctrl-C in
that window must still end with the one-line message and status 130, not a traceback.
"""

from __future__ import annotations

import os
import sys


def exit_interrupted(message: str, code: int) -> None:
    """Report an interrupt and exit with ``code``, always.

    ``sys.exit`` is not enough: when Ctrl-C lands inside certain imports, CPython marks the
    interrupt as unhandled and, at shutdown, kills the process with SIGINT (status -2)
    despite our exit code. ``finally`` blocks (atomic writes, the worker pool) have already
    run by the time the exception reaches the caller, so exiting at once loses nothing.
    """
    print(message, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream
            pass
    os._exit(code)


def run() -> None:
    """Import the command line, then run it; an interrupt during the import exits cleanly."""
    try:
        from scoremol.cli import main
    except KeyboardInterrupt:
        exit_interrupted("scoremol: interrupted", 130)
    main()
