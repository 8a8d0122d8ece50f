"""``scoremol predict``: every input row out, in order, with its prediction, status and reason."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from scoremol.cli.app import app, console, info, state
from scoremol.cli.options import INPUT, OUTPUT, RUN, Device, Format, ReportRows, SmilesCol, dataclass_options
from scoremol.errors import ScoremolError
from scoremol.inference.distributed.request import DistributedRequest
from scoremol.spec import DEFAULT_COVERAGE


@app.command()
@dataclass_options(DistributedRequest, "cluster")
def predict(
    inputs: Annotated[
        list[str],
        typer.Argument(
            metavar="INPUT...",
            help="CSV/TSV/SMI/SDF/Parquet file, a data set name, - for stdin, or SMILES strings.",
            show_default=False,
        ),
    ],
    model: Annotated[
        Optional[Path],
        typer.Option(
            "--model",
            "-m",
            help="Model file, or a bundled model (scoremol models): multitask (default), aqsoldb, fast, "
            "esol, esol-fast.",
            rich_help_panel=INPUT,
            show_default=False,
        ),
    ] = None,
    smiles_col: SmilesCol = None,
    fmt: Format = None,
    output: Annotated[
        Optional[Path],
        typer.Option(
            "--output",
            "-o",
            help="Write CSV here, or Parquet for a .parquet name (default: CSV on standard output).",
            rich_help_panel=OUTPUT,
            show_default=False,
        ),
    ] = None,
    legacy_names: Annotated[
        bool,
        typer.Option(
            "--legacy-names",
            help="Name prediction columns after the training column (scoremol 0.1) instead of "
            "<label>_pred, e.g. logS_pred in log10(mol/L).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    coverage: Annotated[
        float,
        typer.Option(
            "--coverage",
            min=0.01,
            max=0.99,
            help="Coverage of the <label>_lo/_hi interval: it holds the true value this often "
            "(calibrated on molecules held out in training).",
            rich_help_panel=OUTPUT,
        ),
    ] = DEFAULT_COVERAGE,
    threshold: Annotated[
        Optional[list[str]],
        typer.Option(
            "--threshold",
            help="Add <label>_p_below, the probability that the value is below this: T for the first "
            "target (--threshold -4: logS < -4, 'poorly soluble'), LABEL=T for another "
            "(--threshold logSol_pH6.8=1: below 10 ug/mL); repeatable.",
            rich_help_panel=OUTPUT,
            show_default=False,
        ),
    ] = None,
    ugml: Annotated[
        bool,
        typer.Option(
            "--ugml",
            help="Also give each solubility in ug/mL (<label>_ugml, with _ugml_lo/_ugml_hi), "
            "converted with the molar mass of the predicted form.",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    progress: Annotated[
        bool,
        typer.Option("--progress", help="Show progress even when stderr is not a terminal.", rich_help_panel=OUTPUT),
    ] = False,
    report: Annotated[
        Optional[Path],
        typer.Option(
            "--report",
            help="Also write an HTML report here: structures, intervals, nearest training molecules, atom maps "
            "(one file, opens offline).",
            rich_help_panel=OUTPUT,
            show_default=False,
        ),
    ] = None,
    report_rows: ReportRows = 1000,
    network_only: Annotated[
        bool,
        typer.Option(
            "--network-only",
            help="Skip a blended CatBoost model: several times faster, slightly less accurate.",
            rich_help_panel=RUN,
        ),
    ] = False,
    batch_size: Annotated[
        Optional[int],
        typer.Option(
            "--batch-size",
            min=1,
            help="Molecules per inference batch (default: 128 on a CPU, 256 on a GPU).",
            rich_help_panel=RUN,
            show_default=False,
        ),
    ] = None,
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", help="Rows read, predicted and written at a time.", rich_help_panel=RUN)
    ] = 2000,
    device: Device = "cpu",
    workers: Annotated[
        Optional[int],
        typer.Option(
            "--workers",
            min=1,
            help="Processes for large inputs (default: all CPUs; 1 = one process); with --scheduler "
            "local, the cluster's worker processes.",
            rich_help_panel=RUN,
            show_default=False,
        ),
    ] = None,
    *,
    cluster: DistributedRequest,
) -> None:
    """Predict every input row; the output keeps the rows, in order, with predictions appended.

    Columns added, per target: <label>_pred (logS_pred: water solubility, log10 mol/L;
    logSol_pH6.8_pred: pH 6.8 buffer solubility, log10 ug/mL; logD_pred: logD at pH 7.4),
    <label>_std (spread of the ensemble members), <label>_lo and <label>_hi (the --coverage
    interval); then similarity (to the training data, 0-1), domain (in/out), status and reason.
    A molecule above 400 atoms (or a SMILES above 4,000 characters) gets status too_large.

    --workers N runs N local processes; --scheduler runs shards on a Dask cluster (resumable).
    """
    import tempfile
    from dataclasses import replace

    from scoremol.data.lock import output_lock
    from scoremol.data.registry import resolve_prediction_inputs
    from scoremol.process import STARTED

    path, smiles = resolve_prediction_inputs(inputs)
    cluster = replace(cluster, workers=workers)
    distributed = cluster.check(path, smiles is not None, output, device)
    if distributed and report is not None:
        raise ScoremolError("--report applies to single-machine runs; write it afterwards with scoremol report OUTPUT")
    # one writer per output: a second run on the same file or parts folder stops here, at
    # once, before the seconds of importing torch
    with output_lock(output if output is not None else cluster.parts_dir):
        from scoremol.inference.predict import OutputOptions, parse_thresholds

        trained, model_path = _load(model, network_only)
        options = OutputOptions(coverage, parse_thresholds(threshold), legacy_names, ugml)
        show = (progress or console.is_terminal) and not state["quiet"]
        settings = dict(smiles_col=smiles_col, fmt=fmt, chunk_size=chunk_size, batch_size=batch_size, options=options)
        start = time.perf_counter()
        if distributed:
            from scoremol.inference.distributed.client import predict_distributed_to

            def on_shard(done: int, total: int, rows: int, ok: int) -> None:
                if show:
                    rate = rows / max(time.perf_counter() - start, 1e-9)
                    console.print(f"shard {done:,}/{total:,}: {rows:,} rows, {rate:,.0f} molecules/s", highlight=False)

            summary = predict_distributed_to(
                cluster,
                model_path,
                path,
                output,
                on_shard=on_shard,
                on_dashboard=lambda link: info(f"Dask dashboard: {link}"),
                network_only=network_only,
                shard_size=cluster.shard_size,
                **settings,
            )
            reused = summary.shards - len(summary.computed)
            where = f" in {summary.shards:,} shard{'s' if summary.shards != 1 else ''}"
            where += f"; {reused:,} shards reused from {summary.parts}" if cluster.resume else ""
        else:
            from scoremol.device import resolve_device
            from scoremol.inference.output import as_sink, open_output
            from scoremol.inference.predict import predict_stream

            def on_chunk(rows: int, ok: int) -> None:
                if show:
                    rate = rows / (time.perf_counter() - start)
                    console.print(f"{rows:,} rows, {ok:,} predicted, {rate:,.0f} rows/s", highlight=False)

            with tempfile.TemporaryDirectory() as tmp:
                if smiles is not None:  # SMILES given as arguments: one row each, in order
                    path, settings["fmt"], settings["smiles_col"] = str(Path(tmp) / "arguments.smi"), "smi", None
                    Path(path).write_text("".join(f"{s}\n" for s in smiles))
                with open_output(output) as out:
                    sink = as_sink(out) if report is None else _collector(trained, as_sink(out), report_rows)
                    run = dict(device=resolve_device(device), on_chunk=on_chunk, workers=workers)
                    summary = predict_stream(trained, path, sink, **run, **settings)
            where = ""
            if report is not None:
                from scoremol.cli.report import write_and_tell

                write_and_tell(sink, report, trained, settings["smiles_col"], options)
    failed = f" ({summary.failed:,} without a prediction, see the reason column)" if summary.failed else ""
    info(
        f"predicted {summary.predicted:,}/{summary.rows:,} rows{failed}{where} in {time.perf_counter() - STARTED:.1f} s"
    )


def _collector(model, sink, rows: int):
    from scoremol.report.collect import ReportCollector
    from scoremol.report.html import ReportTask

    return ReportCollector(sink, ReportTask.from_model(model), rows)


def _load(model: Optional[Path], network_only: bool):
    """The model to predict with (a file, or a bundled one named or by default) and its path."""
    from scoremol.models.checkpoint import load_model
    from scoremol.pretrained import MODELS, resolve_model

    model_path, bundled = resolve_model(model)
    if bundled is not None:
        card = MODELS[bundled]
        info(f"using the bundled model {bundled!r} ({card.training_data}; {card.benchmark}); --model chooses another")
    trained = load_model(model_path)
    return (trained.without_tree() if network_only else trained), model_path
