"""Process-wide helpers shared by the console entry point and the command line: when the
command started, and how an interrupted command exits (kept free of heavy imports)."""

from __future__ import annotations

import os
import sys
import time

#: When the command started (before the heavy imports), for wall times users can trust.
STARTED = time.perf_counter()


def flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing left to tell
            pass


def exit_interrupted(message: str, code: int) -> None:
    """Report an interrupt and exit with ``code``, always.

    ``sys.exit`` is not enough: when Ctrl-C lands inside certain imports, CPython marks the
    interrupt as unhandled and, at shutdown, kills the process with SIGINT (status -2)
    despite our exit code. ``finally`` blocks (atomic writes, the worker pool) have already
    run by the time the exception reaches the caller, so exiting at once loses nothing.
    """
    print(message, file=sys.stderr)
    flush_streams()
    os._exit(code)
