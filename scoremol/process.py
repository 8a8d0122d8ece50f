"""Process-wide helpers shared by the console entry point and the command line: when the
command started, how a command's errors and signals become messages and exit codes, and
how an interrupted command exits (kept free of heavy imports)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

#: When the command started (before the heavy imports), for wall times users can trust.
STARTED = time.perf_counter()


def flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing left to tell
            pass


#: files this process removes even when it exits at once (an output's lock), with the pid
#: that made each: a forked child exiting must not remove its parent's
_REMOVE_ON_EXIT: dict[str, int] = {}


def remove_on_exit(path: str | os.PathLike, remove: bool = True) -> None:
    """Have :func:`exit_interrupted` remove ``path`` (``remove=False``: no longer)."""
    if remove:
        _REMOVE_ON_EXIT[os.fspath(path)] = os.getpid()
    else:
        _REMOVE_ON_EXIT.pop(os.fspath(path), None)


def exit_interrupted(message: str, code: int) -> None:
    """Report an interrupt and exit with ``code``, always.

    ``sys.exit`` is not enough: when Ctrl-C lands inside certain imports, CPython marks the
    interrupt as unhandled and, at shutdown, kills the process with SIGINT (status -2)
    despite our exit code. ``finally`` blocks (atomic writes, the worker pool) have already
    run by the time the exception reaches the caller, so exiting at once loses nothing.
    """
    print(message, file=sys.stderr)
    flush_streams()
    for path, pid in list(_REMOVE_ON_EXIT.items()):
        if pid == os.getpid():
            with contextlib.suppress(OSError):
                os.unlink(path)
    os._exit(code)


class _Terminated(BaseException):
    """Raised by the SIGTERM handler so that ``finally`` blocks and atomic writes clean up."""


def _terminate(signum, frame) -> None:
    raise _Terminated()


def _exit_at_once(signum: int, frame: object) -> None:
    if signum == signal.SIGTERM:
        exit_interrupted("scoremol: terminated", 143)
    exit_interrupted("scoremol: interrupted", 130)


@contextlib.contextmanager
def importing() -> Iterator[None]:
    """Around a heavy import (torch, the command line): Ctrl-C or SIGTERM exits at once.

    An exception raised inside a C++ extension's import can abort the process (pybind11:
    status -6) or leave CPython to die by SIGINT after our message; before a command has
    written anything, exiting on the spot loses nothing. The previous handlers return after.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _exit_at_once) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_app(run: Callable[[], object], verbose: Callable[[], bool]) -> None:
    """Run a command (``run``: the Typer app outside standalone mode) as the console does:
    a user error or an OS error is one line and status 1, Ctrl-C 130, SIGTERM 143, a closed
    pipe a quiet 0, a usage error click's message and status 2, anything unexpected one line
    and status 2; ``verbose()`` true re-raises for the traceback."""
    import typer

    from scoremol.errors import ScoremolError, describe_os_error

    signal.signal(signal.SIGTERM, _terminate)  # `kill`, job schedulers: clean up like Ctrl-C
    try:
        rc = run()
        if rc == 130:  # Typer returns Ctrl-C as exit code 130 outside standalone mode
            raise KeyboardInterrupt
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except ScoremolError as exc:
        if verbose():
            raise
        print(f"scoremol: error: {exc}", file=sys.stderr)
        sys.exit(1)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code or 0)
    except KeyboardInterrupt:
        exit_interrupted("scoremol: interrupted", 130)
    except _Terminated:
        exit_interrupted("scoremol: terminated", 143)
    except BrokenPipeError:  # `scoremol predict ... | head`: the reader has what it wanted
        sys.exit(0)
    except OSError as exc:
        if verbose():
            raise
        print(f"scoremol: error: {describe_os_error(exc)}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # usage errors from Typer's click layer, and anything unexpected
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a click UsageError/ClickException
            exc.show()
            sys.exit(exc.exit_code)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        if verbose():
            raise
        line = f"scoremol: error: {type(exc).__name__}: {exc}".splitlines()[0]
        print(f"{line} (run with -v for details)", file=sys.stderr)
        sys.exit(2)
