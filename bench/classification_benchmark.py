"""Yes/no assays: PharmaBench BBB and Ames on their own scaffold splits.

    python bench/classification_benchmark.py [--systems single mixed regression-only]
        [--tasks bbb ames] [--seeds 0 1 2] [--option preset=fast] [--calibration platt isotonic]
        [--out bench/results/classification_<date>.csv]

Systems, every one on the same training rows (the file's ``train`` rows; for the mixed model,
every test molecule of any of its four tasks removed from every task's training rows):
``single`` (the default recipe on one yes/no assay), ``mixed`` (one model on BBB + Ames +
logD 7.4 + AqSolDB water solubility) and ``regression-only`` (logD + water without the yes/no
assays: what the mixed model's regression tasks are compared with). Each row: AUROC, AUPRC,
balanced accuracy, Brier, ECE (15 bins), the 90 % prediction sets' coverage and share of
single-class sets, training seconds; a regression task's MAE and Spearman. ``--calibration``
also scores the held-out-fitted alternatives on the same networks (the measured choice).
The peers (chemprop 2.3.1, a random forest and CatBoost on Morgan counts) are
``bench/peers/classification_peers.py``. Rows are appended as they finish; a finished
(system, task, seed) is skipped on a rerun.
"""

from __future__ import annotations

import argparse
import dataclasses
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

from scoremol.calibration.probability import ClassCalibration  # noqa: E402
from scoremol.data.read import smiles_chunk  # noqa: E402
from scoremol.data.registry import REGISTRY, resolve  # noqa: E402
from scoremol.inference.predict import predict_part  # noqa: E402
from scoremol.spec import TrainingSpec  # noqa: E402
from scoremol.training.metrics import classification_metrics  # noqa: E402
from scoremol.training.setup import fit_spec, prepare_training  # noqa: E402

#: task -> (registry name, how its test rows are found: a split column of the file or a split file)
TASKS = {
    "bbb": ("pharmabench-bbb", None),
    "ames": ("pharmabench-ames", None),
    "logD": ("lipophilicity", "lipophilicity_split.csv"),
    "logS": ("aqsoldb", "aqsoldb_split.csv"),
}
MIXED = ("bbb", "ames", "logD", "logS")
REGRESSION = ("logD", "logS")


def split(task: str) -> dict[str, pd.DataFrame]:
    """The task's train and test rows as ``smiles``, ``y`` frames."""
    name, split_file = TASKS[task]
    info = REGISTRY[name]
    frame = pd.read_csv(resolve(name))
    if split_file is None:
        which = frame[info.split_col].astype(str).to_numpy()
    else:
        assignment = pd.read_csv(ROOT / "data" / split_file)
        which = np.full(len(frame), "", dtype=object)
        which[assignment.row.to_numpy()] = assignment.set.to_numpy()
    column = info.file_target_col or info.target_col
    out = {}
    for part in ("train", "test"):
        rows = frame[which == part]
        out[part] = pd.DataFrame({"smiles": rows[info.smiles_col].astype(str).str.strip(), "y": rows[column]})
    return out


def fit(tasks: tuple[str, ...], spec: TrainingSpec, tests: list[str]):
    """Train on the tasks' data sets without any of the ``tests`` molecules (matched as merged
    inputs are); the model and its training seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        held = Path(tmp) / "test.smi"
        held.write_text("\n".join(tests) + "\n")
        job = prepare_training([TASKS[t][0] for t in tasks], spec, exclude=str(held))
        start = time.perf_counter()
        model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, rows=job.rows, tasks=job.tasks)
        model.metrics["left_out"] = job.left_out
    return model, time.perf_counter() - start


def class_scores(model, t: int, logits: np.ndarray, truth: np.ndarray, coverage: float = 0.9) -> dict:
    calibration = model.calibration[t]
    prob = calibration.probability(logits)
    out = classification_metrics(truth, prob)
    negative, positive = calibration.prediction_sets(prob, coverage)
    holds = np.where(truth == 1, positive, negative)
    out.update(set_cover90=float(holds.mean()), single_class_share=float(np.mean(negative != positive)))
    return out


def score_tasks(model, tasks: tuple[str, ...], data: dict, methods: list[str]) -> list[dict]:
    rows = []
    for task in tasks:
        test = data[task]["test"]
        t = model.target_names.index(REGISTRY[TASKS[task][0]].target_col)
        result = predict_part(model, smiles_chunk(test.smiles.tolist()))
        mean = np.full(len(test), np.nan)
        mean[result.graph_row] = result.mean[:, t]
        truth = test.y.to_numpy(float)
        keep = np.isfinite(mean)
        row = {"task": task, "n_test": len(test), "n_unpredicted": int((~keep).sum())}
        if model.classify[t]:
            row.update(class_scores(model, t, mean[keep], truth[keep]))
            row["calibration"] = model.calibration[t].method
            rows.append(row)
            for method in methods:
                if method != model.calibration[t].method:  # refitted on the same held-out logits
                    other = dataclasses.replace(model, calibration=list(model.calibration))
                    held = model.calibration[t]
                    other.calibration[t] = ClassCalibration.fit(held.logits, held.labels, method)
                    rows.append({**row, **class_scores(other, t, mean[keep], truth[keep]), "calibration": method})
        else:
            err = mean[keep] - truth[keep]
            row.update(mae=float(np.mean(np.abs(err))), spearman=float(spearmanr(mean[keep], truth[keep]).statistic))
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", nargs="+", default=["single"], choices=["single", "mixed", "regression-only"])
    parser.add_argument("--tasks", nargs="+", default=["bbb", "ames"], choices=["bbb", "ames"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--option", action="append", default=[], help="spec option NAME=VALUE (e.g. preset=fast)")
    parser.add_argument("--calibration", nargs="+", default=["platt"], help="calibration methods to score")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"classification_{date.today()}.csv")
    args = parser.parse_args()
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        options[key] = {"true": True, "false": False}.get(value.lower(), value)
        for kind in (int, float):
            try:
                options[key] = kind(value)
                break
            except ValueError:
                pass
    data = {t: split(t) for t in TASKS}
    done = set()
    if args.out.is_file():
        old = pd.read_csv(args.out, keep_default_na=False)
        done = set(zip(old.system, old.seed, old.tasks, old.options.astype(str)))
    for seed in args.seeds:
        spec = TrainingSpec(**{**options, "seed": seed})
        for system in args.systems:
            groups = [(t,) for t in args.tasks] if system == "single" else [MIXED if system == "mixed" else REGRESSION]
            for tasks in groups:
                if (system, seed, "+".join(tasks), " ".join(args.option)) in done:
                    continue
                held = tasks if system == "single" else MIXED
                model, seconds = fit(tasks, spec, [s for t in held for s in data[t]["test"].smiles])
                rows = score_tasks(model, tasks, data, args.calibration)
                for row in rows:
                    row.update(
                        system=system,
                        seed=seed,
                        tasks="+".join(tasks),
                        train_seconds=round(seconds, 1),
                        n_train=model.metrics["n_train_molecules"],
                        options=" ".join(args.option),
                        date=str(date.today()),
                    )
                    print(row, flush=True)
                frame = pd.DataFrame(rows)
                frame.to_csv(args.out, mode="a", header=not args.out.is_file(), index=False)


if __name__ == "__main__":
    main()
