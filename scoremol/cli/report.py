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

    labels = model.target_labels if model is not None else []
    limits = options.thresholds(labels) if options is not None and labels else []
    threshold = {label: limit for label, limit in zip(labels, limits) if limit is not None}
    done = collector.write_report(path, model, smiles_col, threshold)
    s = done.summary
    info(
        f"report: {path} ({s.shown:,} of {s.rows:,} rows, {done.maps:,} atom maps, {s.bytes / 1e6:.1f} MB, "
        f"{done.seconds:.1f} s)"
    )


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
        from scoremol.report.html import ReportTask
        from scoremol.report.read import read_predictions

    chunks, found = read_predictions(predictions)
    labels = [t.label for t in found]
    trained = load_requested(request.model)[0]
    tasks = ReportTask.from_model(trained)
    if [t.label for t in tasks] != labels:
        if request.model is not None:
            raise ScoremolError(f"{predictions} holds {', '.join(labels)}; the model predicts those of its own")
        trained, tasks = None, found
    collector = ReportCollector(None, tasks, request.report_rows)
    for chunk in chunks:
        collector.write(chunk)
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
        from scoremol.data.read import read_input
        from scoremol.data.registry import resolve_prediction_inputs
        from scoremol.device import torch_threads
        from scoremol.inference.explain import atom_contributions, task_index
        from scoremol.report.collect import NAME_COLUMNS
        from scoremol.report.explain_files import write_explanations

    path, smiles = resolve_prediction_inputs(inputs)
    names = None
    if smiles is None:
        chunk = read_input(path, request.smiles_col)
        smiles = list(chunk.smiles)
        name = next((c for c in NAME_COLUMNS if c in chunk.frame.columns), None)
        names = chunk.frame[name].astype(str).tolist() if name else None
    trained = load_requested(request.model)[0]
    try:
        task = task_index(trained, request.task or 0)
        with torch_threads(1):  # many tiny forward passes: a second thread only spins
            items = atom_contributions(trained, smiles, task)
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    index = write_explanations(request.output_dir, items, names)
    done = sum(item.ok for item in items)
    info(f"explained {done:,}/{len(items):,} molecules ({trained.target_labels[task]}): {index}")
