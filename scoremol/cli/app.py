"""The Typer application, its global options, messages on standard error, and error handling."""

from __future__ import annotations

import signal
import sys
from typing import Annotated

import typer
from rich.console import Console

from scoremol.errors import ScoremolError, describe_os_error
from scoremol.process import exit_interrupted
from scoremol.version import __version__


def _hide_flag_types() -> None:
    """Show no ``<bool>`` placeholder for on/off flags: they take no value, and the column
    it fills squeezes every description at 80 columns."""
    from typer.core import TyperOption

    show = TyperOption.display_type_rich
    TyperOption.display_type_rich = lambda self, ctx: None if self.is_flag else show(self, ctx)


_hide_flag_types()
app = typer.Typer(
    name="scoremol",
    help="Molecular property prediction with SCORE (contractive recurrent depth) graph neural networks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
state = {"verbose": False, "quiet": False}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scoremol {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show details and tracebacks.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors on standard error.")] = False,
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """scoremol: SMILES in, property predictions out."""
    state["verbose"], state["quiet"] = verbose, quiet
    console.quiet = quiet


def info(message: str) -> None:
    """A message for the user on standard error (silenced by --quiet)."""
    console.print(message, highlight=False)


class _Terminated(BaseException):
    """Raised by the SIGTERM handler so that ``finally`` blocks and atomic writes clean up."""


def _terminate(signum, frame) -> None:
    raise _Terminated()


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with -v."""
    signal.signal(signal.SIGTERM, _terminate)  # `kill`, job schedulers: clean up like Ctrl-C
    try:
        rc = app(standalone_mode=False)
        if rc == 130:  # Typer returns Ctrl-C as exit code 130 outside standalone mode
            raise KeyboardInterrupt
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except ScoremolError as exc:
        if state["verbose"]:
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
        if state["verbose"]:
            raise
        print(f"scoremol: error: {describe_os_error(exc)}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # usage errors from Typer's click layer, and anything unexpected
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a click UsageError/ClickException
            exc.show()
            sys.exit(exc.exit_code)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        if state["verbose"]:
            raise
        line = f"scoremol: error: {type(exc).__name__}: {exc}".splitlines()[0]
        print(f"{line} (run with -v for details)", file=sys.stderr)
        sys.exit(2)
