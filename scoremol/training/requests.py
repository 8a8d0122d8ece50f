"""What ``train``, ``cv`` and ``featurize`` ask for besides the model: the inputs' columns,
the folds, the feature options. Light to import: each field's metadata is its
command-line option (:func:`scoremol.spec.option`), the one source of these defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from scoremol.spec import FORMAT_HELP, INPUT, OUTPUT, RUN, SMILES_COL_HELP, WORKERS_HELP, option

FOLDS = "Folds"


@dataclass(frozen=True)
class DataColumns:
    """Which columns of the training input(s) to read."""

    target: list[str] | None = option(
        None, "Target column; repeat for several (default: the data set's).", INPUT, short="-t", metavar="COLUMN"
    )
    smiles_col: str | None = option(None, SMILES_COL_HELP, INPUT)
    fmt: str | None = option(None, FORMAT_HELP, INPUT, "--format")
    task_type: list[str] | None = option(
        None,
        "TARGET=classification or TARGET=regression; repeat per target (default: two words such as yes/no, or "
        "only 0 and 1, are classes; numbers are regressed).",
        INPUT,
        metavar="TARGET=KIND",
    )


@dataclass(frozen=True)
class TrainFiles:
    """Where ``train`` writes its model, and the molecules it reads besides its inputs."""

    output: Path = option(Path("model.pt"), "Model file to write.", OUTPUT, short="-o")
    unlabelled: str | None = option(
        None,
        "Molecules without labels (a SMILES file or data set name) for the --teacher to label.",
        INPUT,
        metavar="FILE",
    )
    exclude: str | None = option(
        None,
        "Molecules (a SMILES file or data set name) to leave out of training, matched as merged inputs are. "
        "A teacher trained without some molecules lets its student calibrate on them.",
        INPUT,
        metavar="FILE",
    )


@dataclass(frozen=True)
class CVPlan:
    """How ``cv`` folds the data and where its results go."""

    folds: int = option(5, "Number of folds (not with --folds-file).", FOLDS)
    folds_file: Path | None = option(None, "CSV with columns row,fold (0-based data rows).", FOLDS)
    split: Literal["random", "scaffold"] = option(
        "random", "random or scaffold (Bemis-Murcko groups kept whole).", FOLDS
    )
    repeats: int = option(1, "Repeat with new random folds.", FOLDS)
    output_dir: Path | None = option(
        None, "Write cv_results.json, cv_folds.csv, oof_predictions.csv here.", OUTPUT, short="-o"
    )
    json: bool = option(False, "Print the summary as JSON on standard output.", OUTPUT, negatable=False)

    def __post_init__(self) -> None:
        if self.folds_file is not None and self.folds != CVPlan.__dataclass_fields__["folds"].default:
            raise ValueError("--folds and --folds-file both choose the folds; give one of them")


@dataclass(frozen=True)
class FeaturizeRequest:
    """How ``featurize`` reads its input and what it computes and writes besides the features."""

    descriptors: bool = option(True, "Also compute RDKit 2D descriptors.", INPUT)
    descriptor_set: str | None = option(
        None, "all, fast, tree or a comma list of RDKit names (default: what the default model needs).", INPUT
    )
    smiles_col: str | None = option(None, SMILES_COL_HELP, INPUT)
    fmt: str | None = option(None, FORMAT_HELP, INPUT, "--format")
    standardize: bool = option(True, "Keep the largest organic fragment, neutralize charges.", INPUT)
    strict: bool = option(False, "Fail if any row is invalid.", INPUT, negatable=False)
    cache: bool = option(True, "Reuse features of identical input.", RUN)
    report: Path | None = option(None, "Write row,smiles,status,reason CSV here.", OUTPUT)
    workers: int | None = option(None, WORKERS_HELP, RUN, min=1)
