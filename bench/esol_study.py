"""The ESOL study: every architecture x depth mode on the shared 5 folds, resumable.

Run: SCOREMOL_DATA=../shared/data python bench/esol_study.py [--only NAME ...] [--list]
Each finished configuration appends one row to bench/results/esol_cv.csv (mean +/- std
RMSE, parameters, seconds per fold, epochs to best validation RMSE) and its per-epoch
validation curves to bench/results/curves/NAME.csv; configurations already in the CSV are
skipped, so the study can run across several sittings. Do not run two benchmarks at once.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from scoremol.data import splits
from scoremol.data.registry import resolve
from scoremol.featurizers.cache import featurize_input
from scoremol.featurizers.dataset import FeaturizerSettings
from scoremol.featurizers.descriptors import descriptor_names
from scoremol.nn import GRAPH_ARCHITECTURES, ModelConfig
from scoremol.training import cv as cvlib
from scoremol.training import cv_files
from scoremol.training.fit import TrainConfig

RESULTS = Path(__file__).parent / "results"
TABLE = RESULTS / "esol_cv.csv"
TARGET = "measured log solubility in mols per litre"
FIELDS = [
    "name",
    "arch",
    "mode",
    "dt",
    "descriptors",
    "ensemble",
    "rmse_mean",
    "rmse_std",
    "mae_mean",
    "r2_mean",
    "parameters",
    "seconds_per_fold",
    "best_epoch_mean",
    "epochs",
    "fold_rmse",
    "machine",
    "date",
]


#: TrainConfig settings a configuration may override (else the study's defaults).
TRAIN_KEYS = ("epochs", "val_fraction", "lr", "batch_size", "weight_decay", "patience", "catboost_weight")


def configs() -> dict[str, dict]:
    """name -> settings; the order is the order of the study."""
    out: dict[str, dict] = {}
    for arch in GRAPH_ARCHITECTURES:
        for mode in ("base", "classic", "skip", "score"):
            out[f"{arch}_{mode}"] = {"arch": arch, "mode": mode}
    for arch in ("dmpnn", "gcn", "attentivefp"):
        for mode in ("skip", "score"):
            out[f"{arch}_{mode}_desc"] = {"arch": arch, "mode": mode, "descriptors": True}
    out["dmpnn_score_desc_ens5"] = {"arch": "dmpnn", "mode": "score", "descriptors": True, "ensemble": 5}
    # The 17 cheap descriptors instead of all 217 (issue 6: keep accuracy at a fraction of the cost).
    out["dmpnn_score_fast"] = {"arch": "dmpnn", "mode": "score", "descriptors": True, "descriptor_set": "fast"}
    out["dmpnn_score_fast_do2"] = {
        "arch": "dmpnn",
        "mode": "score",
        "descriptors": True,
        "descriptor_set": "fast",
        "dropout": 0.2,
    }
    out["dmpnn_score_fast_do2_ens5"] = {
        "arch": "dmpnn",
        "mode": "score",
        "descriptors": True,
        "descriptor_set": "fast",
        "dropout": 0.2,
        "ensemble": 5,
    }
    # Full-data training: no validation hold-out, cosine schedule run to its end, last epoch kept.
    fast_do2 = {"arch": "dmpnn", "mode": "score", "descriptors": True, "descriptor_set": "fast", "dropout": 0.2}
    for e in (60, 100):
        out[f"dmpnn_score_fast_do2_full{e}"] = {**fast_do2, "epochs": e, "val_fraction": 0.0}
    out["dmpnn_score_fast_do2_h256"] = {**fast_do2, "hidden": 256}
    out["dmpnn_score_fast_do2_full60_ens5"] = {**fast_do2, "epochs": 60, "val_fraction": 0.0, "ensemble": 5}
    # The ensemble blended with CatBoost on all RDKit descriptors (2000 trees on every training
    # molecule, weight 0.4): the default of `scoremol train` and the bundled model.
    out["dmpnn_score_fast_do2_ens5_cb40"] = {**fast_do2, "ensemble": 5, "catboost_weight": 0.4}
    out["dmpnn_score_fast_do2_ens5_cb40_scaffold"] = {
        **fast_do2,
        "ensemble": 5,
        "catboost_weight": 0.4,
        "split": "scaffold",
    }
    # The winner under a scaffold split (scaffolds kept whole within each of 5 folds).
    out["dmpnn_score_fast_do2_full60_scaffold"] = {**fast_do2, "epochs": 60, "val_fraction": 0.0, "split": "scaffold"}
    out["dmpnn_score_fast_do2_full60_ens5_scaffold"] = {
        **fast_do2,
        "epochs": 60,
        "val_fraction": 0.0,
        "ensemble": 5,
        "split": "scaffold",
    }
    out["mlp_base"] = {"arch": "mlp", "mode": "base", "descriptors": True}
    out["score-mlp"] = {"arch": "score-mlp", "mode": "score", "descriptors": True}
    out["catboost"] = {"arch": "catboost", "descriptors": True}
    out["catboost_morgan"] = {"arch": "catboost", "descriptors": True, "morgan": True}
    # 2000 trees on every training molecule (no early-stopping split), as in the blend
    out["catboost_full2000"] = {"arch": "catboost", "descriptors": True, "val_fraction": 0.0, "iterations": 2000}
    # ... on the "tree" set (all but the 13 slowest descriptors), as the default model's blend
    out["catboost_full2000_tree"] = {**out["catboost_full2000"], "descriptor_set": "tree"}
    return out


def done() -> set[str]:
    if not TABLE.is_file():
        return set()
    return set(pd.read_csv(TABLE)["name"])


def run_one(name: str, spec: dict, data, folds: np.ndarray, epochs: int) -> None:
    y = data.column_values(TARGET)
    if spec["arch"] == "catboost":
        if spec.get("descriptor_set"):
            data = data.select_descriptors(descriptor_names(spec["descriptor_set"]))
        runner = cvlib.catboost_runner(
            data, TARGET, spec.get("morgan", False), spec.get("val_fraction", 0.1), spec.get("iterations", 3000)
        )
    else:
        desc = bool(spec.get("descriptors")) or spec["arch"] in ("mlp", "score-mlp")
        gnn_descriptors = None
        if desc and spec.get("descriptor_set"):
            if spec.get("catboost_weight"):  # the tree uses every descriptor, the network its set
                gnn_descriptors = descriptor_names(spec["descriptor_set"])
            else:
                data = data.select_descriptors(descriptor_names(spec["descriptor_set"]))
        n_desc = (len(gnn_descriptors) if gnn_descriptors else data.descriptors.shape[1]) if desc else 0
        model_config = ModelConfig(
            arch=spec["arch"],
            mode=spec["mode"],
            dt=spec.get("dt", 0.5),
            dropout=spec.get("dropout", 0.1),
            hidden=spec.get("hidden", 128),
            use_descriptors=desc,
            descriptor_dim=n_desc,
        )
        overrides = {k: spec[k] for k in TRAIN_KEYS if k in spec}
        train_config = TrainConfig(**{"epochs": epochs, "ensemble": spec.get("ensemble", 1), **overrides})
        runner = cvlib.graph_runner(data, TARGET, model_config, train_config, gnn_descriptors)
    if spec.get("split") == "scaffold":  # Bemis-Murcko scaffolds kept whole within a fold
        smiles_all = data.table[data.smiles_col].astype(str).tolist()
        folds = splits.make_folds([smiles_all[i] for i in data.graph_row], 5, "scaffold", seed=0)
    results = cvlib.run_cv(
        folds,
        y,
        runner,
        on_fold=lambda r: print(f"  {name} fold {r.fold}: RMSE {r.rmse:.4f} ({r.seconds:.0f} s)", flush=True),
    )
    s = cvlib.summarize(results)
    row = {
        "name": name,
        "arch": spec["arch"],
        "mode": spec.get("mode", ""),
        "dt": spec.get("dt", 0.5) if spec.get("mode") in ("skip", "score") else "",
        "descriptors": spec.get("descriptor_set", True) if spec.get("descriptors") else False,
        "ensemble": spec.get("ensemble", 1),
        "rmse_mean": round(s["rmse"]["mean"], 4),
        "rmse_std": round(s["rmse"]["std"], 4),
        "mae_mean": round(s["mae"]["mean"], 4),
        "r2_mean": round(s["r2"]["mean"], 4),
        "parameters": s["parameters"],
        "seconds_per_fold": round(s["seconds"]["mean"], 1),
        "best_epoch_mean": round(s["best_epoch"]["mean"], 1),
        "epochs": spec.get("epochs", epochs) if spec["arch"] != "catboost" else "",
        "fold_rmse": " ".join(f"{r.rmse:.4f}" for r in results),
        "machine": f"{platform.machine()} {os.cpu_count()} cpu",
        "date": time.strftime("%Y-%m-%d"),
    }
    RESULTS.mkdir(exist_ok=True)
    new = not TABLE.is_file()
    with open(TABLE, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    (RESULTS / "oof").mkdir(exist_ok=True)
    oof = cv_files.oof_frame(results, data, TARGET).drop(columns="repeat")  # the study's files have no repeat column
    oof.to_csv(RESULTS / "oof" / f"{name}.csv", index=False, float_format="%.5g")
    history = [dict(h, fold=r.fold) for r in results for h in r.history]
    if history:
        (RESULTS / "curves").mkdir(exist_ok=True)
        pd.DataFrame(history).to_csv(RESULTS / "curves" / f"{name}.csv", index=False, float_format="%.5g")
    print(
        f"{name}: RMSE {row['rmse_mean']:.4f} +/- {row['rmse_std']:.4f}, {row['seconds_per_fold']} s/fold", flush=True
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", help="run just these configuration names")
    parser.add_argument("--epochs", type=int, default=150)
    parser.add_argument("--list", action="store_true")
    parser.add_argument(
        "--threads",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="torch threads (1 lets two studies share the two cores)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    todo = configs()
    if args.list:
        finished = done()
        for name in todo:
            print(("done  " if name in finished else "      ") + name)
        return
    names = args.only or list(todo)
    data, _ = featurize_input(str(resolve("esol")), FeaturizerSettings(descriptors=True))
    folds = splits.folds_from_file(resolve("esol").parent / "esol_folds.csv", data.num_rows)[data.graph_row]
    for name in names:
        if name in done():
            continue
        run_one(name, todo[name], data, folds, args.epochs)


if __name__ == "__main__":
    main()
