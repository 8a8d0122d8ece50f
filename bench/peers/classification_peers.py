"""Peer baselines for two PharmaBench yes/no sets (blood-brain barrier, Ames), scaffold split.

Run (one thread, as every timing in bench/):
    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 .venv/bin/python bench/peers/classification_peers.py \
        [--systems rf catboost catboost-desc chemprop] [--tasks bbb ames] [--seeds 0 1 2] \
        [--data-dir /work/shared/data/pharmabench] [--chemprop-venv /tmp/scoremol-chemprop-venv] \
        [--out bench/results/classification_peers_<date>.csv]

Data: ``<task>_cls_final_data.csv`` (``Smiles_unify``, ``value`` 0/1, ``scaffold_train_test_label``);
train rows are labelled ``train``, test rows ``test``. Rows RDKit cannot parse are dropped from
train and test for every system alike and counted (``n_unparsed``).

Systems:
- ``rf``: RandomForestClassifier(500 trees) on Morgan count fingerprints (radius 2, 2048 bits).
- ``catboost``: CatBoostClassifier (defaults, 1000 iterations) on RDKit 2D descriptors
  (``Descriptors.CalcMolDescriptors``, missing/non-finite -> NaN) plus the same Morgan counts.
- ``catboost-desc``: the same on the descriptors only.
- ``chemprop``: chemprop 2.x's defaults through its command line (``--task-type classification``)
  in its own virtual environment (see bench/peers/chemprop_race.py for how to build one),
  a seeded 90/10 train/validation split of the train rows, on the CPU.

``train_seconds`` is the fit alone for rf/catboost (features are computed once per task, before
the clock), and the whole ``chemprop train`` process for chemprop (start-up and featurization in).
Metrics come from ``scoremol.training.metrics.classification_metrics`` on the probability of
class 1 (balanced accuracy at 0.5, ECE over 15 bins). One row per (system, task, seed) is
appended to ``--out`` as soon as it is measured; rows already there are skipped (resume).
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import os
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem, RDLogger
from rdkit.Chem import Descriptors, rdFingerprintGenerator

from scoremol.training.metrics import classification_metrics

DATA_DIR = Path("/work/shared/data/pharmabench")
DATE = "2026-12-07"
TASKS = {"bbb": "bbb_cls_final_data.csv", "ames": "ames_cls_final_data.csv"}
SYSTEMS = ("rf", "catboost", "catboost-desc", "chemprop")
METRICS = ("auroc", "auprc", "balanced_accuracy", "brier", "ece")
COLUMNS = ("system", "task", "seed", "n_train", "n_test", "n_unparsed", "train_seconds", *METRICS, "date")
#: chemprop on the CPU, in its own process, without data-loader workers (as bench/peers/chemprop_cli.py)
CHEMPROP_CPU = ["--num-workers", "0", "--accelerator", "cpu", "--devices", "1"]
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


# ----------------------------------------------------------------------------------------- data
@functools.cache
def load_task(task: str, data_dir: Path = DATA_DIR) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Train and test frames (``smiles``, ``y`` 0/1, ``mol``) of the scaffold split, and how
    many rows RDKit could not parse (dropped from both)."""
    frame = pd.read_csv(Path(data_dir) / TASKS[task])
    frame = frame[frame["scaffold_train_test_label"].isin(["train", "test"])]
    RDLogger.DisableLog("rdApp.*")
    try:
        mols = [Chem.MolFromSmiles(s) if isinstance(s, str) else None for s in frame["Smiles_unify"]]
    finally:
        RDLogger.EnableLog("rdApp.*")
    ok = np.array([m is not None for m in mols])
    out = pd.DataFrame(
        {
            "smiles": frame["Smiles_unify"].to_numpy(),
            "y": frame["value"].astype(int).to_numpy(),
            "mol": mols,
            "part": frame["scaffold_train_test_label"].to_numpy(),
        }
    )[ok]
    train = out[out["part"] == "train"].drop(columns="part").reset_index(drop=True)
    test = out[out["part"] == "test"].drop(columns="part").reset_index(drop=True)
    return train, test, int((~ok).sum())


# ------------------------------------------------------------------------------------- features
def morgan_counts(mols) -> np.ndarray:
    """Morgan count fingerprints, radius 2, 2048 bits, ``[n, 2048]`` float32."""
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return np.stack([gen.GetCountFingerprintAsNumPy(m) for m in mols]).astype(np.float32)


def rdkit_descriptors(mols) -> np.ndarray:
    """RDKit's 2D descriptors (``CalcMolDescriptors``), ``[n, d]`` float32; a descriptor RDKit
    cannot compute, or a value that is not finite in float32, is NaN."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in mols:
            values = Descriptors.CalcMolDescriptors(m, missingVal=np.nan)
            rows.append([np.nan if v is None else float(v) for v in values.values()])
        out = np.asarray(rows, dtype=np.float64)
        out[~np.isfinite(out)] = np.nan
        out = out.astype(np.float32)  # what CatBoost sees; a few descriptors (Ipc) overflow it
    out[~np.isfinite(out)] = np.nan
    return out


@functools.cache
def task_features(task: str, kind: str, data_dir: Path = DATA_DIR) -> tuple[np.ndarray, np.ndarray]:
    """Train and test feature matrices of ``kind`` (``morgan``, ``desc``, ``desc+morgan``)."""
    train, test = load_task(task, data_dir)[:2]
    if kind == "morgan":
        return morgan_counts(train["mol"]), morgan_counts(test["mol"])
    if kind == "desc":
        return rdkit_descriptors(train["mol"]), rdkit_descriptors(test["mol"])
    if kind == "desc+morgan":
        (d_tr, d_te), (m_tr, m_te) = task_features(task, "desc", data_dir), task_features(task, "morgan", data_dir)
        return np.hstack([d_tr, m_tr]), np.hstack([d_te, m_te])
    raise ValueError(kind)


# -------------------------------------------------------------------------------------- systems
def fit_rf(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, seed: int) -> tuple[np.ndarray, float]:
    """Probability of class 1 on ``x_test`` and the fit seconds."""
    from sklearn.ensemble import RandomForestClassifier

    model = RandomForestClassifier(n_estimators=500, random_state=seed, n_jobs=1)
    start = time.perf_counter()
    model.fit(x_train, y_train)
    seconds = time.perf_counter() - start
    return model.predict_proba(x_test)[:, list(model.classes_).index(1)], seconds


def fit_catboost(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, seed: int) -> tuple[np.ndarray, float]:
    """Probability of class 1 on ``x_test`` and the fit seconds."""
    from catboost import CatBoostClassifier

    model = CatBoostClassifier(
        iterations=1000, random_seed=seed, thread_count=1, verbose=False, allow_writing_files=False
    )
    start = time.perf_counter()
    model.fit(x_train, y_train)
    seconds = time.perf_counter() - start
    return model.predict_proba(x_test)[:, list(model.classes_).index(1)], seconds


def fit_chemprop(
    venv: Path, train: pd.DataFrame, test: pd.DataFrame, seed: int, log_dir: Path | None = None, tag: str = ""
) -> tuple[np.ndarray, float]:
    """chemprop 2.x with its defaults (binary classification): train on a seeded 90/10 split
    of ``train`` (``smiles``, ``y``), predict ``test``; the probability of class 1 and the
    seconds of ``chemprop train``."""
    exe = str(Path(venv) / "bin" / "chemprop")
    env = {**os.environ, **ONE_THREAD}
    with tempfile.TemporaryDirectory(prefix="classification-peers-") as tmp:
        tmp = Path(tmp)
        train[["smiles", "y"]].to_csv(tmp / "train.csv", index=False)
        order = np.random.default_rng(seed).permutation(len(train))
        n_val = int(round(0.1 * len(train)))
        split = [{"train": sorted(order[n_val:].tolist()), "val": sorted(order[:n_val].tolist()), "test": []}]
        (tmp / "split.json").write_text(json.dumps(split))
        command = [exe, "train", "-i", str(tmp / "train.csv"), "-s", "smiles", "--target-columns", "y"]
        command += ["--task-type", "classification", "--splits-file", str(tmp / "split.json")]
        command += ["--pytorch-seed", str(seed), "-o", str(tmp / "out"), *CHEMPROP_CPU]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - start
        if log_dir is not None:
            Path(log_dir).mkdir(parents=True, exist_ok=True)
            (Path(log_dir) / f"chemprop_train_{tag}seed{seed}.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            raise RuntimeError(f"chemprop train failed ({done.returncode}):\n{done.stderr[-4000:]}")
        model = sorted((tmp / "out").rglob("best*.pt"))[0]
        test[["smiles"]].to_csv(tmp / "test.csv", index=False)
        command = [exe, "predict", "-i", str(tmp / "test.csv"), "-s", "smiles", "--model-paths", str(model)]
        command += ["-o", str(tmp / "pred.csv"), *CHEMPROP_CPU]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"chemprop predict failed ({done.returncode}):\n{done.stderr[-4000:]}")
        pred = pd.read_csv(tmp / "pred.csv")
    if len(pred) != len(test):
        raise RuntimeError(f"chemprop predicted {len(pred)} rows for {len(test)} test molecules")
    return pred["y"].to_numpy(dtype=float), seconds


def measure(system: str, task: str, seed: int, args: argparse.Namespace) -> dict:
    """One row: metrics of ``system`` trained on ``task``'s train rows with ``seed``."""
    train, test, n_unparsed = load_task(task, args.data_dir)
    y_train = train["y"].to_numpy()
    if system == "rf":
        x_train, x_test = task_features(task, "morgan", args.data_dir)
        prob, seconds = fit_rf(x_train, y_train, x_test, seed)
    elif system in ("catboost", "catboost-desc"):
        kind = "desc+morgan" if system == "catboost" else "desc"
        x_train, x_test = task_features(task, kind, args.data_dir)
        prob, seconds = fit_catboost(x_train, y_train, x_test, seed)
    elif system == "chemprop":
        prob, seconds = fit_chemprop(args.chemprop_venv, train, test, seed, args.log_dir, f"{task}_")
    else:
        raise ValueError(system)
    row = {"system": system, "task": task, "seed": seed, "n_train": len(train), "n_test": len(test)}
    row |= {"n_unparsed": n_unparsed, "train_seconds": round(seconds, 2)}
    row |= classification_metrics(test["y"].to_numpy(), prob)
    row["date"] = args.date
    return row


# ------------------------------------------------------------------------------------------ csv
def done_keys(out: Path) -> set[tuple[str, str, int]]:
    """(system, task, seed) of the rows already in ``out``."""
    if not out.exists() or out.stat().st_size == 0:
        return set()
    frame = pd.read_csv(out)
    return {(str(s), str(t), int(k)) for s, t, k in zip(frame["system"], frame["task"], frame["seed"])}


def append_row(out: Path, row: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    new = not out.exists() or out.stat().st_size == 0
    with out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", nargs="+", default=["rf", "catboost", "chemprop"], choices=SYSTEMS)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--chemprop-venv", type=Path, default=Path("/tmp/scoremol-chemprop-venv"))
    parser.add_argument("--out", type=Path, default=Path(f"bench/results/classification_peers_{DATE}.csv"))
    parser.add_argument("--log-dir", type=Path, default=None, help="keep chemprop's training logs here")
    parser.add_argument("--date", default=DATE)
    args = parser.parse_args(argv)
    for name, value in ONE_THREAD.items():
        os.environ.setdefault(name, value)
    done = done_keys(args.out)
    for task in args.tasks:
        train, test, n_unparsed = load_task(task, args.data_dir)
        print(
            f"{task}: train {len(train)} (positive {train['y'].mean():.3f}), test {len(test)} "
            f"(positive {test['y'].mean():.3f}), unparsed {n_unparsed}",
            flush=True,
        )
        for system in args.systems:
            for seed in args.seeds:
                if (system, task, seed) in done:
                    print(f"  {system} seed {seed}: already in {args.out}, skipped", flush=True)
                    continue
                row = measure(system, task, seed, args)
                append_row(args.out, row)
                print(
                    f"  {system} seed {seed}: "
                    + " ".join(f"{m} {row[m]:.4f}" for m in METRICS)
                    + f" train {row['train_seconds']:.1f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
