"""The ``scoremol`` command line: thin Typer commands over the library.

Data goes to standard output, messages and progress to standard error. A user error
(:class:`ScoremolError`) prints one line and exits 1; ``-v`` shows the traceback.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from scoremol import __version__
from scoremol.errors import ScoremolError

app = typer.Typer(
    name="scoremol",
    help="Molecular property prediction with SCORE (contractive recurrent depth) graph neural networks.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
_state = {"verbose": False, "quiet": False}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scoremol {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show details and tracebacks."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only errors on standard error."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """scoremol: SMILES in, property predictions out."""
    _state["verbose"], _state["quiet"] = verbose, quiet
    console.quiet = quiet


def info(message: str) -> None:
    """A message for the user on standard error (silenced by --quiet)."""
    console.print(message, highlight=False)


# -- shared option helpers -------------------------------------------------------------------
SmilesCol = typer.Option(None, "--smiles-col", help="SMILES column of a CSV/TSV (default: smiles/SMILES/Smiles).")
FormatOpt = typer.Option(None, "--format", help="Input format: csv, tsv, smi or sdf (default: from the extension).")
StandardizeOpt = typer.Option(
    True, "--standardize/--no-standardize", help="Keep the largest organic fragment and neutralize charges."
)


def _row_report(statuses: list[str], reasons: list[str], smiles: list[str], limit: int = 10) -> Table | None:
    bad = [(i, s, r) for i, (st, r, s) in enumerate(zip(statuses, reasons, smiles)) if st != "ok"]
    if not bad:
        return None
    table = Table(title=f"{len(bad)} row(s) not featurized" + (f" (first {limit})" if len(bad) > limit else ""))
    table.add_column("row", justify="right")
    table.add_column("SMILES")
    table.add_column("reason")
    for i, s, r in bad[:limit]:
        table.add_row(str(i), s[:60], r)
    return table


@app.command()
def featurize(
    input: str = typer.Argument(..., help="CSV/TSV/SMI/SDF file, a data set name (esol, ...), or - for stdin."),
    output: Path = typer.Option(..., "--output", "-o", help="Features file to write (.pt)."),
    descriptors: bool = typer.Option(False, "--descriptors/--no-descriptors", help="Also compute RDKit 2D descriptors."),
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    standardize: bool = StandardizeOpt,
    strict: bool = typer.Option(False, "--strict", help="Fail if any row is invalid."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse features cached for identical input and settings."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write row,smiles,status,reason CSV here."),
) -> None:
    """Featurize molecules into graphs (and descriptors) that train and cv can reuse."""
    from scoremol.cache import featurize_input
    from scoremol.dataset import FeaturizerSettings
    from scoremol.datasets import resolve_input
    from scoremol.io import atomic_write

    path, _ = resolve_input(input)
    settings = FeaturizerSettings(standardize=standardize, descriptors=descriptors)
    start = time.perf_counter()
    data, hit = featurize_input(path, settings, smiles_col, fmt, use_cache=cache)
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

        frame = pd.DataFrame({"row": range(data.num_rows), "smiles": smiles, "status": data.status, "reason": data.reason})
        with atomic_write(report, "w", newline="") as handle:
            frame.to_csv(handle, index=False)
    failures = _row_report(data.status, data.reason, smiles)
    if failures is not None:
        console.print(failures)
    summary = Table(title="featurize", show_header=False)
    summary.add_row("input", input)
    summary.add_row("molecules", f"{data.num_graphs}/{data.num_rows} featurized")
    summary.add_row("failures", str(data.num_failed))
    notes = sum(1 for s, r in zip(data.status, data.reason) if s == "ok" and r)
    summary.add_row("standardized", f"{notes} changed" if standardize else "off")
    if descriptors and data.descriptors is not None:
        import numpy as np

        summary.add_row("descriptors", f"{data.descriptors.shape[1]} per molecule, {int(np.isnan(data.descriptors).sum())} missing/non-finite values")
    summary.add_row("seconds", f"{seconds:.2f}" + (" (cache hit)" if hit else ""))
    summary.add_row("output", str(output))
    console.print(summary)


def _not_yet(name: str) -> None:
    raise ScoremolError(f"'scoremol {name}' is not implemented yet")


@app.command()
def train() -> None:
    """Train a model (not implemented yet)."""
    _not_yet("train")


@app.command()
def cv() -> None:
    """Cross-validate a model (not implemented yet)."""
    _not_yet("cv")


@app.command()
def predict() -> None:
    """Predict properties (not implemented yet)."""
    _not_yet("predict")


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with -v."""
    try:
        app(standalone_mode=False)
    except ScoremolError as exc:
        if _state["verbose"]:
            raise
        print(f"scoremol: error: {exc}", file=sys.stderr)
        sys.exit(1)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code or 0)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error for a shell pipeline
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            sys.exit(0)
    except KeyboardInterrupt:
        print("scoremol: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # usage errors from Typer's click layer, and anything unexpected
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a click UsageError/ClickException
            exc.show()
            sys.exit(exc.exit_code)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        if _state["verbose"]:
            raise
        line = f"scoremol: error: {type(exc).__name__}: {exc}".splitlines()[0]
        print(f"{line} (run with -v for details)", file=sys.stderr)
        sys.exit(2)

if __name__ == "__main__":
    main()
