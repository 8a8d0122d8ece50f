"""``scoremol featurize``: molecules -> a reusable features file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from scoremol.cli.app import app, console
from scoremol.cli.display import failed_rows_table
from scoremol.cli.options import INPUT, OUTPUT, RUN, Format, SmilesCol, Standardize, Workers
from scoremol.errors import ScoremolError
from scoremol.spec import DEFAULTS
from scoremol.training.setup import feature_plan


@app.command()
def featurize(
    input: Annotated[
        str,
        typer.Argument(
            metavar="INPUT",
            show_default=False,
            help="CSV/TSV/SMI/SDF file, a data set name (esol, ...), or - for stdin.",
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Features file to write (.pt).", rich_help_panel=OUTPUT)
    ],
    descriptors: Annotated[
        bool,
        typer.Option(
            "--descriptors/--no-descriptors", help="Also compute RDKit 2D descriptors.", rich_help_panel=INPUT
        ),
    ] = True,
    descriptor_set: Annotated[
        Optional[str],
        typer.Option(
            "--descriptor-set",
            help="all, fast, tree or a comma list of RDKit names (default: what the default model needs).",
            rich_help_panel=INPUT,
            show_default=False,
        ),
    ] = None,
    smiles_col: SmilesCol = None,
    fmt: Format = None,
    standardize: Standardize = True,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail if any row is invalid.", rich_help_panel=INPUT)
    ] = False,
    cache: Annotated[
        bool, typer.Option("--cache/--no-cache", help="Reuse features of identical input.", rich_help_panel=RUN)
    ] = True,
    report: Annotated[
        Optional[Path],
        typer.Option("--report", help="Write row,smiles,status,reason CSV here.", rich_help_panel=OUTPUT),
    ] = None,
    workers: Workers = None,
) -> None:
    """Featurize molecules into graphs (and descriptors) that train and cv can reuse.

    A molecule above 400 atoms (or a SMILES above 4,000 characters) gets status too_large.
    """
    from dataclasses import replace

    import numpy as np

    from scoremol.data.atomic import atomic_write
    from scoremol.data.registry import resolve_input
    from scoremol.featurizers.cache import featurize_input
    from scoremol.featurizers.dataset import FeaturizerSettings

    path, _ = resolve_input(input)
    settings = feature_plan(DEFAULTS).settings  # what the default model reads
    try:
        if descriptor_set is not None:
            settings = FeaturizerSettings(descriptors=True, descriptor_set=descriptor_set)
    except ValueError as exc:
        raise ScoremolError(f"--descriptor-set: {exc}") from None
    settings = replace(settings, standardize=standardize, descriptors=descriptors)
    start = time.perf_counter()
    data, hit = featurize_input(path, settings, smiles_col, fmt, use_cache=cache, workers=workers)
    seconds = time.perf_counter() - start
    smiles = data.table[data.smiles_col].astype(str).tolist()
    if data.num_rows == 0:
        raise ScoremolError(f"no data rows in {input}")
    if strict and data.num_failed:
        first = next(i for i, s in enumerate(data.status) if s != "ok")
        raise ScoremolError(f"{data.num_failed} invalid row(s) with --strict; first: row {first}: {data.reason[first]}")
    data.save(output)
    if report is not None:
        import pandas as pd

        frame = pd.DataFrame(
            {"row": range(data.num_rows), "smiles": smiles, "status": data.status, "reason": data.reason}
        )
        with atomic_write(report, "w", newline="") as handle:
            frame.to_csv(handle, index=False)
    failures = failed_rows_table(data.status, data.reason, smiles)
    if failures is not None:
        console.print(failures)
    summary = Table(title="featurize", show_header=False)
    summary.add_row("input", input)
    summary.add_row("molecules", f"{data.num_graphs}/{data.num_rows} featurized")
    summary.add_row("failures", str(data.num_failed))
    notes = sum(1 for s, r in zip(data.status, data.reason) if s == "ok" and r)
    summary.add_row("standardized", f"{notes} changed" if standardize else "off")
    if descriptors and data.descriptors is not None:
        missing = int(np.isnan(data.descriptors).sum())
        summary.add_row("descriptors", f"{data.descriptors.shape[1]} per molecule, {missing} missing/non-finite")
    summary.add_row("seconds", f"{seconds:.2f}" + (" (cache hit)" if hit else ""))
    summary.add_row("output", str(output))
    console.print(summary)
