"""Speed levers of the default model on the shared ESOL folds: time and RMSE of each.

Run: python bench/speed_levers.py NAME [--net KEY=VALUE ...] [--tree KIND] [--folds 0 1 2 3 4]

Trains the network part of a spec (``--net`` overrides of :class:`scoremol.spec.TrainingSpec`,
no blended tree) and a tree (``--tree``: CatBoost on a named descriptor set such as ``tree`` or
``fast``, or on a file of comma-separated descriptor names; ``+morgan``
appends Morgan counts; ``none``)
on each training portion, times both, and caches the test-fold predictions in
``bench/results/levers/NAME.npz`` so any network can be blended with any tree afterwards
(``--blend NAME_NET NAME_TREE WEIGHT`` prints the blended RMSE). One fit at a time: do not
run it beside another benchmark.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from scoremol.data.registry import resolve
from scoremol.featurizers.cache import featurize_input
from scoremol.featurizers.dataset import FeaturizerSettings
from scoremol.featurizers.descriptors import DESCRIPTOR_SETS, FAST_DESCRIPTORS, TREE_DESCRIPTORS, union
from scoremol.spec import TrainingSpec
from scoremol.training.setup import fit_spec

OUT = Path(__file__).parent / "results" / "levers"
TARGET = "measured log solubility in mols per litre"


def parse_value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def tree_features(data, kind: str) -> np.ndarray:
    from scoremol.models.catboost import morgan_counts

    names = list(data.settings.descriptor_names)
    base = kind.removesuffix("+morgan")
    if base in DESCRIPTOR_SETS:
        chosen = DESCRIPTOR_SETS[base]
    else:  # a file of comma-separated descriptor names
        chosen = tuple(Path(base).read_text().strip().split(","))
    cols = [names.index(n) for n in chosen]
    x = data.descriptors[:, cols].astype(np.float32)
    if kind.endswith("+morgan"):
        x = np.hstack([x, morgan_counts(data, size=1024)])
    return x


def rmse(a, b) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("--net", nargs="*", default=None, help="KEY=VALUE TrainingSpec overrides; omit for no network")
    p.add_argument("--tree", default="none")
    p.add_argument("--trees", type=int, default=2000)
    p.add_argument("--tree-lr", type=float, default=0.03)
    p.add_argument("--folds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--blend", nargs=3, metavar=("NET", "TREE", "WEIGHT"))
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.blend:
        net, tree = (np.load(OUT / f"{n}.npz") for n in args.blend[:2])
        w = float(args.blend[2])
        per_fold = [
            rmse((1 - w) * net[f"net{k}"] + w * tree[f"tree{k}"], net[f"y{k}"]) for k in range(5) if f"net{k}" in net
        ]
        print(f"blend {args.blend}: RMSE {np.mean(per_fold):.4f} +/- {np.std(per_fold):.4f}", per_fold)
        return
    settings = FeaturizerSettings(standardize=True, descriptors=True, descriptor_set=list(union(TREE_DESCRIPTORS)))
    path = resolve("esol")
    data, _ = featurize_input(path, settings)
    folds = pd.read_csv(path.parent / "esol_folds.csv").sort_values("row")["fold"].to_numpy()[data.graph_row]
    y = data.column_values(TARGET)
    OUT.mkdir(parents=True, exist_ok=True)
    saved: dict[str, np.ndarray] = {}
    log = []
    for k in args.folds:
        train, test = np.where(folds != k)[0], np.where(folds == k)[0]
        saved[f"y{k}"] = y[test]
        entry = {"fold": k}
        if args.net is not None:
            overrides = dict(kv.split("=", 1) for kv in args.net)
            spec = TrainingSpec(**{key: parse_value(v) for key, v in overrides.items()}, blend_catboost=0.0)
            start = time.perf_counter()
            model = fit_spec(data, [TARGET], spec, network_descriptors=FAST_DESCRIPTORS, rows=train)
            entry["net_s"] = time.perf_counter() - start
            saved[f"net{k}"] = model.predict(data, ids=test, domain=False).mean[:, 0]
            entry["net_rmse"] = rmse(saved[f"net{k}"], y[test])
            entry["epochs"] = [m.epochs_run for m in model.members]
        if args.tree != "none":
            from scoremol.models.catboost import fit_catboost

            x = tree_features(data, args.tree)
            start = time.perf_counter()
            booster, _ = fit_catboost(
                x, y, train, seed=0, val_fraction=0.0, iterations=args.trees, learning_rate=args.tree_lr
            )
            entry["tree_s"] = time.perf_counter() - start
            saved[f"tree{k}"] = booster.predict(x[test])
            entry["tree_rmse"] = rmse(saved[f"tree{k}"], y[test])
            if args.net is not None:
                entry["blend_rmse"] = rmse(0.6 * saved[f"net{k}"] + 0.4 * saved[f"tree{k}"], y[test])
        log.append(entry)
        print(json.dumps(entry), flush=True)
    np.savez(OUT / f"{args.name}.npz", **saved)
    frame = pd.DataFrame(log)
    summary = {c: f"{frame[c].mean():.4f} +/- {frame[c].std(ddof=0):.4f}" for c in frame if c.endswith("rmse")}
    summary.update({c: f"median {frame[c].median():.1f}" for c in frame if c.endswith("_s")})
    print(args.name, json.dumps(summary))
    with (OUT / "levers.jsonl").open("a") as fh:
        record = {"name": args.name, "net": args.net, "tree": args.tree, "trees": args.trees, **summary}
        fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
