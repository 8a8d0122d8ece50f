"""Models shipped inside the package (rebuilt by ``scripts/build_bundled_model.sh``).

Each has a name that ``predict --model`` accepts and a card that ``scoremol models`` lists:
what it learned from, how accurate and how fast it is (20,000 SMILES through the whole
command on 2 CPU cores, bench/model_speed.py). Figures come from bench/results/, rendered
into figures.json by scripts/render_figures.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from scoremol.errors import ScoremolError

HERE = Path(__file__).parent
#: headline figures rendered from bench/results/ by scripts/render_figures.py
FIGURES: dict[str, str] = json.loads((HERE / "figures.json").read_text())


def figures(text: str) -> str:
    """``text`` with each ``{key}`` replaced by its figure from :data:`FIGURES`."""
    return re.sub(r"\{([\w.\-]+)\}", lambda m: FIGURES.get(m.group(1), "?"), text)


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


#: the ``adme`` base's tasks, in its target order: (label, what it answers, yes/no)
ADME_TASKS: tuple[tuple[str, str, bool], ...] = (
    ("logS", "water solubility, log10(mol/L) (AqSolDB)", False),
    ("logD", "octanol/water distribution at pH 7.4 (AstraZeneca)", False),
    ("logSol_pH6.8", "kinetic solubility in pH 6.8 buffer, log10(ug/mL) (Biogen)", False),
    ("logHLM_CLint", "human liver microsome clearance, log10(mL/min/kg) (Biogen)", False),
    ("logRLM_CLint", "rat liver microsome clearance, log10(mL/min/kg) (Biogen)", False),
    ("logMDR1_ER", "MDR1-MDCK efflux ratio, log10 (Biogen)", False),
    ("logPPB_human", "human plasma protein binding, log10(% unbound) (Biogen)", False),
    ("logPPB_rat", "rat plasma protein binding, log10(% unbound) (Biogen)", False),
    ("logD_PB", "logD at pH 7.4 (PharmaBench)", False),
    ("logS_PB", "water solubility, log10(mol/L) (PharmaBench)", False),
    ("BBB", "probability of crossing the blood-brain barrier (PharmaBench)", True),
    ("Ames", "probability of a mutagenic Ames test (PharmaBench)", True),
    ("PPB_fb", "plasma protein binding, fraction bound (PharmaBench)", False),
    ("CYP2C9", "CYP2C9 inhibition, values 0-100 as upstream (PharmaBench)", False),
    ("CYP2D6", "CYP2D6 inhibition, values 0-100 as upstream (PharmaBench)", False),
    ("CYP3A4", "CYP3A4 inhibition, values 0-100 as upstream (PharmaBench)", False),
    ("logCL_HLM", "human microsomal clearance, log10(mL/min/g) (PharmaBench)", False),
    ("logCL_RLM", "rat microsomal clearance, log10(mL/min/g) (PharmaBench)", False),
    ("logCL_MLM", "mouse microsomal clearance, log10(mL/min/g) (PharmaBench)", False),
)


def _adme_card(label: str, question: str, yes_no: bool) -> TaskCard:
    """One ``adme`` task: its column and its figures on its own scaffold test, if one is shared."""
    column = f"{label}_prob" if yes_no else f"{label}_pred"
    if not any(key.startswith(f"adme.{label}.") for key in FIGURES):
        return TaskCard(column, question, "no shared scaffold split to score it on")
    if yes_no:
        key = f"adme.{label}"
        text = f"scaffold test AUROC {{{key}.auroc}}, ECE {{{key}.ece}}; 90 % sets cover {{{key}.set_cover90}}"
        return TaskCard(column, question, figures(text))
    key = f"adme.{label}"
    text = f"scaffold test MAE {{{key}.mae}}, Spearman {{{key}.spearman}}; 90 % interval covers {{{key}.cover90}}"
    return TaskCard(column, question, figures(text))


MODELS: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            "multitask",
            "solubility_multitask.pt",
            "default: 4 DMPNN/SCORE networks + a tree per task, three tasks",
            "AqSolDB, Biogen pH 6.8, logD 7.4: 16,051",
            figures(
                "Biogen MAE {drug.multitask.logSol_pH6.8.mae}, Spearman {drug.multitask.logSol_pH6.8.spearman}; "
                "AqSolDB MAE {drug.multitask.logS.mae}"
            ),
            figures("{speed.multitask.mol_s} molecules/s"),
            tasks=(
                TaskCard(
                    "logS_pred",
                    "water solubility, log10(mol/L) (AqSolDB's scale)",
                    figures(
                        "AqSolDB scaffold test MAE {drug.multitask.logS.mae} (chemprop multi-task "
                        "{drug.chemprop-mt.logS.mae}); 90 % interval covers {drug.multitask.logS.cover90}"
                    ),
                ),
                TaskCard(
                    "logSol_pH6.8_pred",
                    "kinetic solubility in pH 6.8 buffer, log10(ug/mL) (Biogen's assay)",
                    figures(
                        "Biogen scaffold test MAE {drug.multitask.logSol_pH6.8.mae}, Spearman "
                        "{drug.multitask.logSol_pH6.8.spearman} (chemprop multi-task "
                        "{drug.chemprop-mt.logSol_pH6.8.mae}, {drug.chemprop-mt.logSol_pH6.8.spearman}); "
                        "90 % interval covers "
                        "{drug.multitask.logSol_pH6.8.cover90}"
                    ),
                ),
                TaskCard(
                    "logD_pred",
                    "octanol/water distribution at pH 7.4 (AstraZeneca's assay)",
                    figures(
                        "logD scaffold test MAE {drug.multitask.logD.mae}, Spearman {drug.multitask.logD.spearman} "
                        "(chemprop multi-task {drug.chemprop-mt.logD.mae}, {drug.chemprop-mt.logD.spearman}); 90 % "
                        "interval covers {drug.multitask.logD.cover90}"
                    ),
                ),
            ),
        ),
        BundledModel(
            "aqsoldb",
            "aqsoldb_solubility.pt",
            "water only: 4 DMPNN/SCORE networks + CatBoost blend, molecules as given, log10(mol/L)",
            "AqSolDB, 9,857 compounds",
            figures("AqSolDB scaffold test MAE {aqsoldb.default.mae} ({aqsoldb.default.seeds} seeds)"),
            figures("{speed.aqsoldb.mol_s} molecules/s"),
        ),
        BundledModel(
            "esol",
            "esol_solubility.pt",
            "the default configuration trained on ESOL, log10(mol/L)",
            "ESOL, 1,128 molecules",
            "ESOL 5-fold RMSE 0.518-0.520 (calibrated, as shipped; 0.517 without)",
            figures("{speed.esol.mol_s} molecules/s"),
        ),
        BundledModel(
            "fast",
            "solubility_fast.pt",
            "screening: one small graph-only DMPNN/SCORE network, same three tasks, taught by the default "
            "recipe trained without the tenth it calibrates on",
            "AqSolDB, Biogen pH 6.8, logD 7.4: 16,051, + 10,000 BRICS molecules labelled by the teacher",
            figures(
                "AqSolDB MAE {drug.distilled-unseen.logS.mae}; Biogen MAE {drug.distilled-unseen.logSol_pH6.8.mae}, "
                "Spearman {drug.distilled-unseen.logSol_pH6.8.spearman}; logD MAE {drug.distilled-unseen.logD.mae}; "
                "90 % intervals cover {drug.distilled-unseen.logS.cover90} / "
                "{drug.distilled-unseen.logSol_pH6.8.cover90} / {drug.distilled-unseen.logD.cover90}"
            ),
            figures("{speed.fast.mol_s} molecules/s"),
        ),
        BundledModel(
            "esol-fast",
            "esol_solubility_fast.pt",
            "screening: one small graph-only DMPNN/SCORE network, log10(mol/L)",
            "ESOL, 1,128 molecules",
            "ESOL 5-fold RMSE 0.575",
            figures("{speed.esol-fast.mol_s} molecules/s"),
        ),
        BundledModel(
            "adme",
            "adme_base.pt",
            "base for --from: 4 DMPNN/SCORE networks (no tree), 19 ADME tasks at once, 17 numbers and 2 yes/no",
            "AqSolDB, AstraZeneca logD, Biogen's six assays, PharmaBench's eleven sets, less every scaffold test",
            figures(
                "AqSolDB MAE {adme.logS.mae}; logD MAE {adme.logD.mae}; BBB AUROC {adme.BBB.auroc}; "
                "Ames AUROC {adme.Ames.auroc} (each its scaffold test)"
            ),
            figures("{speed.adme.mol_s} molecules/s"),
            tasks=tuple(_adme_card(*task) for task in ADME_TASKS),
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
