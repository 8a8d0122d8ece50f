"""The Typer application, its global options, messages on standard error, and error handling."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console

from scoremol.process import run_app
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


def load_requested(model, network_only: bool = False):
    """``(trained model, its path)`` for ``--model``: a file, a bundled name, or the default."""
    from scoremol.models.checkpoint import load_model
    from scoremol.pretrained import MODELS, resolve_model

    path, bundled = resolve_model(model)
    if bundled is not None:
        card = MODELS[bundled]
        info(f"using the bundled model {bundled!r} ({card.training_data}; {card.benchmark}); --model chooses another")
    trained = load_model(path)
    return (trained.without_tree() if network_only else trained), path


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with -v (see :func:`run_app`)."""
    run_app(lambda: app(standalone_mode=False), lambda: state["verbose"])
