"""``scoremol predict``: every input row out, in order, with its prediction, status and reason."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from scoremol.cli.app import app, console, info, state
from scoremol.cli.options import DISTRIBUTED, INPUT, OUTPUT, RUN, Device, Format, SmilesCol
from scoremol.errors import ScoremolError
from scoremol.spec import DEFAULT_COVERAGE

#: Extensions that mark an argument as a file name (a missing one is an error, not a SMILES).
FILE_SUFFIXES = (".csv", ".tsv", ".smi", ".sdf", ".txt", ".gz", ".parquet", ".pt")


def resolve_inputs(inputs: list[str]) -> tuple[str, list[str] | None]:
    """``(path, None)`` for a file, ``-`` or a data set name; ``("", smiles)`` when the
    arguments are SMILES strings (more than one, or one that is no file but parses)."""
    from scoremol.data.registry import REGISTRY, resolve_input

    if len(inputs) == 1:
        arg = inputs[0]
        if arg == "-" or Path(arg).exists() or arg.lower() in REGISTRY:
            return resolve_input(arg)[0], None
        if arg.lower().endswith(FILE_SUFFIXES):
            raise ScoremolError(f"input file not found: {arg}")
        from rdkit import Chem, RDLogger

        RDLogger.DisableLog("rdApp.*")
        if Chem.MolFromSmiles(arg) is None:
            raise ScoremolError(f"input file not found: {arg} (nor a data set name or a valid SMILES)")
    return "", list(inputs)


def parse_thresholds(values: list[str] | None) -> float | dict[str, float] | None:
    """``--threshold`` values: one number (the first target) or ``LABEL=T`` items."""
    if not values:
        return None
    out: dict[str, float] = {}
    for value in values:
        label, _, number = value.rpartition("=")
        try:
            limit = float(number)
        except ValueError:
            raise ScoremolError(f"--threshold {value!r}: give a number or LABEL=NUMBER") from None
        if not label and len(values) == 1:
            return limit
        out[label] = limit  # "" stands for the first target
    return out


@app.command()
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
    progress: Annotated[
        bool,
        typer.Option("--progress", help="Show progress even when stderr is not a terminal.", rich_help_panel=OUTPUT),
    ] = False,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler",
            help="Run on a Dask cluster, in shards: tcp://HOST:PORT, or local for a cluster of --workers "
            "processes on this machine (loopback only). Needs pip install 'scoremol[dask]'.",
            rich_help_panel=DISTRIBUTED,
            show_default=False,
        ),
    ] = None,
    shard_size: Annotated[
        Optional[str],
        typer.Option(
            "--shard-size",
            help="Rows per shard, or input bytes per shard (64MB). [dim]\\[default: 100000 rows, fewer "
            "for a small input: four shards per worker][/dim]",
            rich_help_panel=DISTRIBUTED,
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue an interrupted --scheduler run: only shards without a part file are computed.",
            rich_help_panel=DISTRIBUTED,
        ),
    ] = False,
    parts_dir: Annotated[
        Optional[Path],
        typer.Option(
            "--parts-dir",
            help="Folder of finished shards and their manifest (default: OUTPUT.parts; a temporary "
            "folder for standard output). Workers must see it.",
            rich_help_panel=DISTRIBUTED,
            show_default=False,
        ),
    ] = None,
    keep_parts: Annotated[
        bool,
        typer.Option("--keep-parts", help="Keep the parts folder after a finished run.", rich_help_panel=DISTRIBUTED),
    ] = False,
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

    from scoremol.data.lock import output_lock
    from scoremol.process import STARTED

    path, smiles = resolve_inputs(inputs)
    distributed = _check_distributed_options(
        scheduler, workers, path, smiles, output, device, shard_size, resume, parts_dir, keep_parts
    )
    # one writer per output: a second run on the same file or parts folder stops here, at
    # once, before the seconds of importing torch
    with output_lock(output if output is not None else parts_dir):
        from scoremol.device import resolve_device
        from scoremol.inference.predict import OutputOptions
        from scoremol.models.checkpoint import load_model
        from scoremol.pretrained import resolve_model

        model_path, bundled = resolve_model(model)
        if bundled is not None:
            from scoremol.pretrained import MODELS

            card = MODELS[bundled]
            info(
                f"using the bundled model {bundled!r} ({card.training_data}; {card.benchmark}); --model chooses another"
            )
        dev = resolve_device(device)
        trained = load_model(model_path)
        if network_only:
            trained = trained.without_tree()
        options = OutputOptions(coverage, parse_thresholds(threshold), legacy_names, ugml)
        if distributed:
            summary = _run_distributed(
                trained,
                model_path,
                path,
                output,
                scheduler,
                workers,
                smiles_col=smiles_col,
                fmt=fmt,
                chunk_size=chunk_size,
                batch_size=batch_size,
                options=options,
                network_only=network_only,
                shard_size=shard_size,
                resume=resume,
                parts_dir=parts_dir,
                keep_parts=keep_parts,
                progress=progress,
            )
            failed = f" ({summary.failed:,} without a prediction, see the reason column)" if summary.failed else ""
            reused = (
                f"; {summary.shards - len(summary.computed):,} shards reused from {summary.parts}" if resume else ""
            )
            info(
                f"predicted {summary.predicted:,}/{summary.rows:,} rows{failed} in {summary.shards:,} "
                f"shard{'s' if summary.shards != 1 else ''}{reused} "
                f"in {time.perf_counter() - STARTED:.1f} s"
            )
            return
        with tempfile.TemporaryDirectory() as tmp:
            if smiles is not None:  # SMILES given as arguments: one row each, in order
                path, fmt, smiles_col = str(Path(tmp) / "arguments.smi"), "smi", None
                Path(path).write_text("".join(f"{s}\n" for s in smiles))
            summary = _run(
                trained,
                path,
                output,
                smiles_col,
                fmt,
                batch_size,
                chunk_size,
                dev,
                progress,
                workers,
                options,
            )
        failed = f" ({summary.failed:,} without a prediction, see the reason column)" if summary.failed else ""
        info(f"predicted {summary.predicted:,}/{summary.rows:,} rows{failed} in {time.perf_counter() - STARTED:.1f} s")


def _run(
    trained,
    path: str,
    output: Optional[Path],
    smiles_col,
    fmt,
    batch_size,
    chunk_size: int,
    device: str,
    progress: bool,
    workers,
    columns,
):
    from scoremol.data.atomic import atomic_write
    from scoremol.inference.output import ParquetSink, is_parquet_path
    from scoremol.inference.predict import predict_stream

    show = (progress or console.is_terminal) and not state["quiet"]
    start = time.perf_counter()

    def report(rows: int, ok: int) -> None:
        if show:
            rate = rows / (time.perf_counter() - start)
            console.print(f"{rows:,} rows, {ok:,} predicted, {rate:,.0f} rows/s", highlight=False)

    options = dict(
        smiles_col=smiles_col,
        fmt=fmt,
        batch_size=batch_size,
        chunk_size=chunk_size,
        device=device,
        on_chunk=report,
        workers=workers,
        options=columns,
    )
    if output is None:
        summary = predict_stream(trained, path, sys.stdout, **options)
        sys.stdout.flush()
        return summary
    if is_parquet_path(output):
        with atomic_write(output, "wb") as handle:
            return predict_stream(trained, path, ParquetSink(handle), **options)
    with atomic_write(output, "w", newline="") as handle:
        return predict_stream(trained, path, handle, **options)


def _check_distributed_options(
    scheduler: Optional[str],
    workers: Optional[int],
    path: str,
    smiles: Optional[list[str]],
    output: Optional[Path],
    device: str,
    shard_size: Optional[str],
    resume: bool,
    parts_dir: Optional[Path],
    keep_parts: bool,
) -> bool:
    """True for a --scheduler run; a combination of options that cannot work is a one-line error."""
    if scheduler is None:
        given = [
            flag
            for flag, value in (
                ("--shard-size", shard_size),
                ("--resume", resume),
                ("--parts-dir", parts_dir),
                ("--keep-parts", keep_parts),
            )
            if value
        ]
        if given:
            raise ScoremolError(f"{given[0]} applies to --scheduler runs (add --scheduler local for this machine)")
        return False
    if smiles is not None or path == "-":
        raise ScoremolError("--scheduler needs an input file (not standard input or SMILES arguments)")
    if device != "cpu":
        raise ScoremolError("--scheduler predicts on the workers' CPUs; drop --device")
    if workers is not None and scheduler != "local":
        raise ScoremolError("--workers sizes a cluster of --scheduler local; a scheduler's cluster has its own workers")
    if output is None and parts_dir is None:
        if scheduler != "local":
            raise ScoremolError("with a remote --scheduler, name -o or --parts-dir on a file system the workers share")
        if resume:
            raise ScoremolError("--resume with standard output needs the --parts-dir of the interrupted run")
    return True


def _run_distributed(
    trained,
    model_path: Path,
    path: str,
    output: Optional[Path],
    scheduler: str,
    workers: Optional[int],
    *,
    progress: bool,
    parts_dir: Optional[Path],
    keep_parts: bool,
    **settings,
):
    """Predict on a Dask cluster, write the output atomically, then drop the parts folder."""
    import tempfile

    from scoremol.data.atomic import atomic_write
    from scoremol.inference.distributed import dashboard_link, dask_client, predict_distributed, remove_parts
    from scoremol.inference.output import ParquetSink, is_parquet_path

    show = (progress or console.is_terminal) and not state["quiet"]
    temporary = None
    if parts_dir is None:
        if output is not None:
            parts_dir = output.with_name(output.name + ".parts")
        else:
            temporary = tempfile.TemporaryDirectory(prefix="scoremol-parts-")
            parts_dir = Path(temporary.name)
    start = time.perf_counter()

    def report(done: int, total: int, rows: int, ok: int) -> None:
        if show:
            rate = rows / max(time.perf_counter() - start, 1e-9)
            console.print(f"shard {done:,}/{total:,}: {rows:,} rows, {rate:,.0f} molecules/s", highlight=False)

    try:
        with dask_client(scheduler, workers) as client:
            start = time.perf_counter()
            link = dashboard_link(client, local=scheduler == "local")
            if link:
                info(f"Dask dashboard: {link}")
            run = dict(parts=parts_dir, on_shard=report, **settings)
            if output is None:
                summary = predict_distributed(client, model_path, path, sys.stdout, **run)
                sys.stdout.flush()
            elif is_parquet_path(output):
                with atomic_write(output, "wb") as handle:
                    summary = predict_distributed(client, model_path, path, ParquetSink(handle), **run)
            else:
                with atomic_write(output, "w", newline="") as handle:
                    summary = predict_distributed(client, model_path, path, handle, **run)
        # the output is in place: its parts are no longer needed
        if not keep_parts:
            remove_parts(parts_dir)
    finally:
        if temporary is not None:
            temporary.cleanup()
    return summary
