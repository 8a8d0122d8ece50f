"""Fine-tuning from a base model against training from scratch, on Biogen's assays as a team's own data.

    python bench/transfer_benchmark.py --base-out /tmp/transfer_base.pt      # once: the benchmark base
    python bench/transfer_benchmark.py --base /tmp/transfer_base.pt [--assays sol hlm mdr1 ppb]
        [--sizes 50 100 300 1000 all] [--systems scratch from catboost from-e15 ...]
        [--out bench/results/transfer_<date>.csv]

The benchmark base learns every shared data set but Biogen's file (AqSolDB, AstraZeneca logD,
PharmaBench's eleven sets) with the bundled base's recipe (the default's networks, 30 epochs,
no tree), without any Biogen molecule and without any set's scaffold-test molecules; its own
figures on those tests go to ``transfer_base_<date>.csv`` (``bench/base_tasks.py``). Four
Biogen assays play the team's data, each on its scaffold split (``data/biogen_*_split.csv``,
made as the shared splits were): fine-tuning sets of 50, 100, 300, 1,000 and all training
molecules (as many as the assay has), the same test molecules at every size, subsample seeds
0-2 up to 300 and seed 0 above. Systems: ``scratch`` (the default recipe), ``from`` (the
default recipe with ``--from`` the base: its fine-tuning schedule), ``catboost``, the fast
preset from scratch, and other fine-tuning schedules (:data:`SCHEDULES`). Rows are appended
as they finish (MAE, Spearman, training seconds) and a finished (assay, size, seed, system)
is skipped on a rerun. chemprop 2.3.1 runs from scratch (``chemprop``) and from a chemprop
multi-task model of the base's rows (``chemprop-from``, ``--from-foundation``; train it once
with ``--chemprop-base-out``). ``joint``, at the full size only, is the reference fine-tuning
should approach: the base's rows and the assay's trained together from scratch in one run
(the base's recipe, about an hour on two cores).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))

from base_tasks import score_tasks  # noqa: E402
from peers.chemprop_cli import train_and_predict  # noqa: E402
from scaffold_test_molecules import scaffold_tests  # noqa: E402

from scoremol.data.read import smiles_chunk  # noqa: E402
from scoremol.data.registry import REGISTRY, resolve  # noqa: E402
from scoremol.inference.predict import predict_part  # noqa: E402
from scoremol.models.checkpoint import save_model  # noqa: E402
from scoremol.spec import TrainingSpec  # noqa: E402
from scoremol.training.setup import fit_spec, prepare_training  # noqa: E402

#: assay -> (Biogen column, split file)
ASSAYS = {
    "sol": ("LOG SOLUBILITY PH 6.8 (ug/mL)", "biogen_solubility_split.csv"),
    "hlm": ("LOG HLM_CLint (mL/min/kg)", "biogen_hlm_split.csv"),
    "mdr1": ("LOG MDR1-MDCK ER (B-A/A-B)", "biogen_mdr1_split.csv"),
    "ppb": ("LOG PLASMA PROTEIN BINDING (HUMAN) (% unbound)", "biogen_ppb_human_split.csv"),
}
#: the base's inputs: every shared data set but Biogen's
BASE_INPUTS = ["aqsoldb", "lipophilicity", *(n for n in REGISTRY if n.startswith("pharmabench-"))]
#: the base's recipe: the default's networks for 30 epochs (on about 36,000 molecules as many
#: optimizer steps as the default's 60 on the bundled model's 16,051) and no tree (fine-tuning
#: fits its own on the team's molecules)
BASE_OPTIONS = {"epochs": 30, "blend_catboost": 0.0}


def assay_split(assay: str) -> dict[str, pd.DataFrame]:
    column, split_file = ASSAYS[assay]
    frame = pd.read_csv(resolve("biogen"))
    split = pd.read_csv(ROOT / "data" / split_file)
    out = {}
    for part in ("train", "test"):
        rows = frame.iloc[split.loc[split.set == part, "row"].to_numpy()]
        out[part] = pd.DataFrame({"smiles": rows.SMILES.astype(str).str.strip(), "y": rows[column].astype(float)})
    return out


def subsample(train: pd.DataFrame, size: str, seed: int) -> pd.DataFrame:
    if size == "all" or int(size) >= len(train):
        return train
    return train.sample(int(size), random_state=seed)


def base_job(spec: TrainingSpec, tests: dict | None = None):
    """The benchmark base's training job: every shared set but Biogen's, without any Biogen
    molecule and without any input's scaffold-test molecules (so that its own figures are honest).
    ``tests``: :func:`scaffold_tests` of the base's inputs, when the caller has read them."""
    biogen = pd.read_csv(resolve("biogen")).SMILES.astype(str).str.strip()
    tests = scaffold_tests(BASE_INPUTS) if tests is None else tests
    held = [*biogen, *(s for t in tests.values() for s in t.smiles)]
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "held.smi"
        listed.write_text("\n".join(held) + "\n")
        return prepare_training(BASE_INPUTS, spec, exclude=str(listed))


def chemprop_base(out: Path, venv: Path, tasks_out: Path) -> None:
    """chemprop 2.3.1 multi-task (its defaults) on the base's rows, kept for
    ``--from-foundation``, and its figures on each scaffold test. Only the regression targets:
    chemprop cannot mix yes/no and regression tasks in one model."""
    every_test = scaffold_tests(BASE_INPUTS)
    job = base_job(TrainingSpec(**BASE_OPTIONS), every_test)
    keep = [t for t, task in zip(job.targets, job.tasks) if task.kind == "regression"]
    frame = pd.DataFrame({"smiles": job.data.graph_smiles(job.rows)})
    names = [f"t{i}" for i in range(len(keep))]
    for name, target in zip(names, keep):
        frame[name] = job.data.column_values(target)[job.rows]
    tests = {k: v for k, v in every_test.items() if REGISTRY[k].target_col in keep}
    preds, seconds = train_and_predict(venv, 0, frame, names, tests, keep=out)
    rows = []
    for key, test in tests.items():
        pred = preds[key][:, keep.index(REGISTRY[key].target_col)]
        ok = np.isfinite(pred)
        truth = test.y.to_numpy(float)[ok]
        mae = float(np.mean(np.abs(pred[ok] - truth)))
        rows.append(
            {
                "task": key,
                "n_test": len(test),
                "n_predicted": int(ok.sum()),
                "mae": mae,
                "spearman": float(spearmanr(pred[ok], truth).statistic),
                "train_seconds": round(seconds, 1),
                "model": "chemprop-mt",
                "date": str(date.today()),
            }
        )
        print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(tasks_out, index=False)


def train_base(out: Path, options: dict) -> None:
    """The benchmark base (:func:`base_job`), trained and saved."""
    job = base_job(TrainingSpec(**{**BASE_OPTIONS, **options}))
    start = time.perf_counter()
    model = fit_spec(
        job.data, job.targets, job.spec, job.plan.network_descriptors, rows=job.rows, units=job.units, tasks=job.tasks
    )
    seconds = time.perf_counter() - start
    model.metrics.update(left_out_biogen_and_tests=job.left_out, train_seconds=round(seconds, 1))
    save_model(model, out)
    print(f"base: {len(job.targets)} targets, {job.left_out} molecules left out, {seconds:.0f} s")


#: chemprop's environment and its multi-task base (``--chemprop-base-out``), set from the command line
CHEMPROP: dict[str, Path | None] = {"venv": Path("/tmp/scoremol-chemprop-venv"), "base": None}
#: fine-tuning schedules measured against the default one (``from``): the spec options each changes
SCHEDULES = {
    "from": {},
    "from-e15": {"epochs": 15},
    "from-e60": {"epochs": 60},
    "from-lr-half": {"lr": 5e-4},
    "from-pull": {"base_pull": 0.01},
    "from-freeze": {"base_freeze": 5},
}


def run_system(system: str, train: pd.DataFrame, test: pd.DataFrame, base: str | None, seed: int) -> dict:
    """Fit ``system`` on ``train`` (``smiles``, ``y``) and score ``test``."""
    if system.startswith("chemprop"):
        extra = ["--from-foundation", str(CHEMPROP["base"])] if system == "chemprop-from" else []
        start = time.perf_counter()
        preds, _ = train_and_predict(CHEMPROP["venv"], seed, train, ["y"], {"test": test}, extra)
        return score(preds["test"][:, 0], test, time.perf_counter() - start)
    if system == "joint":
        return run_joint(train, test, seed)
    if system == "catboost":
        spec = TrainingSpec(arch="catboost", seed=seed)
    elif system in SCHEDULES:
        spec = TrainingSpec(seed=seed, base=base, **SCHEDULES[system])
    else:
        spec = TrainingSpec(preset="fast" if system.endswith("-fast") else "default", seed=seed)
    return fit_and_score({"train": train}, spec, ["y"], test)


def fit_and_score(inputs: dict[str, pd.DataFrame], spec: TrainingSpec, targets: list[str], test: pd.DataFrame) -> dict:
    """Train ``spec`` on the ``inputs`` tables (each one CSV input, by name) and score target ``y`` on ``test``."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, frame in inputs.items():
            paths.append(str(Path(tmp) / f"{name}.csv"))
            frame.to_csv(paths[-1], index=False)
        job = prepare_training(paths if len(paths) > 1 else paths[0], spec, targets)
        start = time.perf_counter()
        model = fit_spec(
            job.data, job.targets, job.spec, job.plan.network_descriptors, units=job.units, tasks=job.tasks
        )
        seconds = time.perf_counter() - start
    result = predict_part(model, smiles_chunk(test.smiles.tolist()))
    pred = np.full(len(test), np.nan)
    pred[result.graph_row] = result.mean[:, model.target_names.index("y")]
    return score(pred, test, seconds)


#: the base's training rows as one table (``smiles`` and a column per target), made once per run
_BASE_ROWS: list[pd.DataFrame] = []


def base_rows() -> pd.DataFrame:
    """The benchmark base's training rows: its molecules and every label it learned from."""
    if not _BASE_ROWS:
        job = base_job(TrainingSpec(**BASE_OPTIONS))
        frame = pd.DataFrame({"smiles": job.data.graph_smiles(job.rows)})
        for target in job.targets:
            frame[target] = job.data.column_values(target)[job.rows]
        _BASE_ROWS.append(frame)
    return _BASE_ROWS[0]


def run_joint(train: pd.DataFrame, test: pd.DataFrame, seed: int) -> dict:
    """The reference fine-tuning should approach: the base's rows and the assay's trained
    together from scratch in one run (several inputs, the base's recipe), scored on the assay."""
    rows = base_rows()
    spec = TrainingSpec(seed=seed, **BASE_OPTIONS)
    return fit_and_score({"base": rows, "assay": train}, spec, [*rows.columns[1:], "y"], test)


def score(pred: np.ndarray, test: pd.DataFrame, seconds: float) -> dict:
    """MAE and Spearman of ``pred`` against ``test.y`` (over the predicted rows)."""
    keep = np.isfinite(pred)
    truth = test.y.to_numpy(float)
    return {
        "mae": float(np.mean(np.abs(pred[keep] - truth[keep]))),
        "spearman": float(spearmanr(pred[keep], truth[keep]).statistic),
        "n_unpredicted": int((~keep).sum()),
        "train_seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-out", type=Path, help="train the benchmark base and write it here, then stop")
    parser.add_argument("--base", help="the benchmark base model file")
    parser.add_argument("--assays", nargs="+", default=list(ASSAYS), choices=list(ASSAYS))
    parser.add_argument("--sizes", nargs="+", default=["50", "100", "300", "1000", "all"])
    parser.add_argument("--systems", nargs="+", default=["scratch", "from", "catboost"])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"transfer_{date.today()}.csv")
    parser.add_argument("--chemprop-venv", type=Path, default=CHEMPROP["venv"])
    parser.add_argument(
        "--chemprop-base-out", type=Path, help="train chemprop multi-task on the base's rows, then stop"
    )
    parser.add_argument("--chemprop-base", type=Path, help="that model, for the chemprop-from system")
    args = parser.parse_args()
    if args.base_out is not None:
        train_base(args.base_out, {})
        tasks = score_tasks(args.base_out)
        tasks.to_csv(args.out.with_name(args.out.name.replace("transfer_", "transfer_base_")), index=False)
        return
    CHEMPROP.update(venv=args.chemprop_venv, base=args.chemprop_base)
    if args.chemprop_base_out is not None:
        tasks = args.out.with_name(args.out.name.replace("transfer_", "transfer_chemprop_base_"))
        chemprop_base(args.chemprop_base_out, args.chemprop_venv, tasks)
        return
    known = (*SCHEDULES, "scratch", "scratch-fast", "catboost", "chemprop", "chemprop-from", "joint")
    unknown = [s for s in args.systems if s not in known]
    if unknown:
        parser.error(f"unknown systems {unknown}")
    if "chemprop-from" in args.systems and not args.chemprop_base:
        parser.error("--chemprop-base is needed for chemprop-from")
    if any(s.startswith("from") for s in args.systems) and not args.base:
        parser.error("--base is needed for the from systems")
    done = set()
    if args.out.is_file():
        old = pd.read_csv(args.out, dtype={"size": str})
        done = set(zip(old.assay, old["size"], old.seed, old.system))
    for assay in args.assays:
        data = assay_split(assay)
        for size in args.sizes:
            small = size != "all" and int(size) <= 300
            for seed in (0, 1, 2) if small else (0,):
                train = subsample(data["train"], size, seed)
                if size != "all" and int(size) > len(data["train"]):
                    continue  # the assay has fewer molecules: "all" covers it
                for system in args.systems:
                    if (assay, size, seed, system) in done or (system == "joint" and size != "all"):
                        continue  # done, or the joint reference, which is for the full size only
                    row = {"assay": assay, "size": size, "n_train": len(train), "seed": seed, "system": system}
                    row.update(run_system(system, train, data["test"], args.base, seed))
                    row.update(n_test=len(data["test"]), date=str(date.today()))
                    print(row, flush=True)
                    pd.DataFrame([row]).to_csv(args.out, mode="a", header=not args.out.is_file(), index=False)


if __name__ == "__main__":
    main()
