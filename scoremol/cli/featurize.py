"""``scoremol featurize``: molecules -> a reusable features file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scoremol.cli.app import app, console
from scoremol.cli.options import dataclass_options, input_argument
from scoremol.process import importing
from scoremol.spec import OUTPUT
from scoremol.training.requests import FeaturizeRequest


@app.command()
@dataclass_options(request=FeaturizeRequest)
def featurize(
    input: input_argument("CSV/TSV/SMI/SDF file, a data set name (esol, ...), or - for stdin.", many=False),
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Features file to write (.pt).", rich_help_panel=OUTPUT)
    ],
    *,
    request: FeaturizeRequest,
) -> None:
    """Featurize molecules into graphs (and descriptors) that train and cv can reuse.

    A molecule above 400 atoms (or a SMILES above 4,000 characters) gets status too_large.
    """
    from scoremol.data.destination import check_destination

    check_destination(output, "-o", reads=[input])
    with importing():  # torch: Ctrl-C exits at once
        from scoremol.report.console import failed_rows_table, featurize_summary
        from scoremol.training.featurize import featurize_file

    done = featurize_file(input, output, request)
    failures = failed_rows_table(done.data.status, done.data.reason, done.smiles)
    if failures is not None:
        console.print(failures)
    console.print(featurize_summary(input, output, done, request.standardize))
