"""The ``scoremol`` command line: thin Typer commands over the library, one module each.

Data goes to standard output, messages and progress to standard error. A user error
(:class:`~scoremol.errors.ScoremolError`) prints one line and exits 1; ``-v`` shows the traceback.
"""

from scoremol.cli import cv, featurize, models, predict, report, train  # noqa: F401  (registers the commands)
from scoremol.cli.app import app, main

__all__ = ["app", "main"]
