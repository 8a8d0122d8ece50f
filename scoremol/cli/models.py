"""``scoremol models`` lists the bundled models; ``scoremol export`` writes one as ONNX."""

from __future__ import annotations

from rich.console import Console

from scoremol.cli.app import app, info, load_requested
from scoremol.cli.options import dataclass_options
from scoremol.models.request import ExportRequest
from scoremol.process import importing


@app.command()
def models() -> None:
    """List the bundled models: name, training data, accuracy, speed, file size."""
    from scoremol.report.console import models_tables

    for table in models_tables():
        Console().print(table)  # data: standard output, at the terminal's width


@app.command()
@dataclass_options(request=ExportRequest)
def export(*, request: ExportRequest) -> None:
    """Write a model's networks and blended trees as ONNX files, each checked against PyTorch or CatBoost."""
    from scoremol.data.destination import check_destination

    check_destination(request.output_dir, "-o", reads=[request.model], folder=True)
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.models.onnx import export_onnx

    done = export_onnx(load_requested(request.model)[0], request.output_dir)
    info(f"wrote {len(done.trees) + 1} ONNX file(s) and {done.sidecar} (max difference {done.max_difference:.1e})")
