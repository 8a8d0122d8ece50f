"""``scoremol models``: the bundled models, to choose one for ``predict --model``."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from scoremol.cli.app import app


@app.command()
def models() -> None:
    """List the bundled models: name, training data, accuracy, speed, file size."""
    from scoremol.pretrained import DEFAULT_MODEL, MODELS

    table = Table(title="bundled models (predict --model NAME)")
    for column in ("name", "model", "trained on", "benchmark", "speed (2 CPU cores)", "file"):
        table.add_column(column)
    for m in MODELS.values():
        size = f"{m.path.stat().st_size / 1e6:.1f} MB" if m.path.is_file() else "missing"
        name = f"{m.name} (default)" if m.name == DEFAULT_MODEL else m.name
        table.add_row(name, m.description, m.training_data, m.benchmark, m.speed, size)
    Console().print(table)  # data: standard output, at the terminal's width
    for m in MODELS.values():
        if m.tasks:
            tasks = Table(title=f"{m.name}: one column group per task")
            for column in ("column", "answers", "benchmark"):
                tasks.add_column(column)
            for task in m.tasks:
                tasks.add_row(task.column, task.question, task.benchmark)
            Console().print(tasks)
