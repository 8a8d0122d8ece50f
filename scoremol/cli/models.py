"""``scoremol models``: the bundled models, to choose one for ``predict --model``."""

from __future__ import annotations

from rich.console import Console

from scoremol.cli.app import app


@app.command()
def models() -> None:
    """List the bundled models: name, training data, accuracy, speed, file size."""
    from scoremol.report.console import models_tables

    for table in models_tables():
        Console().print(table)  # data: standard output, at the terminal's width
