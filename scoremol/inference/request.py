"""What a ``predict`` run asks for: the one source of its defaults, light to import.

Each field's metadata is its command-line option (:func:`scoremol.spec.option`), so the
command line builds ``predict``'s options from here and shows these defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoremol.spec import DEFAULT_COVERAGE, FORMAT_HELP, INPUT, OUTPUT, RUN, SMILES_COL_HELP, Device, option

#: rows a report lists at most (the rest is in its summary)
REPORT_ROWS = 1000


@dataclass(frozen=True)
class PredictRequest:
    """How ``predict`` reads its input, which model predicts, and what it writes."""

    model: Path | None = option(
        None,
        "Model file, or a bundled model (scoremol models): multitask (default), aqsoldb, fast, esol, esol-fast.",
        INPUT,
        short="-m",
    )
    smiles_col: str | None = option(None, SMILES_COL_HELP, INPUT)
    fmt: str | None = option(None, FORMAT_HELP, INPUT, "--format")
    output: Path | None = option(
        None, "Write CSV here, or Parquet for a .parquet name (default: CSV on standard output).", OUTPUT, short="-o"
    )
    target: list[str] | None = option(
        None,
        "Write only this target's columns (a label as scoremol models lists it: logS, BBB, ...); repeat for "
        "several (default: every target's).",
        OUTPUT,
        short="-t",
        metavar="LABEL",
    )
    legacy_names: bool = option(
        False,
        "Name prediction columns after the training column (scoremol 0.1) instead of <label>_pred, e.g. logS_pred "
        "in log10(mol/L).",
        OUTPUT,
        negatable=False,
    )
    coverage: float = option(
        DEFAULT_COVERAGE,
        "Coverage of the <label>_lo/_hi interval: it holds the true value this often (calibrated on molecules "
        "held out in training).",
        OUTPUT,
        min=0.01,
        max=0.99,
    )
    threshold: list[str] | None = option(
        None,
        "Add <label>_p_below, the probability that the value is below this: T for the first target (--threshold "
        "-4: logS < -4, 'poorly soluble'), LABEL=T for another (--threshold logSol_pH6.8=1: below 10 ug/mL); "
        "repeatable.",
        OUTPUT,
        metavar="T|LABEL=T",
    )
    ugml: bool = option(
        False,
        "Also give each solubility in ug/mL (<label>_ugml, with _ugml_lo/_ugml_hi), converted with the molar mass "
        "of the predicted form.",
        OUTPUT,
        negatable=False,
    )
    progress: bool = option(False, "Show progress even when stderr is not a terminal.", OUTPUT, negatable=False)
    report: Path | None = option(
        None,
        "Also write an HTML report here: structures, intervals, nearest training molecules, atom maps (one file, "
        "opens offline).",
        OUTPUT,
    )
    report_rows: int = option(
        REPORT_ROWS,
        "Rows in the report's table: the most worth a look (failed, out of domain, least soluble).",
        OUTPUT,
        min=1,
    )
    network_only: bool = option(
        False, "Skip a blended CatBoost model: several times faster, slightly less accurate.", RUN, negatable=False
    )
    batch_size: int | None = option(
        None, "Molecules per inference batch (default: 128 on a CPU, 256 on a GPU).", RUN, min=1
    )
    chunk_size: int = option(2000, "Rows read, predicted and written at a time.", RUN, min=1)
    device: Device = option("cpu", "cpu, cuda or auto.", RUN)
    workers: int | None = option(
        None,
        "Processes for large inputs (default: all CPUs; 1 = one process); with --scheduler local, the cluster's "
        "worker processes.",
        RUN,
        min=1,
    )
