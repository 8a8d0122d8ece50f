"""``scoremol report`` and ``scoremol explain``: what a chemist looks at beside the numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from scoremol.cli.app import app, info, load_requested
from scoremol.cli.options import dataclass_options
from scoremol.errors import ScoremolError
from scoremol.process import importing
from scoremol.report.request import ExplainRequest, ReportRequest


def write_and_tell(collector, path: Path, model, smiles_col: Optional[str], options) -> None:
    """Write a collected report and say what it holds."""
    limits = options.threshold_map(model.target_labels) if options is not None and model is not None else {}
    info(collector.write_report(path, model, smiles_col, limits).sentence())


@app.command()
@dataclass_options(request=ReportRequest)
def report(
    predictions: Annotated[Path, typer.Argument(help="A scoremol predict output (CSV or Parquet).")],
    *,
    request: ReportRequest,
) -> None:
    """Write the HTML report of an existing predict output.

    Nearest training molecules and atom maps come from --model, or from the default model
    when the file holds its columns.
    """
    from scoremol.data.destination import check_destination

    check_destination(request.output, "-o", reads=[predictions, request.model])
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.report.collect import ReportCollector

    trained = load_requested(request.model)[0]
    try:
        collector, trained = ReportCollector.of_file(
            predictions, trained, request.model is not None, request.report_rows
        )
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    write_and_tell(collector, request.output, trained, request.smiles_col, None)


@app.command()
@dataclass_options(request=ExplainRequest)
def explain(
    inputs: Annotated[list[str], typer.Argument(metavar="INPUT...", help="SMILES strings or a file of molecules.")],
    *,
    request: ExplainRequest,
) -> None:
    """Per-atom contributions to each prediction, as tables and maps.

    Per molecule molN.csv/.json and a map (molN.svg/.png); explanations.csv for every row.
    Each atom is removed in turn and the networks predict again; a blended tree's share,
    read from whole-molecule descriptors, is not given to atoms.
    """
    from scoremol.data.destination import check_destination

    check_destination(request.output_dir, "-o", reads=[*inputs, request.model], folder=True)
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.report.explain_files import explain_inputs

    trained = load_requested(request.model)[0]
    try:
        index, done, rows, label = explain_inputs(
            trained, inputs, request.smiles_col, request.task or 0, request.output_dir
        )
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    info(f"explained {done:,}/{rows:,} molecules ({label}): {index}")
