"""Drug-like benchmark: water solubility, pH 6.8 buffer solubility and logD 7.4, scaffold tests.

Run: python bench/drug_like_benchmark.py
     [--systems multitask distilled distilled-unseen single catboost chemprop chemprop-mt admet-ai]
     [--seeds 0 1 2] [--option task_balance=0.5 ...] [--biogen-units ugml|molar]
     [--save-models DIR] [--unlabelled FILE] [--aux-biogen] [--aux-freesolv]
     [--chemprop-venv DIR] [--admet-venv DIR] [--out bench/results/drug_like_<date>.csv]

Tasks and their scaffold splits: AqSolDB (``aqsoldb_split.csv``), Biogen solubility at pH 6.8
(``biogen_solubility_split.csv``, log10 ug/mL) and AstraZeneca logD 7.4
(``lipophilicity_split.csv``, made by scripts/make_scaffold_split.py). Every test molecule of
any task (stereo-free canonical SMILES of the standardized parent) is removed from the
training rows of every task, so no system has seen a test molecule under another label.

Systems: ``multitask`` (scoremol's default spec trained on the three training sets at once
through the same path as ``scoremol train aqsoldb biogen lipophilicity``), ``single``
(scoremol's default spec on each task alone), ``catboost`` (scoremol's CatBoost baseline on
each task), ``chemprop`` / ``chemprop-mt`` (chemprop 2.3.1 defaults on each task alone / on
the merged three-column table), ``admet-ai`` (ADMET-AI 2.0.1 zero-shot, Biogen test only:
its ``Solubility_AqSolDB`` and ``Lipophilicity_AstraZeneca`` outputs as rankings).
``distilled`` is the fast preset taught by that seed's multi-task model (saved by an earlier
``multitask`` run with ``--save-models DIR``) on the training rows and the ``--unlabelled``
molecules (``scripts/make_distillation_set.py``), as ``scoremol train ... --teacher``.
``distilled-unseen`` is the same student taught by the default recipe trained without a
seeded tenth of the training molecules (``multitask-without-tenth``, saved beside them as
``multitask_seed<S>_without_tenth.pt`` and reused), so that the student calibrates on
molecules its teacher never saw.
``--option`` passes TrainingSpec options to the scoremol systems (``preset=fast`` for probes).
``--aux-biogen``: the multi-task systems also learn Biogen's other five assays (liver
microsome clearance, MDR1-MDCK efflux, plasma protein binding) on every Biogen molecule that
is no test molecule; they are trained on, never scored.
``--aux-freesolv``: the same with FreeSolv's hydration free energy (kcal/mol).
Rows are appended to the CSV, one per system, seed and task.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem, RDLogger
from scipy.stats import spearmanr

from scoremol import ScoreRegressor
from scoremol.data.read import MoleculeChunk
from scoremol.data.registry import REGISTRY, resolve
from scoremol.featurizers.merge import MergeSource, merge_sources
from scoremol.featurizers.molecule import parse_molecule
from scoremol.spec import TrainingSpec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
from chemprop_cli import train_and_predict  # noqa: E402

#: task label -> (registry name, split file)
TASKS = {
    "logS": ("aqsoldb", "aqsoldb_split.csv"),
    "logSol_pH6.8": ("biogen", "biogen_solubility_split.csv"),
    "logD": ("lipophilicity", "lipophilicity_split.csv"),
}


def parent_key(smiles: str) -> str | None:
    """Stereo-free canonical SMILES of the standardized parent."""
    mol = parse_molecule(smiles, standardize=True).mol
    return None if mol is None else Chem.MolToSmiles(mol, isomericSmiles=False)


def molar_mass(smiles: str) -> float:
    from rdkit.Chem import Descriptors

    mol = Chem.MolFromSmiles(smiles)
    return float("nan") if mol is None else Descriptors.MolWt(mol)


def load_tasks(biogen_units: str) -> tuple[dict, dict, dict]:
    """Train and test frames (``smiles``, ``y``) per task, and counts of what was removed."""
    train, test, counts = {}, {}, {}
    for label, (name, split_file) in TASKS.items():
        info = REGISTRY[name]
        frame = pd.read_csv(resolve(name))
        split = pd.read_csv(ROOT / "data" / split_file)
        part = {}
        for which in ("train", "test"):
            rows = frame.iloc[split.loc[split.set == which, "row"].to_numpy()]
            part[which] = pd.DataFrame(
                {
                    "smiles": rows[info.smiles_col].astype(str).str.strip().to_numpy(),
                    "y": rows[info.target_col].to_numpy(dtype=float),
                }
            )
            if label == "logSol_pH6.8" and biogen_units == "molar" and which == "train":
                mass = np.array([molar_mass(s) for s in part[which].smiles])
                part[which]["y"] = part[which]["y"] - 3 - np.log10(mass)
        train[label], test[label] = part["train"], part["test"]
    test_keys = {k for t in test.values() for k in map(parent_key, t.smiles) if k}
    for label, frame in train.items():
        keys = [parent_key(s) for s in frame.smiles]
        keep = np.array([k is not None and k not in test_keys for k in keys])
        counts[label] = {"train_rows": len(frame), "removed_test_molecules": int((~keep).sum())}
        train[label] = frame[keep].reset_index(drop=True)
    return train, test, counts


#: Biogen's assays besides solubility: training-only tasks for ``--aux-biogen``
BIOGEN_AUX = {
    "HLM": "LOG HLM_CLint (mL/min/kg)",
    "MDR1_ER": "LOG MDR1-MDCK ER (B-A/A-B)",
    "PPB_human": "LOG PLASMA PROTEIN BINDING (HUMAN) (% unbound)",
    "PPB_rat": "LOG PLASMA PROTEIN BINDING (RAT) (% unbound)",
    "RLM": "LOG RLM_CLint (mL/min/kg)",
}


#: FreeSolv's hydration free energy: a training-only task for ``--aux-freesolv``
FREESOLV_AUX = {"dG_hyd": "expt"}


def aux_tasks(name: str, columns: dict[str, str], smiles_col: str, test: dict) -> dict:
    """Training frames (``smiles``, ``y``) of data set ``name``'s ``columns`` (label ->
    column), without any test molecule of any task."""
    frame = pd.read_csv(resolve(name))
    test_keys = {k for t in test.values() for k in map(parent_key, t.smiles) if k}
    smiles = frame[smiles_col].astype(str).str.strip()
    keep = np.array([(k := parent_key(s)) is not None and k not in test_keys for s in smiles])
    out = {}
    for label, column in columns.items():
        rows = keep & np.isfinite(frame[column].to_numpy(dtype=float))
        out[label] = pd.DataFrame({"smiles": smiles[rows].to_numpy(), "y": frame.loc[rows, column].to_numpy(float)})
    return out


def score(label: str, pred: np.ndarray, truth: np.ndarray) -> dict:
    keep = np.isfinite(pred)
    pred = np.where(keep, pred, np.nanmean(pred))  # an unfeaturizable test molecule: the mean, counted
    err = pred - truth
    return {
        "task": label,
        "n_test": len(truth),
        "n_unpredicted": int((~keep).sum()),
        "mae": float(np.mean(np.abs(err))),
        "rmse": float(np.sqrt(np.mean(err**2))),
        "r2": float(1 - np.sum(err**2) / np.sum((truth - truth.mean()) ** 2)),
        "spearman": float(spearmanr(pred, truth).statistic),
    }


def coverage(model: ScoreRegressor, smiles: list[str], truth: np.ndarray, target: int) -> dict:
    if model.model_.calibration is None:
        return {}
    mean, lo, hi = model.predict_interval(smiles, target=target)
    inside = (truth >= lo) & (truth <= hi)
    ok = np.isfinite(lo)
    err = np.abs(mean - truth)[ok]
    width = (hi - lo)[ok]
    return {
        "cover90": float(inside[ok].mean()),
        "width90": float(width.mean()),
        "spearman_err_width": float(spearmanr(err, width).statistic),
    }


def parse_options(items: list[str]) -> dict:
    """``name=value`` pairs as TrainingSpec options (JSON values where they parse)."""
    options = {}
    for item in items:
        key, value = item.split("=", 1)
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def train_multitask(spec: TrainingSpec, train: dict, unlabelled: Path | None = None):
    """One multi-task model on every task's training rows, as ``scoremol train A B C``
    builds it (``--unlabelled`` too): the model, its featurized job and the seconds it took
    (a student's include its teacher's labelling, not its teacher's training)."""
    from scoremol.training.setup import fit_spec, prepare_training

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for label, frame in train.items():
            path = Path(tmp) / f"{label}.csv"
            frame.rename(columns={"y": label}).to_csv(path, index=False)
            paths.append(str(path))
        start = time.perf_counter()
        job = prepare_training(paths, spec, list(train), unlabelled=None if unlabelled is None else str(unlabelled))
        model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, units=job.units)
        return model, job, time.perf_counter() - start


def run_multitask(
    spec: TrainingSpec,
    train: dict,
    test: dict,
    biogen_units: str,
    unlabelled: Path | None = None,
    save: Path | None = None,
) -> list[dict]:
    """Train, score every test, and save the model to ``save`` when given; a spec with a
    teacher distills it (``unlabelled``: molecules for the teacher to label)."""
    model, job, seconds = train_multitask(spec, train, unlabelled)
    if save is not None:
        from scoremol.models.checkpoint import save_model

        save_model(model, save)
    regressor = ScoreRegressor(**{k: v for k, v in spec.to_dict().items()})
    regressor.model_ = model
    rows = []
    for t, (label, frame) in enumerate(test.items()):
        pred = np.asarray(regressor.predict(frame.smiles.tolist()))[:, t]
        if label == "logSol_pH6.8" and biogen_units == "molar":
            pred = pred + 3 + np.log10([molar_mass(s) for s in frame.smiles])
        row = {**score(label, pred, frame.y.to_numpy()), "train_s": seconds, "molecules": job.data.num_graphs}
        if biogen_units != "molar" or label != "logSol_pH6.8":
            row.update(coverage(regressor, frame.smiles.tolist(), frame.y.to_numpy(), t))
        rows.append(row)
    return rows


def run_single(spec: TrainingSpec, train: dict, test: dict, tasks: list[str] | None = None) -> list[dict]:
    rows = []
    for label, frame in train.items():
        if tasks and label not in tasks:
            continue
        start = time.perf_counter()
        model = ScoreRegressor(**spec.to_dict()).fit(frame.smiles.tolist(), frame.y.to_numpy(), target=label)
        seconds = time.perf_counter() - start
        truth = test[label].y.to_numpy()
        pred = np.asarray(model.predict(test[label].smiles.tolist()))
        row = {**score(label, pred, truth), "train_s": seconds, "molecules": len(frame)}
        row.update(coverage(model, test[label].smiles.tolist(), truth, 0))
        rows.append(row)
    return rows


def without_tenth(train: dict, seed: int, standardize: bool) -> dict:
    """Every task's training rows but those of a seeded tenth of the distinct training
    molecules (matched as ``scoremol train`` merges them): what a teacher learns so that its
    student can calibrate on molecules the teacher never saw."""
    from scoremol.featurizers.merge import molecule_keys, sample_molecules

    keys = {label: molecule_keys(frame.smiles.tolist(), standardize) for label, frame in train.items()}
    everything = [s for frame in train.values() for s in frame.smiles]
    held = set(molecule_keys(sample_molecules(everything, 0.1, seed, standardize), standardize))
    return {label: frame[[k not in held for k in keys[label]]].reset_index(drop=True) for label, frame in train.items()}


def merged_table(train: dict) -> pd.DataFrame:
    sources = [
        MergeSource(
            label, MoleculeChunk(frame.rename(columns={"y": label}).astype(str), frame.smiles.tolist(), 0), [label]
        )
        for label, frame in train.items()
    ]
    chunk, _ = merge_sources(sources)
    frame = chunk.frame.copy()
    for label in train:
        frame[label] = pd.to_numeric(frame[label], errors="coerce")
    return frame


def run_admet_ai(venv: Path, test: pd.DataFrame) -> list[dict]:
    code = (
        "import sys, pandas as pd\nfrom admet_ai import ADMETModel\n"
        "s = pd.read_csv(sys.argv[1]).smiles.tolist()\n"
        "p = ADMETModel(num_workers=0).predict(smiles=s)\n"
        "p[['Solubility_AqSolDB', 'Lipophilicity_AstraZeneca']].to_csv(sys.argv[2], index=False)\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        test[["smiles"]].to_csv(Path(tmp) / "in.csv", index=False)
        start = time.perf_counter()
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", code, str(Path(tmp) / "in.csv"), str(Path(tmp) / "out.csv")],
            check=True,
            capture_output=True,
        )
        seconds = time.perf_counter() - start
        out = pd.read_csv(Path(tmp) / "out.csv")
    truth = test.y.to_numpy()
    return [
        {
            "task": "logSol_pH6.8",
            "output": col,
            "n_test": len(truth),
            "predict_s": seconds,
            "spearman": float(spearmanr(out[col].to_numpy(), truth).statistic),
        }
        for col in out.columns
    ]


def append_row(path: Path, row: dict) -> None:
    """Add a row to the results CSV; columns another system lacks stay empty (never shifted)."""
    frame = pd.DataFrame([row])
    if path.is_file():
        frame = pd.concat([pd.read_csv(path), frame], ignore_index=True)
    frame.to_csv(path, index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", default=["multitask", "single", "catboost", "chemprop", "chemprop-mt"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--option", nargs="*", default=[], help="TrainingSpec options (name=value) for scoremol")
    parser.add_argument("--biogen-units", choices=["ugml", "molar"], default="ugml")
    parser.add_argument("--chemprop-venv", type=Path, default=Path(tempfile.gettempdir()) / "scoremol-chemprop-venv")
    parser.add_argument("--admet-venv", type=Path, default=Path(tempfile.gettempdir()) / "admetai-venv")
    parser.add_argument("--tag", default="", help="a label for the rows (a data-care variant, a probe)")
    parser.add_argument("--tasks", nargs="*", help="single-task systems: only these tasks (default: all three)")
    parser.add_argument(
        "--save-models",
        type=Path,
        help="multitask: save each seed's model here; distilled: read those, save the students",
    )
    parser.add_argument("--unlabelled", type=Path, help="distilled: molecules for the teacher to label")
    parser.add_argument("--aux-biogen", action="store_true", help="multi-task: also learn Biogen's other assays")
    parser.add_argument("--aux-freesolv", action="store_true", help="multi-task: also learn FreeSolv")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / f"drug_like_{datetime.date.today()}.csv"
    )
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    options = parse_options(args.option)
    train, test, counts = load_tasks(args.biogen_units)
    print(f"removed from training (test molecules of any task): {json.dumps(counts)}", flush=True)
    learn = dict(train)  # scored tasks first, then training-only ones
    if args.aux_biogen:
        learn.update(aux_tasks("biogen", BIOGEN_AUX, "SMILES", test))
    if args.aux_freesolv:
        learn.update(aux_tasks("freesolv", FREESOLV_AUX, "smiles", test))

    def record(system: str, seed: int, rows: list[dict]) -> None:
        for row in rows:
            row = {
                "system": system,
                "seed": seed,
                "tag": args.tag,
                "options": json.dumps(options),
                "biogen_units": args.biogen_units,
                **row,
            }
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
            append_row(args.out, row)

    for system in args.systems:
        for seed in args.seeds if system != "admet-ai" else [0]:
            spec = TrainingSpec.from_options(**{**options, "seed": seed})
            save = None if args.save_models is None else args.save_models / f"multitask_seed{seed}.pt"
            if system == "multitask":
                rows = run_multitask(spec, learn, test, args.biogen_units, save=save)
            elif system == "distilled-unseen":
                if args.save_models is None or args.unlabelled is None:
                    raise SystemExit("distilled-unseen needs --save-models DIR and --unlabelled")
                partial = without_tenth(learn, seed, spec.standardize)
                teacher = args.save_models / f"multitask_seed{seed}_without_tenth.pt"
                if not teacher.is_file():
                    record(
                        "multitask-without-tenth",
                        seed,
                        run_multitask(spec, partial, test, args.biogen_units, save=teacher),
                    )
                student = TrainingSpec.from_options(
                    **{"preset": "fast", **options, "teacher": str(teacher), "seed": seed}
                )
                kept = args.save_models / f"distilled_unseen_seed{seed}{'_' + args.tag if args.tag else ''}.pt"
                rows = run_multitask(student, learn, test, args.biogen_units, args.unlabelled, save=kept)
            elif system == "distilled":
                if save is None or not save.is_file() or args.unlabelled is None:
                    raise SystemExit("distilled needs --save-models DIR holding multitask_seed<S>.pt and --unlabelled")
                student = TrainingSpec.from_options(**{"preset": "fast", **options, "teacher": str(save), "seed": seed})
                kept = args.save_models / f"distilled_seed{seed}{'_' + args.tag if args.tag else ''}.pt"
                rows = run_multitask(student, learn, test, args.biogen_units, args.unlabelled, save=kept)
            elif system == "single":
                rows = run_single(spec, train, test, args.tasks)
            elif system == "catboost":
                catboost = TrainingSpec.from_options(**{**options, "arch": "catboost", "seed": seed})
                rows = run_single(catboost, train, test, args.tasks)
            elif system == "admet-ai":
                rows = run_admet_ai(args.admet_venv, test["logSol_pH6.8"])
            elif system in ("chemprop", "chemprop-mt"):
                rows = []
                groups = (
                    [[t] for t in train if not args.tasks or t in args.tasks] if system == "chemprop" else [list(train)]
                )
                for group in groups:
                    frame = train[group[0]].rename(columns={"y": group[0]}) if len(group) == 1 else merged_table(train)
                    preds, seconds = train_and_predict(
                        args.chemprop_venv, seed, frame, group, {t: test[t] for t in group}
                    )
                    for k, label in enumerate(group):
                        truth = test[label].y.to_numpy()
                        rows.append(
                            {**score(label, preds[label][:, k], truth), "train_s": seconds, "molecules": len(frame)}
                        )
            else:
                raise SystemExit(f"unknown system {system}")
            record(system, seed, rows)


if __name__ == "__main__":
    os.environ.setdefault("SCOREMOL_WORKERS", "2")
    sys.exit(main())
