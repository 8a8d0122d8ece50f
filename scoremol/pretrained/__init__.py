"""Models shipped inside the package (rebuilt by ``scripts/build_bundled_model.sh``).

Each has a name that ``predict --model`` accepts and a card that ``scoremol models`` lists:
what it learned from, how accurate and how fast it is. Figures come from BENCHMARKS.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoremol.errors import ScoremolError

HERE = Path(__file__).parent


@dataclass(frozen=True)
class TaskCard:
    """One target of a bundled model: its output column, what it answers, how well."""

    column: str
    question: str
    benchmark: str


@dataclass(frozen=True)
class BundledModel:
    """A shipped model file and what a user needs to choose it."""

    name: str
    filename: str
    description: str
    training_data: str
    benchmark: str
    speed: str
    #: per target, for multi-task models (single-target models say it all in ``benchmark``)
    tasks: tuple[TaskCard, ...] = ()

    @property
    def path(self) -> Path:
        return HERE / self.filename


MODELS: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            "multitask",
            "solubility_multitask.pt",
            "default: 4 DMPNN/SCORE networks + a CatBoost blend per task, one network pass for three tasks",
            "AqSolDB (water), Biogen ADME (pH 6.8 buffer), AstraZeneca logD 7.4: 16,051 molecules",
            "CARD_BENCHMARK",
            "CARD_SPEED",
            tasks=(
                TaskCard(
                    "logS_pred",
                    "water solubility, log10(mol/L) (AqSolDB's scale)",
                    "CARD_LOGS",
                ),
                TaskCard(
                    "logSol_pH6.8_pred",
                    "kinetic solubility in pH 6.8 buffer, log10(ug/mL) (Biogen's assay)",
                    "CARD_BIOGEN",
                ),
                TaskCard(
                    "logD_pred",
                    "octanol/water distribution at pH 7.4 (AstraZeneca's assay)",
                    "CARD_LOGD",
                ),
            ),
        ),
        BundledModel(
            "aqsoldb",
            "aqsoldb_solubility.pt",
            "water only: 4 DMPNN/SCORE networks + CatBoost blend, molecules as given, log10(mol/L)",
            "AqSolDB, 9,857 compounds",
            "AqSolDB scaffold test MAE 0.686",
            "about 570 molecules/s",
        ),
        BundledModel(
            "esol",
            "esol_solubility.pt",
            "the default configuration trained on ESOL, log10(mol/L)",
            "ESOL, 1,128 molecules",
            "ESOL 5-fold RMSE 0.517",
            "about 550 molecules/s",
        ),
        BundledModel(
            "fast",
            "aqsoldb_solubility_fast.pt",
            "screening: one small graph-only DMPNN/SCORE network, molecules as given, log10(mol/L)",
            "AqSolDB, 9,857 compounds",
            "AqSolDB scaffold test MAE 0.792",
            "about 3,000-5,700 molecules/s (configuration of esol-fast)",
        ),
        BundledModel(
            "esol-fast",
            "esol_solubility_fast.pt",
            "screening: one small graph-only DMPNN/SCORE network, log10(mol/L)",
            "ESOL, 1,128 molecules",
            "ESOL 5-fold RMSE 0.575",
            "about 3,000-5,700 molecules/s",
        ),
    )
}
DEFAULT_MODEL = "multitask"
#: Names ``predict --model`` accepts, and their files.
BUNDLED: dict[str, Path] = {name: m.path for name, m in MODELS.items()}


def bundled_model_path(name: str = DEFAULT_MODEL) -> Path:
    """A bundled model's file; a clear error if the package lacks it."""
    path = BUNDLED[name]
    if not path.is_file():
        raise ScoremolError(f"the bundled model is missing ({path}); pass --model or reinstall scoremol")
    return path


def resolve_model(requested: Path | None) -> tuple[Path, str | None]:
    """``(model file, bundled name or None)``: an existing file wins over a bundled name."""
    if requested is None:
        return bundled_model_path(), DEFAULT_MODEL
    if not requested.exists() and str(requested) in BUNDLED:
        return bundled_model_path(str(requested)), str(requested)
    return requested, None
