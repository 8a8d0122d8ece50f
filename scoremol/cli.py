"""The ``scoremol`` command line: thin Typer commands over the library.

Data goes to standard output, messages and progress to standard error. A user error
(:class:`ScoremolError`) prints one line and exits 1; ``-v`` shows the traceback.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from scoremol import __version__
from scoremol.defaults import DEFAULTS, PRESETS, preset_settings
from scoremol.entry import exit_interrupted
from scoremol.errors import ScoremolError

app = typer.Typer(
    name="scoremol",
    help="Molecular property prediction with SCORE (contractive recurrent depth) graph neural networks.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
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


WorkersOpt = typer.Option(
    None, "--workers", min=1,
    help="Featurization processes for large inputs (default: all CPUs; 1 = single process).",
)


@app.command()
def featurize(
    input: str = typer.Argument(..., help="CSV/TSV/SMI/SDF file, a data set name (esol, ...), or - for stdin."),
    output: Path = typer.Option(..., "--output", "-o", help="Features file to write (.pt)."),
    descriptors: bool = typer.Option(
        DEFAULTS["descriptors"], "--descriptors/--no-descriptors",
        help="Also compute RDKit 2D descriptors (on by default, as the default model fuses them)."),
    descriptor_set: str = typer.Option(
        "tree" if DEFAULTS["catboost_weight"] > 0 else DEFAULTS["descriptor_set"], "--descriptor-set",
        help="all, fast, tree, or a comma list of RDKit descriptor names (default: what the default model "
             "needs: its network fuses the fast set and its CatBoost blend the tree set, all but the slowest)."),
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    standardize: bool = StandardizeOpt,
    strict: bool = typer.Option(False, "--strict", help="Fail if any row is invalid."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse features cached for identical input and settings."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write row,smiles,status,reason CSV here."),
    workers: Optional[int] = WorkersOpt,
) -> None:
    """Featurize molecules into graphs (and descriptors) that train and cv can reuse."""
    from scoremol.cache import featurize_input
    from scoremol.dataset import FeaturizerSettings
    from scoremol.datasets import resolve_input
    from scoremol.io import atomic_write

    path, _ = resolve_input(input)
    try:
        settings = FeaturizerSettings(standardize=standardize, descriptors=descriptors, descriptor_set=descriptor_set)
    except ValueError as exc:
        raise ScoremolError(f"--descriptor-set: {exc}") from None
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


# -- model and training options, shared by train and cv ------------------------------------
ArchOpt = typer.Option(DEFAULTS["arch"], "--arch", help="gcn, gat, gine, mpnn, dmpnn, attentivefp, transformer, mlp, score-mlp (cv also: catboost).")
ModeOpt = typer.Option(DEFAULTS["mode"], "--mode", help="Depth mode: base, classic, skip, score.")
DtOpt = typer.Option(DEFAULTS["dt"], "--dt", help="Step size of skip/score updates.")
StepsOpt = typer.Option(DEFAULTS["steps"], "--steps", help="K: layers (stacked modes) or SCORE steps.")
IntegratorOpt = typer.Option(DEFAULTS["integrator"], "--integrator", help="euler, heun, midpoint, rk4 (score mode).")
LearnableDtOpt = typer.Option(False, "--learnable-dt/--fixed-dt", help="Learn a step size per SCORE step.")
ReadoutOpt = typer.Option(DEFAULTS["readout"], "--readout", help="molattfp, sum, mean.")
DescriptorsOpt = typer.Option(None, "--descriptors/--no-descriptors", help="Fuse RDKit 2D descriptors (default: on; fast preset: off).", show_default=False)
DescriptorSetOpt = typer.Option(
    None, "--descriptor-set",
    help="Descriptors to fuse: fast (17 cheap ones), all (every RDKit 2D descriptor) or a comma list "
         "(default: fast for graph models, all for mlp, score-mlp and catboost).",
)
HiddenOpt = typer.Option(None, "--hidden", help=f"Hidden width (default: {DEFAULTS['hidden']}; fast preset: {PRESETS['fast']['hidden']}).")
DropoutOpt = typer.Option(None, "--dropout", help=f"Dropout (default: {DEFAULTS['dropout']:g}; fast preset: {PRESETS['fast']['dropout']:g}).")
HeadsOpt = typer.Option(DEFAULTS["heads"], "--heads", help="Attention heads (gat, transformer).")
EpochsOpt = typer.Option(None, "--epochs", help=f"Epochs at most (default: {DEFAULTS['epochs']}; fast preset: {PRESETS['fast']['epochs']}).")
BatchSizeOpt = typer.Option(DEFAULTS["batch_size"], "--batch-size")
LrOpt = typer.Option(DEFAULTS["lr"], "--lr", help="Peak learning rate (AdamW, warmup then cosine decay).")
WeightDecayOpt = typer.Option(DEFAULTS["weight_decay"], "--weight-decay")
SeedOpt = typer.Option(0, "--seed")
ValFractionOpt = typer.Option(
    None, "--val-fraction",
    help=f"Held out of training for early stopping (default: {DEFAULTS['val_fraction']:g} for networks; 0 for the fast "
         "preset, which trains a fixed number of epochs, and for catboost, which then fits a fixed number of trees on "
         "every training molecule, as the blended tree does).")
PatienceOpt = typer.Option(DEFAULTS["patience"], "--patience", help="Epochs without improvement before stopping.")
EnsembleOpt = typer.Option(None, "--ensemble", help=f"Members, each with its own seed and split (default: {DEFAULTS['ensemble']}; fast preset: 1).")
BlendOpt = typer.Option(
    None, "--blend-catboost",
    help="Blend a CatBoost model on RDKit 2D descriptors (all but the slowest 13) into the prediction with "
         f"this weight (0 = off; needs those descriptors at prediction time, a few ms per molecule; default: "
         f"{DEFAULTS['catboost_weight']:g}; fast preset: 0).")
PresetOpt = typer.Option(
    "accurate", "--preset",
    help="accurate: 5 networks + descriptors + CatBoost blend (best RMSE, minutes per fit); fast: one small "
         "graph-only network, 60 epochs (about 30 s per fit, fastest prediction). Explicit options override it.")
DeviceOpt = typer.Option("cpu", "--device", help="cpu, cuda or auto.")
TargetOpt = typer.Option(None, "--target", "-t", help="Target column (repeat for several; default: the data set's).")

_MODEL_OPTION_NAMES = (
    "arch", "mode", "dt", "steps", "integrator", "learnable_dt", "readout", "descriptors", "hidden", "dropout",
    "heads", "epochs", "batch_size", "lr", "weight_decay", "seed", "val_fraction", "patience", "ensemble", "device",
    "blend_catboost",
)


DENSE_ARCHS = ("mlp", "score-mlp")


def _descriptor_set(arch: str, requested: str | None) -> str:
    """The descriptor set to compute: as requested, else the default for ``arch``."""
    if requested:
        return requested
    if arch == "catboost":
        return "tree"  # the blended tree's set: all but the 13 slowest, same accuracy (BENCHMARKS.md)
    return "all" if arch in DENSE_ARCHS else DEFAULTS["descriptor_set"]


def _val_fraction(arch: str, requested: float | None, preset: str = "accurate") -> float:
    """The validation fraction: as requested, else 0 for CatBoost and the preset's for networks."""
    if requested is not None:
        return requested
    return 0.0 if arch == "catboost" else preset_settings(preset)["val_fraction"]


def _apply_preset(preset: str, **given) -> dict:
    """Values of the preset-governed options: each one given explicitly, else the preset's."""
    try:
        settings = preset_settings(preset)
    except ValueError as exc:
        raise ScoremolError(f"--preset: {exc}") from None
    key = {"blend_catboost": "catboost_weight"}
    return {name: settings[key.get(name, name)] if value is None else value for name, value in given.items()}


def _load_for_training(input: str, smiles_col, fmt, standardize: bool, arch: str, descriptors: bool,
                       descriptor_set: str | None, blend: float):
    """Training data, its registry entry, and the descriptors the network fuses.

    A CatBoost blend uses every RDKit descriptor but the slowest (the "tree" set), so those
    are computed and the network keeps its own (usually much smaller) set: the third value
    names it, or is None when the network uses every descriptor column the data carry.
    """
    from scoremol.descriptors import TREE_DESCRIPTORS, descriptor_names, union
    from scoremol.training_setup import load_training_data

    wanted = _descriptor_set(arch, descriptor_set)
    fuses = descriptors or arch in DENSE_ARCHS
    gnn = None
    if blend > 0:
        try:
            gnn = descriptor_names(wanted) if fuses else None
        except ValueError as exc:
            raise ScoremolError(f"--descriptor-set: {exc}") from None
        wanted = ",".join(union(TREE_DESCRIPTORS, gnn or ()))  # the tree's set plus the network's
    data, entry = load_training_data(input, smiles_col, fmt, standardize, fuses or blend > 0, wanted)
    return data, entry, gnn


def _default_targets(entry, data) -> list[str]:
    """Targets from the registry when the input is a known data set, else an error."""
    if entry is not None:
        return [entry.target_col]
    numeric = [c for c in data.table.columns if c != data.smiles_col]
    raise ScoremolError(f"pass --target (one of: {', '.join(map(str, numeric))})")


@app.command()
def train(
    input: str = typer.Argument(..., help="Training CSV/TSV/SDF, a data set name (esol, ...), or a features file."),
    target: Optional[list[str]] = TargetOpt,
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    standardize: bool = StandardizeOpt,
    arch: str = ArchOpt,
    mode: str = ModeOpt,
    dt: float = DtOpt,
    steps: int = StepsOpt,
    integrator: str = IntegratorOpt,
    learnable_dt: bool = LearnableDtOpt,
    readout: str = ReadoutOpt,
    descriptors: Optional[bool] = DescriptorsOpt,
    descriptor_set: Optional[str] = DescriptorSetOpt,
    hidden: Optional[int] = HiddenOpt,
    dropout: Optional[float] = DropoutOpt,
    heads: int = HeadsOpt,
    epochs: Optional[int] = EpochsOpt,
    batch_size: int = BatchSizeOpt,
    lr: float = LrOpt,
    weight_decay: float = WeightDecayOpt,
    seed: int = SeedOpt,
    val_fraction: Optional[float] = ValFractionOpt,
    patience: int = PatienceOpt,
    ensemble: Optional[int] = EnsembleOpt,
    blend_catboost: Optional[float] = BlendOpt,
    preset: str = PresetOpt,
    device: str = DeviceOpt,
    output: Path = typer.Option(Path("model.pt"), "--output", "-o", help="Model file to write."),
) -> None:
    """Train a model and save it as one self-describing file."""
    from scoremol.checkpoint import save_model
    from scoremol.device import resolve_device
    from scoremol.train import train_model
    from scoremol.training_setup import make_configs

    resolve_device(device)
    hidden, dropout, descriptors, epochs, ensemble, blend_catboost = _apply_preset(
        preset, hidden=hidden, dropout=dropout, descriptors=descriptors, epochs=epochs, ensemble=ensemble,
        blend_catboost=blend_catboost).values()
    val_fraction = _val_fraction(arch, val_fraction, preset)
    data, entry, gnn_desc = _load_for_training(input, smiles_col, fmt, standardize, arch, descriptors, descriptor_set,
                                               blend_catboost)
    targets = list(target) if target else _default_targets(entry, data)
    opts = {k: v for k, v in locals().items() if k in _MODEL_OPTION_NAMES}
    model_config, train_config = make_configs(data, targets, gnn_descriptors=gnn_desc, **opts)
    if data.num_failed:
        info(f"{data.num_failed} of {data.num_rows} rows could not be featurized and are left out of training")
    units = [entry.units if entry and t == entry.target_col else "" for t in targets]
    with _training_progress(ensemble, epochs) as on_epoch:
        model = train_model(data, targets, model_config, train_config, target_units=units, on_epoch=on_epoch,
                            gnn_descriptors=gnn_desc)
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
    if model.tree is not None:
        summary.add_row("CatBoost blend", f"weight {model.tree.weight:g}, {model.tree.best_iteration} trees")
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
def cv(
    input: str = typer.Argument(..., help="CSV/TSV/SDF file, a data set name (esol, ...), or a features file."),
    target: Optional[list[str]] = TargetOpt,
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    standardize: bool = StandardizeOpt,
    folds: int = typer.Option(5, "--folds", help="Number of folds (ignored with --folds-file)."),
    folds_file: Optional[Path] = typer.Option(None, "--folds-file", help="CSV with columns row,fold (0-based data rows)."),
    split: str = typer.Option("random", "--split", help="random or scaffold (Bemis-Murcko groups kept whole)."),
    repeats: int = typer.Option(1, "--repeats", help="Repeat with new random folds (not with --folds-file)."),
    morgan: bool = typer.Option(False, "--morgan/--no-morgan", help="CatBoost: add Morgan count fingerprints."),
    arch: str = ArchOpt,
    mode: str = ModeOpt,
    dt: float = DtOpt,
    steps: int = StepsOpt,
    integrator: str = IntegratorOpt,
    learnable_dt: bool = LearnableDtOpt,
    readout: str = ReadoutOpt,
    descriptors: Optional[bool] = DescriptorsOpt,
    descriptor_set: Optional[str] = DescriptorSetOpt,
    hidden: Optional[int] = HiddenOpt,
    dropout: Optional[float] = DropoutOpt,
    heads: int = HeadsOpt,
    epochs: Optional[int] = EpochsOpt,
    batch_size: int = BatchSizeOpt,
    lr: float = LrOpt,
    weight_decay: float = WeightDecayOpt,
    seed: int = SeedOpt,
    val_fraction: Optional[float] = ValFractionOpt,
    patience: int = PatienceOpt,
    ensemble: Optional[int] = EnsembleOpt,
    blend_catboost: Optional[float] = BlendOpt,
    preset: str = PresetOpt,
    device: str = DeviceOpt,
    output_dir: Optional[Path] = typer.Option(None, "--output-dir", "-o", help="Write cv_results.json, cv_folds.csv, oof_predictions.csv here."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on standard output."),
) -> None:
    """Cross-validate a model or baseline: per-fold metrics and mean +/- std."""
    import json

    from scoremol import cv as cvlib
    from scoremol.device import resolve_device
    from scoremol.training_setup import make_configs

    resolve_device(device)
    hidden, dropout, descriptors, epochs, ensemble, blend_catboost = _apply_preset(
        preset, hidden=hidden, dropout=dropout, descriptors=descriptors, epochs=epochs, ensemble=ensemble,
        blend_catboost=blend_catboost).values()
    is_catboost = arch == "catboost"
    val_fraction = _val_fraction(arch, val_fraction, preset)
    data, entry, gnn_desc = _load_for_training(input, smiles_col, fmt, standardize, arch, descriptors or is_catboost,
                                               descriptor_set, 0.0 if is_catboost else blend_catboost)
    targets = list(target) if target else _default_targets(entry, data)
    if len(targets) != 1:
        raise ScoremolError("cv evaluates one target at a time; pass a single --target")
    if repeats < 1:
        raise ScoremolError("--repeats must be at least 1")
    y = data.column_values(targets[0])
    smiles = data.table[data.smiles_col].astype(str).tolist()
    graph_smiles = [smiles[r] for r in data.graph_row]
    if folds_file is not None:
        if repeats > 1:
            raise ScoremolError("--repeats needs generated folds; it cannot be combined with --folds-file")
        fold_of_graph = cvlib.folds_from_file(folds_file, data.num_rows)[data.graph_row]
    else:
        fold_of_graph = cvlib.make_folds(graph_smiles, folds, split, seed)

    def refold(r: int):
        return cvlib.make_folds(graph_smiles, folds, split, seed + r)

    opts = {k: v for k, v in locals().items() if k in _MODEL_OPTION_NAMES}
    config = {"input": input, "target": targets[0], "split": "file" if folds_file else split, "folds_file": str(folds_file) if folds_file else None, "folds": int(len(set(fold_of_graph.tolist()) - {-1})), "repeats": repeats}
    if is_catboost:
        runner = cvlib.catboost_runner(data, targets[0], morgan, val_fraction)
        config.update(arch="catboost", morgan=morgan, seed=seed, val_fraction=val_fraction)
    else:
        model_config, train_config = make_configs(data, targets, gnn_descriptors=gnn_desc, **{**opts, "descriptors": descriptors})
        runner = cvlib.graph_runner(data, targets[0], model_config, train_config, gnn_desc)
        config.update(model=model_config.to_dict(), train=train_config.to_dict())

    table = Table(title=f"cv: {arch}" + ("" if is_catboost else f" / {mode}") + f" on {input}")
    for col in ("repeat", "fold", "train", "test", "RMSE", "MAE", "R2", "best epoch", "seconds", "parameters"):
        table.add_column(col, justify="right")

    def on_fold(r) -> None:
        info(f"fold {r.fold} (repeat {r.repeat}): RMSE {r.rmse:.4f}  MAE {r.mae:.4f}  R2 {r.r2:.3f}  {r.seconds:.1f} s")
        table.add_row(str(r.repeat), str(r.fold), str(r.n_train), str(r.n_test), f"{r.rmse:.4f}", f"{r.mae:.4f}", f"{r.r2:.3f}", f"{r.best_epoch:.0f}", f"{r.seconds:.1f}", f"{r.parameters:,}")

    results = cvlib.run_cv(fold_of_graph, y, runner, repeats, seed, refold, on_fold)
    summary = cvlib.summarize(results)
    table.add_section()
    table.add_row("", "mean", "", "", f"{summary['rmse']['mean']:.4f} ± {summary['rmse']['std']:.4f}", f"{summary['mae']['mean']:.4f} ± {summary['mae']['std']:.4f}", f"{summary['r2']['mean']:.3f} ± {summary['r2']['std']:.3f}", f"{summary['best_epoch']['mean']:.0f}", f"{summary['seconds']['mean']:.1f}", "")
    console.print(table)
    payload = {"config": config, "summary": summary, "folds": [r.row() for r in results]}
    if output_dir is not None:
        cvlib.write_outputs(output_dir, config, results, data, targets[0])
        info(f"wrote cv_results.json, cv_folds.csv, oof_predictions.csv to {output_dir}")
    if as_json:
        typer.echo(json.dumps(payload, indent=2))


@app.command()
def predict(
    input: str = typer.Argument(..., help="CSV/TSV/SMI/SDF file, or - for standard input."),
    model: Optional[Path] = typer.Option(
        None, "--model", "-m",
        help="Model file, or a bundled model: esol (the default: accurate ESOL solubility model) or fast (the "
             "--preset fast ESOL model, several times faster for screening)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write CSV here (default: standard output)."),
    smiles_col: Optional[str] = SmilesCol,
    fmt: Optional[str] = FormatOpt,
    batch_size: Optional[int] = typer.Option(
        None, "--batch-size", min=1, help="Molecules per inference batch (default: 128 on a CPU, 256 on a GPU)."),
    chunk_size: int = typer.Option(2000, "--chunk-size", help="Rows read, predicted and written at a time."),
    device: str = typer.Option("cpu", "--device", help="cpu, cuda or auto."),
    progress: bool = typer.Option(False, "--progress", help="Show progress even when stderr is not a terminal."),
    network_only: bool = typer.Option(
        False, "--network-only",
        help="Skip a blended CatBoost model (screening mode): only the network's own descriptors are computed, "
             "several times faster, slightly less accurate (see BENCHMARKS.md)."),
    workers: Optional[int] = WorkersOpt,
) -> None:
    """Predict every input row; output keeps the rows, in order, with predictions appended."""
    from scoremol.head_start import HeadStart
    from scoremol.models import resolve_model

    model, bundled = resolve_model(model)
    if bundled is not None:
        info(f"using the bundled {'fast ' if bundled == 'fast' else ''}ESOL solubility model ({model.name})"
             + ("; pass --model to use your own" if bundled == "esol" else ""))
    # The head start (featurizing the first rows while torch is imported) is built and
    # tested but not enabled: with it, a Ctrl-C right after the output file is opened was
    # lost in about one run in three (tests/test_interrupts.py), cause not yet found.
    head: HeadStart | None = None
    try:
        _predict(input, model, head, output, smiles_col, fmt, batch_size, chunk_size, device, progress, network_only,
                 workers)
    finally:
        if head is not None:
            head.close()


def _predict(input: str, model: Path, head, output: Optional[Path], smiles_col: Optional[str], fmt: Optional[str],
             batch_size: Optional[int], chunk_size: int, device: str, progress: bool, network_only: bool,
             workers: Optional[int]) -> None:
    from scoremol.checkpoint import load_model
    from scoremol.device import resolve_device
    from scoremol.io import atomic_write
    from scoremol.predict import predict_stream

    dev = resolve_device(device)
    trained = load_model(model)
    if network_only:
        trained = trained.without_tree()
    featurized = head.take(trained.featurizer) if head is not None else None
    show = progress or console.is_terminal
    start = time.perf_counter()

    def report(rows: int, ok: int) -> None:
        if show and not _state["quiet"]:
            console.print(f"{rows:,} rows, {ok:,} predicted, {rows / (time.perf_counter() - start):,.0f} rows/s", highlight=False)

    if output is None:
        summary = predict_stream(trained, input, sys.stdout, smiles_col, fmt, batch_size, chunk_size, dev, report, workers,
                                 featurized)
        sys.stdout.flush()
    else:
        with atomic_write(output, "w", newline="") as handle:
            summary = predict_stream(trained, input, handle, smiles_col, fmt, batch_size, chunk_size, dev, report,
                                     workers, featurized)
    seconds = time.perf_counter() - start
    info(f"predicted {summary.predicted:,}/{summary.rows:,} rows ({summary.failed:,} without a prediction, see the reason column) in {seconds:.1f} s")


class _Terminated(BaseException):
    """Raised by the SIGTERM handler so that ``finally`` blocks and atomic writes clean up."""


def _terminate(signum, frame) -> None:
    raise _Terminated()


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with -v.

    A closed standard output (``| head``) is handled by Typer itself: silent exit 1.
    """
    signal.signal(signal.SIGTERM, _terminate)  # `kill`, job schedulers: clean up like Ctrl-C
    try:
        rc = app(standalone_mode=False)
        # Typer turns Ctrl-C into a *returned* exit code 130 when not in standalone mode.
        if rc == 130:
            raise KeyboardInterrupt
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except ScoremolError as exc:
        if _state["verbose"]:
            raise
        print(f"scoremol: error: {exc}", file=sys.stderr)
        sys.exit(1)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code or 0)
    except KeyboardInterrupt:
        exit_interrupted("scoremol: interrupted", 130)
    except _Terminated:
        exit_interrupted("scoremol: terminated", 143)
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
