"""Headline figures from one source: the results files under bench/results/.

Run: python scripts/render_figures.py [--check]

Computes each headline figure from the committed results files, writes them into
``scoremol/pretrained/figures.json`` (the model cards of ``scoremol models`` read it) and
into every ``<!--fig:KEY-->VALUE<!--/fig-->`` marker of the docs (README.md,
BENCHMARKS.md, docs/usage.md, docs/benchmark_details.md). ``--check`` changes nothing and fails when a figure in the
docs or the cards disagrees with its source; tests/test_docs_figures.py runs the check.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DOCS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "docs" / "usage.md", ROOT / "docs" / "benchmark_details.md"]
CARDS = ROOT / "scoremol" / "pretrained" / "figures.json"
MARKER = re.compile(r"<!--fig:([\w.\-]+)-->(.*?)<!--/fig-->")

#: the AqSolDB scaffold-split sittings of the bundled AqSolDB model's recipe (5 seeds)
AQSOLDB_RUNS = ["aqsoldb_2026-12-05b.csv", "aqsoldb_2026-12-05c.csv"]
AQSOLDB_CARE = "standardize=False drop_inorganic=False dedupe=none"
#: the drug-like benchmark's sitting
DRUG_LIKE_RUN = "drug_like_2026-12-05.csv"
#: systems whose recipe changed within the sitting: the tag of their current recipe's rows
#: (each earlier recipe's rows render as ``<system>-<name>`` by their tag, see below)
DRUG_LIKE_RECIPE = {"multitask": "task-similarity", "single": "blend-per-task"}
#: earlier recipes by tag: a blend weight chosen per task with one similarity for every
#: task's interval; any other tag, one blend weight of 0.4 for every task
DRUG_LIKE_EARLIER = {"blend-per-task": "one-similarity"}
#: the distilled fast models' sittings and the systems each contributes (their teachers'
#: rows there are not headline figures): a student whose teacher saw its calibration
#: molecules, and one whose teacher never saw them (the bundled recipe: since 2026-12-07 its
#: domain searches 16 principal components; the 12-06 sitting's students searched all 64)
DRUG_LIKE_DISTILLED = {
    "drug_like_distill_2026-12-06.csv": ("distilled",),
    "drug_like_distill_unseen_2026-12-06.csv": ("multitask-without-tenth",),
    "drug_like_distill_pca16_2026-12-07.csv": ("distilled-unseen",),
}
#: every bundled model's prediction speed (bench/model_speed.py), by sitting
SPEED_RUNS = "model_speed.csv"
#: the bundled adme base's figures on each scaffold test (bench/base_tasks.py)
ADME_TASKS = "adme_tasks_2026-12-07.csv"


def compute() -> dict[str, str]:
    """Every headline figure, formatted as the docs print it."""
    figures: dict[str, str] = {}
    aqsoldb = pd.concat([pd.read_csv(RESULTS / name) for name in AQSOLDB_RUNS])
    aqsoldb = aqsoldb[aqsoldb.care == AQSOLDB_CARE]
    for system, rows in aqsoldb.groupby("system"):
        figures[f"aqsoldb.{system}.mae"] = f"{rows.mae.mean():.3f}"
        figures[f"aqsoldb.{system}.mae_std"] = f"{rows.mae.std(ddof=0):.3f}"
        figures[f"aqsoldb.{system}.seeds"] = str(len(rows))
    drug = pd.read_csv(RESULTS / DRUG_LIKE_RUN)
    drug = drug[drug.get("output", pd.Series(index=drug.index, dtype=object)).isna()]  # ADMET-AI rows apart
    for system, tag in DRUG_LIKE_RECIPE.items():
        tags = drug.tag.fillna("")
        earlier = (drug.system == system) & (tags != tag)
        names = tags[earlier].map(lambda t: DRUG_LIKE_EARLIER.get(t, "fixed-weight"))
        drug.loc[earlier, "system"] = system + "-" + names
    for name, systems in DRUG_LIKE_DISTILLED.items():
        distilled = pd.read_csv(RESULTS / name)
        drug = pd.concat([drug, distilled[distilled.system.isin(systems)]], ignore_index=True)
    for (system, task), rows in drug.groupby(["system", "task"]):
        for metric in ("mae", "rmse", "r2", "spearman", "cover90", "width90"):
            if metric in rows and rows[metric].notna().any():
                figures[f"drug.{system}.{task}.{metric}"] = f"{rows[metric].mean():.3f}"
        figures[f"drug.{system}.{task}.seeds"] = str(rows.seed.nunique())
        figures[f"drug.{system}.{task}.train_s"] = f"{rows.train_s.median():.0f}"
    for system, rows in drug.groupby("system"):
        figures[f"drug.{system}.train_s"] = f"{rows.train_s.median():.0f}"
    speed = RESULTS / SPEED_RUNS
    if speed.is_file():  # each bundled model's latest sitting
        runs = pd.read_csv(speed)
        for model, rows in runs.groupby("model"):
            latest = rows[rows.date == rows.date.max()].iloc[-1]
            figures[f"speed.{model}.mol_s"] = (
                f"{int(latest.molecules_per_s // 10 * 10 + (10 if latest.molecules_per_s % 10 >= 5 else 0)):,}"
            )
    if (RESULTS / ADME_TASKS).is_file():
        for row in pd.read_csv(RESULTS / ADME_TASKS).itertuples():
            for metric in ("mae", "spearman", "cover90", "auroc", "ece", "set_cover90"):
                value = getattr(row, metric, float("nan"))
                if pd.notna(value):
                    figures[f"adme.{row.label}.{metric}"] = f"{value:.3f}"
    admet = pd.read_csv(RESULTS / DRUG_LIKE_RUN)
    if "output" in admet:
        for _, row in admet[admet.output.notna()].iterrows():
            figures[f"drug.admet-ai.{row.output}.spearman"] = f"{row.spearman:.3f}"
    return figures


def render(text: str, figures: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with every marker's value replaced, and the markers naming no figure."""
    unknown: list[str] = []

    def put(match: re.Match) -> str:
        key = match.group(1)
        if key not in figures:
            unknown.append(key)
            return match.group(0)
        return f"<!--fig:{key}-->{figures[key]}<!--/fig-->"

    return MARKER.sub(put, text), unknown


def disagreements(figures: dict[str, str]) -> list[str]:
    """Every place where the docs or the cards differ from the source (empty: all agree)."""
    problems = []
    for doc in DOCS:
        if not doc.is_file():
            continue
        text = doc.read_text()
        for key, value in MARKER.findall(text):
            if key not in figures:
                problems.append(f"{doc.name}: figure {key} has no source")
            elif value != figures[key]:
                problems.append(f"{doc.name}: {key} reads {value}, its source says {figures[key]}")
    cards = json.loads(CARDS.read_text()) if CARDS.is_file() else {}
    for key, value in cards.items():
        if figures.get(key) != value:
            problems.append(f"{CARDS.name}: {key} reads {value}, its source says {figures.get(key)}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    figures = compute()
    if args.check:
        problems = disagreements(figures)
        print("\n".join(problems) or "every figure agrees with its source")
        return 1 if problems else 0
    for doc in DOCS:
        if doc.is_file():
            text, unknown = render(doc.read_text(), figures)
            if unknown:
                raise SystemExit(f"{doc.name}: no source for {', '.join(unknown)}")
            doc.write_text(text)
    # the cards' figures: every {key} the model cards of scoremol/pretrained name
    wanted = set(re.findall(r"\{([\w.\-]+)\}", (ROOT / "scoremol" / "pretrained" / "__init__.py").read_text()))
    wanted |= {k for k in figures if k.startswith("adme.")}  # its task cards are built from the task list
    CARDS.write_text(json.dumps({k: figures[k] for k in sorted(wanted) if k in figures}, indent=1) + "\n")
    print(f"{len(figures)} figures rendered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
