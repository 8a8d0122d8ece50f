"""What ``report`` and ``explain`` ask for (light to import: the command line's options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoremol.inference.request import REPORT_ROWS
from scoremol.spec import INPUT, OUTPUT, SMILES_COL_HELP, option

MODEL_HELP = "Model file or bundled model (default: the default model)."


@dataclass(frozen=True)
class ReportRequest:
    """Where the report of an existing predict output goes and what it draws on."""

    output: Path = option(Path("report.html"), "HTML file to write.", OUTPUT, short="-o")
    model: Path | None = option(None, MODEL_HELP, INPUT, short="-m")
    smiles_col: str | None = option(None, SMILES_COL_HELP, INPUT)
    report_rows: int = option(
        REPORT_ROWS,
        "Rows in the report's table: the most worth a look (failed, out of domain, least soluble).",
        OUTPUT,
        min=1,
    )


@dataclass(frozen=True)
class ExplainRequest:
    """Which model and task ``explain`` explains, and where its files go."""

    output_dir: Path = option(Path("explanations"), "Folder for the files.", OUTPUT, short="-o")
    model: Path | None = option(None, MODEL_HELP, INPUT, short="-m")
    task: str | None = option(None, "Task label to explain (default: the first).", INPUT)
    smiles_col: str | None = option(None, SMILES_COL_HELP, INPUT)
