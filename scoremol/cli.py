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
from scoremol.defaults import DEFAULTS
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


def _default_targets(entry, data) -> list[str]:
    """Targets from the registry when the input is a known data set, else an error."""
    if entry is not None:
        return [entry.target_col]
    numeric = [c for c in data.table.columns if c != data.smiles_col]
    raise ScoremolError(f"pass --target (one of: {', '.join(map(str, numeric))})")


@app.command()
def train(
    input: str = typer.Argument(..., help="Training CSV/TSV/SDF, a data set name (esol, ...), or a features file."),
    target: Optional[list[str]] = typer.Option(None, "--target", "-t", help="Target column (repeat for several)."),
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    standardize: bool = StandardizeOpt,
    arch: str = typer.Option(DEFAULTS["arch"], "--arch", help="gcn, gat, gine, mpnn, dmpnn, attentivefp, transformer, mlp, score-mlp."),
    mode: str = typer.Option(DEFAULTS["mode"], "--mode", help="Depth mode: base, classic, skip, score."),
    dt: float = typer.Option(DEFAULTS["dt"], "--dt", help="Step size of skip/score updates."),
    steps: int = typer.Option(DEFAULTS["steps"], "--steps", help="K: layers (stacked modes) or SCORE steps."),
    integrator: str = typer.Option(DEFAULTS["integrator"], "--integrator", help="euler, heun, midpoint, rk4 (score mode)."),
    learnable_dt: bool = typer.Option(False, "--learnable-dt/--fixed-dt", help="Learn a step size per SCORE step."),
    readout: str = typer.Option(DEFAULTS["readout"], "--readout", help="molattfp, sum, mean."),
    descriptors: bool = typer.Option(DEFAULTS["descriptors"], "--descriptors/--no-descriptors", help="Fuse RDKit 2D descriptors."),
    hidden: int = typer.Option(DEFAULTS["hidden"], "--hidden"),
    dropout: float = typer.Option(DEFAULTS["dropout"], "--dropout"),
    heads: int = typer.Option(DEFAULTS["heads"], "--heads", help="Attention heads (gat, transformer)."),
    epochs: int = typer.Option(DEFAULTS["epochs"], "--epochs"),
    batch_size: int = typer.Option(DEFAULTS["batch_size"], "--batch-size"),
    lr: float = typer.Option(DEFAULTS["lr"], "--lr"),
    weight_decay: float = typer.Option(DEFAULTS["weight_decay"], "--weight-decay"),
    seed: int = typer.Option(0, "--seed"),
    val_fraction: float = typer.Option(DEFAULTS["val_fraction"], "--val-fraction", help="Held out for early stopping."),
    patience: int = typer.Option(DEFAULTS["patience"], "--patience", help="Epochs without improvement before stopping."),
    ensemble: int = typer.Option(DEFAULTS["ensemble"], "--ensemble", help="Members, each with its own seed and split."),
    device: str = typer.Option("cpu", "--device", help="cpu, cuda or auto."),
    output: Path = typer.Option(Path("model.pt"), "--output", "-o", help="Model file to write."),
) -> None:
    """Train a model and save it as one self-describing file."""
    from scoremol.checkpoint import save_model
    from scoremol.train import resolve_device, train_model
    from scoremol.training_setup import load_training_data, make_configs

    resolve_device(device)
    data, entry = load_training_data(input, smiles_col, fmt, standardize, descriptors)
    targets = list(target) if target else _default_targets(entry, data)
    model_config, train_config = make_configs(
        data, targets, arch=arch, mode=mode, dt=dt, steps=steps, integrator=integrator, learnable_dt=learnable_dt,
        readout=readout, descriptors=descriptors, hidden=hidden, dropout=dropout, heads=heads, epochs=epochs,
        batch_size=batch_size, lr=lr, weight_decay=weight_decay, seed=seed, val_fraction=val_fraction,
        patience=patience, ensemble=ensemble, device=device,
    )
    if data.num_failed:
        info(f"{data.num_failed} of {data.num_rows} rows could not be featurized and are left out of training")
    units = [entry.units if entry and t == entry.target_col else "" for t in targets]
    with _training_progress(ensemble, epochs) as on_epoch:
        model = train_model(data, targets, model_config, train_config, target_units=units, on_epoch=on_epoch)
    save_model(model, output)
    m = model.metrics
    summary = Table(title="train", show_header=False)
    summary.add_row("model", f"{arch} / {mode}" + (f" dt={dt}" if mode in ("skip", "score") else "") + f" K={steps}, readout {readout}" + (", + descriptors" if model_config.use_descriptors else ""))
    summary.add_row("targets", ", ".join(targets))
    summary.add_row("molecules", str(m["n_train_molecules"]))
    bv = m["best_val_rmse_mean"]
    summary.add_row("best val RMSE", "n/a (no validation split)" if bv is None else f"{bv:.4f}")
    summary.add_row("epochs (best)", ", ".join(f"{mm.epochs_run} ({mm.best_epoch})" for mm in model.members))
    summary.add_row("seconds", f"{m['seconds']:.1f}")
    summary.add_row("parameters", f"{m['parameters']:,}" + (f" x {ensemble} members" if ensemble > 1 else ""))
    summary.add_row("saved", str(output))
    console.print(summary)


class _training_progress:
    """A Rich progress display on stderr (one bar per ensemble member)."""

    def __init__(self, members: int, epochs: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(), console=console, transient=False, disable=_state["quiet"],
        )
        self.tasks = [self.progress.add_task(f"member {k + 1}", total=epochs, stats="") for k in range(members)]

    def __enter__(self):
        self.progress.__enter__()
        return self.update

    def update(self, member: int, record: dict) -> None:
        stats = f"loss {record['train_loss']:.4f}"
        if "val_rmse" in record:
            stats += f"  val RMSE {record['val_rmse']:.4f}  best {record['best_val_rmse']:.4f}"
        self.progress.update(self.tasks[member], completed=record["epoch"], stats=stats)

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)


@app.command()
def cv() -> None:
    """Cross-validate a model (not implemented yet)."""
    _not_yet("cv")


@app.command()
def predict(
    input: str = typer.Argument(..., help="CSV/TSV/SMI/SDF file, or - for standard input."),
    model: Optional[Path] = typer.Option(None, "--model", "-m", help="Model file (default: the bundled ESOL solubility model)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write CSV here (default: standard output)."),
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    batch_size: int = typer.Option(256, "--batch-size"),
    chunk_size: int = typer.Option(2000, "--chunk-size", help="Rows read, predicted and written at a time."),
    device: str = typer.Option("cpu", "--device", help="cpu, cuda or auto."),
    progress: bool = typer.Option(False, "--progress", help="Show progress even when stderr is not a terminal."),
) -> None:
    """Predict every input row; output keeps the rows, in order, with predictions appended."""
    from scoremol.checkpoint import load_model
    from scoremol.io import atomic_write
    from scoremol.models import bundled_model_path
    from scoremol.predict import predict_stream
    from scoremol.train import resolve_device

    dev = resolve_device(device)
    if model is None:
        model = bundled_model_path()
        info(f"using the bundled ESOL solubility model ({model.name}); pass --model to use your own")
    trained = load_model(model)
    show = progress or console.is_terminal
    start = time.perf_counter()

    def report(rows: int, ok: int) -> None:
        if show and not _state["quiet"]:
            console.print(f"{rows:,} rows, {ok:,} predicted, {rows / (time.perf_counter() - start):,.0f} rows/s", highlight=False)

    if output is None:
        summary = predict_stream(trained, input, sys.stdout, smiles_col, fmt, batch_size, chunk_size, dev, report)
        sys.stdout.flush()
    else:
        with atomic_write(output, "w", newline="") as handle:
            summary = predict_stream(trained, input, handle, smiles_col, fmt, batch_size, chunk_size, dev, report)
    seconds = time.perf_counter() - start
    info(f"predicted {summary.predicted:,}/{summary.rows:,} rows ({summary.failed:,} without a prediction, see the reason column) in {seconds:.1f} s")


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
