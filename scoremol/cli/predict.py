"""``scoremol predict``: every input row out, in order, with its prediction, status and reason."""

from __future__ import annotations

import time
from pathlib import Path

from scoremol.cli.app import app, console, info, load_requested, state
from scoremol.cli.options import dataclass_options, input_argument
from scoremol.errors import ScoremolError
from scoremol.inference.distributed.request import DistributedRequest
from scoremol.inference.request import PredictRequest
from scoremol.process import importing


@app.command()
@dataclass_options(request=PredictRequest, cluster=DistributedRequest)
def predict(
    inputs: input_argument("CSV/TSV/SMI/SDF/Parquet file, a data set name, - for stdin, or SMILES strings."),
    *,
    request: PredictRequest,
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
    from contextlib import ExitStack
    from dataclasses import replace

    from scoremol.data.destination import check_destination
    from scoremol.data.lock import output_lock
    from scoremol.data.registry import resolve_prediction_inputs
    from scoremol.process import STARTED

    r = request
    path, smiles = resolve_prediction_inputs(inputs)
    cluster = replace(cluster, workers=r.workers)
    distributed = cluster.check(path, smiles is not None, r.output, r.device)
    if distributed and r.report is not None:
        raise ScoremolError("--report applies to single-machine runs; write it afterwards with scoremol report OUTPUT")
    check_destination(r.output, "-o", reads=[path, r.model], other_outputs={"--report": r.report})
    check_destination(r.report, "--report", reads=[path, r.model])
    # one writer per output: a second run on the same file or parts folder stops here, at
    # once, before the seconds of importing torch
    with output_lock(r.output if r.output is not None else cluster.parts_dir), ExitStack() as stack:
        head = None
        if not distributed and smiles is None and not r.network_only:
            from scoremol.inference.head import start_featurizing
            from scoremol.pretrained import resolve_model

            # featurizing starts now, on another core, while torch imports
            head = start_featurizing(resolve_model(r.model)[0], path, r.smiles_col, r.fmt, r.chunk_size, r.workers)
            if head is not None:
                stack.callback(head.close)
        with importing():  # torch: Ctrl-C exits at once
            from scoremol.inference.predict import OutputOptions, parse_thresholds
            from scoremol.report.collect import ReportCollector
            from scoremol.report.console import Throughput

        trained, model_path = load_requested(r.model, r.network_only)
        targets = tuple(r.target) if r.target else None
        options = OutputOptions(r.coverage, parse_thresholds(r.threshold), r.legacy_names, r.ugml, targets)
        options.check(trained)
        progress = Throughput(console, (r.progress or console.is_terminal) and not state["quiet"])
        settings = dict(smiles_col=r.smiles_col, fmt=r.fmt, chunk_size=r.chunk_size, batch_size=r.batch_size)
        if distributed:
            from scoremol.inference.distributed.client import predict_distributed_to

            summary = predict_distributed_to(
                cluster,
                model_path,
                path,
                r.output,
                on_shard=progress.shard,
                on_dashboard=lambda link: info(f"Dask dashboard: {link}"),
                network_only=r.network_only,
                shard_size=cluster.shard_size,
                options=options,
                **settings,
            )
        else:
            from scoremol.device import resolve_device
            from scoremol.inference.output import as_sink, open_output
            from scoremol.inference.predict import predict_stream

            with tempfile.TemporaryDirectory() as tmp:
                if smiles is not None:  # SMILES given as arguments: one row each, in order
                    path, settings["fmt"], settings["smiles_col"] = str(Path(tmp) / "arguments.smi"), "smi", None
                    Path(path).write_text("".join(f"{s}\n" for s in smiles))
                with open_output(r.output) as out:
                    sink = as_sink(out)
                    if r.report is not None:
                        sink = ReportCollector.for_model(trained, sink, r.report_rows, targets)
                    run = dict(device=resolve_device(r.device), on_chunk=progress.chunk, workers=r.workers)
                    summary = predict_stream(trained, path, sink, options=options, head=head, **run, **settings)
            if r.report is not None:
                from scoremol.cli.report import write_and_tell

                write_and_tell(sink, r.report, trained, settings["smiles_col"], options)
    info(summary.sentence(time.perf_counter() - STARTED, cluster.resume))
