"""scoremol vs chemprop 2.x, same sitting, same machine, same shared ESOL folds.

Run: SCOREMOL_DATA=../shared/data python bench/peers/chemprop_race.py [--venv DIR] [--folds 0 1 2 3 4]
     [--predict-rows 20000] [--skip-install] [--predict-repeats 3] [--bundled fast]

1. Installs chemprop (2.x, with the same pinned CPU torch) into its own throwaway virtual
   environment (default /tmp/scoremol-chemprop-venv); nothing touches scoremol's environment.
2. For every fold of ../shared/data/esol_folds.csv, trains chemprop's default D-MPNN
   (`chemprop train` with its defaults: 50 epochs, depth 3, hidden 300, batch 64) and
   scoremol's default model (`scoremol train` with its defaults) on the other four folds,
   each holding out a seeded 10% of the training portion for early stopping/model choice,
   and scores both on the test fold. Both run as command lines in fresh processes with the
   same thread count, so start-up costs count for both. Training runs are timed without
   memory sampling (reading PSS costs CPU that would be taken from the timed command).
3. Predicts 20,000 SMILES (the shared sets repeated) with the fold-0 model of each tool
   and any ``--bundled`` scoremol models, one run of each in turn (``--predict-repeats``).
Prints per-fold RMSE and train seconds, prediction molecules/s and peak memory, and the
ratios scoremol/chemprop.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from measure import run_measured  # noqa: E402

from scoremol.data.registry import resolve  # noqa: E402

TARGET = "measured log solubility in mols per litre"
CHEMPROP = "chemprop==2.3.1"
TORCH = "torch>=2.4,<=2.13.0"
#: chemprop on the CPU, in its own process (no data-loader workers), as scoremol is timed
ON_ONE_CPU = ["--num-workers", "0", "--accelerator", "cpu", "--devices", "1"]


def ensure_chemprop(venv: Path, skip_install: bool) -> Path:
    exe = venv / "bin" / "chemprop"
    if exe.exists() or skip_install:
        return exe
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", TORCH, CHEMPROP], check=True)
    return exe


def rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a, float) - np.asarray(b, float)) ** 2)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, default=Path(tempfile.gettempdir()) / "scoremol-chemprop-venv")
    parser.add_argument("--folds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    parser.add_argument("--predict-rows", type=int, default=20_000)
    parser.add_argument("--skip-install", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--predict-repeats", type=int, default=3)
    parser.add_argument(
        "--bundled", nargs="*", default=[], help="bundled models also predicting the 20,000 SMILES, e.g. fast"
    )
    parser.add_argument(
        "--scoremol-args",
        default="",
        help="extra `scoremol train` options, e.g. "
        "'--ensemble 1 --blend-catboost 0' for the fast single network (default: its defaults)",
    )
    args = parser.parse_args()
    chemprop = ensure_chemprop(args.venv, args.skip_install)
    esol = pd.read_csv(resolve("esol"))
    folds = pd.read_csv(resolve("esol").parent / "esol_folds.csv").sort_values("row")["fold"].to_numpy()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        models = {}
        for k in args.folds:
            train = esol[folds != k].reset_index(drop=True)
            test = esol[folds == k].reset_index(drop=True)
            train_csv, test_csv = tmp / f"train{k}.csv", tmp / f"test{k}.csv"
            train[["smiles", TARGET]].to_csv(train_csv, index=False)
            test[["smiles"]].to_csv(test_csv, index=False)
            # chemprop: train on the training portion; its 10% validation split is seeded.
            order = np.random.default_rng(k).permutation(len(train))
            n_val = int(round(0.1 * len(train)))
            splits = tmp / f"splits{k}.json"
            splits.write_text(
                json.dumps(
                    [{"train": sorted(order[n_val:].tolist()), "val": sorted(order[:n_val].tolist()), "test": []}]
                )
            )
            out_dir = tmp / f"chemprop{k}"
            cp_seconds, _ = run_measured(
                [
                    str(chemprop),
                    "train",
                    "-i",
                    str(train_csv),
                    "-s",
                    "smiles",
                    "--target-columns",
                    TARGET,
                    "--task-type",
                    "regression",
                    "--splits-file",
                    str(splits),
                    "-o",
                    str(out_dir),
                    *ON_ONE_CPU,
                ],
                env=env,
                sample_memory=False,
            )
            cp_model = sorted(out_dir.rglob("best*.pt"))[0]
            cp_pred_csv = tmp / f"cp_pred{k}.csv"
            run_measured(
                [
                    str(chemprop),
                    "predict",
                    "-i",
                    str(test_csv),
                    "-s",
                    "smiles",
                    "--model-paths",
                    str(cp_model),
                    "-o",
                    str(cp_pred_csv),
                    *ON_ONE_CPU,
                ],
                env=env,
            )
            cp_pred = pd.read_csv(cp_pred_csv).iloc[:, -1].to_numpy()
            # scoremol: its defaults (the bundled model's configuration).
            sm_model = tmp / f"scoremol{k}.pt"
            sm_seconds, _ = run_measured(
                [
                    sys.executable,
                    "-m",
                    "scoremol",
                    "-q",
                    "train",
                    str(train_csv),
                    "--target",
                    TARGET,
                    *args.scoremol_args.split(),
                    "-o",
                    str(sm_model),
                ],
                env=env,
                sample_memory=False,
            )
            sm_pred_csv = tmp / f"sm_pred{k}.csv"
            run_measured(
                [
                    sys.executable,
                    "-m",
                    "scoremol",
                    "-q",
                    "predict",
                    str(test_csv),
                    "--model",
                    str(sm_model),
                    "--legacy-names",  # the prediction column keeps the target's name
                    "-o",
                    str(sm_pred_csv),
                ],
                env=env,
            )
            sm_pred = pd.read_csv(sm_pred_csv)[TARGET].to_numpy()
            y = test[TARGET].to_numpy()
            row = {
                "fold": k,
                "chemprop_rmse": rmse(cp_pred, y),
                "scoremol_rmse": rmse(sm_pred, y),
                "chemprop_train_s": cp_seconds,
                "scoremol_train_s": sm_seconds,
            }
            rows.append(row)
            models[k] = (cp_model, sm_model)
            print(
                f"fold {k}: RMSE chemprop {row['chemprop_rmse']:.4f} scoremol {row['scoremol_rmse']:.4f} | "
                f"train s chemprop {cp_seconds:.1f} scoremol {sm_seconds:.1f}",
                flush=True,
            )
        table = pd.DataFrame(rows)
        print(
            f"\nmean RMSE  chemprop {table.chemprop_rmse.mean():.4f} +/- {table.chemprop_rmse.std(ddof=0):.4f}"
            f"   scoremol {table.scoremol_rmse.mean():.4f} +/- {table.scoremol_rmse.std(ddof=0):.4f}"
        )
        print(
            f"median train s per fold  chemprop {table.chemprop_train_s.median():.1f}"
            f"   scoremol {table.scoremol_train_s.median():.1f}"
            f"   ratio scoremol/chemprop {table.scoremol_train_s.median() / table.chemprop_train_s.median():.2f}"
        )

        smiles = []
        for name in ("esol", "freesolv", "lipophilicity"):
            smiles += pd.read_csv(resolve(name))["smiles"].astype(str).str.strip().tolist()
        big = tmp / "predict.csv"
        pd.DataFrame({"smiles": [smiles[i % len(smiles)] for i in range(args.predict_rows)]}).to_csv(big, index=False)
        cp_model, sm_model = models[args.folds[0]]
        commands = {
            "chemprop": [
                str(chemprop),
                "predict",
                "-i",
                str(big),
                "-s",
                "smiles",
                "--model-paths",
                str(cp_model),
                "-o",
                str(tmp / "cp_big.csv"),
                *ON_ONE_CPU,
            ],
        }
        for name, model in [("scoremol", str(sm_model))] + [(f"scoremol --model {m}", m) for m in args.bundled]:
            out = tmp / f"sm_big_{len(commands)}.csv"
            commands[name] = [
                sys.executable,
                "-m",
                "scoremol",
                "-q",
                "predict",
                str(big),
                "--model",
                model,
                "-o",
                str(out),
            ]
        # one run of each in turn, so a slower stretch of the machine hits every tool alike; timed
        # runs do not sample memory (reading PSS takes CPU from the command, most from a short
        # run of several processes), one more run of each measures the peak
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.predict_repeats):
            for name, command in commands.items():
                runs[name].append(run_measured(command, env=env, sample_memory=False))
        peaks = {name: run_measured(command, env=env)[1] for name, command in commands.items()}
        n = args.predict_rows
        cp_t = statistics.median(s for s, _ in runs["chemprop"])
        print(f"\npredict {n:,} SMILES (median of {args.predict_repeats}, runs interleaved):")
        for name, measured in runs.items():
            t = statistics.median(s for s, _ in measured)
            ratios = [c / s for (c, _), (s, _) in zip(runs["chemprop"], measured)]
            print(
                f"  {name}: {n / t:,.0f} mol/s, peak {peaks[name]:,.0f} MiB (a separate run), "
                f"runs {' '.join(f'{s:.1f}' for s, _ in measured)} s"
                + (
                    ""
                    if name == "chemprop"
                    else f" | throughput ratio to chemprop {cp_t / t:.2f}"
                    f" (per interleaved pair: median {statistics.median(ratios):.2f})"
                )
            )


if __name__ == "__main__":
    main()
