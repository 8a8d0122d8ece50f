"""How much blending two models' out-of-fold ESOL predictions helps, with honest weights.

Run: python bench/blend_analysis.py NETWORK TREE [NAME ...]
NETWORK and TREE name files in bench/results/oof/ (written by bench/esol_study.py). Prints
the correlation of their errors, the mean per-fold RMSE of fixed blends
(1 - w) * NETWORK + w * TREE, and a nested estimate in which the weight for each test fold
is chosen on the other four folds only, so no test label picks the weight that scores it.
Further NAMEs are averaged with NETWORK first (e.g. to mix architectures).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

OOF = Path(__file__).parent / "results" / "oof"
WEIGHTS = np.round(np.arange(0.0, 0.81, 0.05), 2)


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(OOF / f"{name}.csv").sort_values("row").reset_index(drop=True)


def fold_rmse(pred: np.ndarray, y: np.ndarray, folds: np.ndarray, which) -> list[float]:
    return [float(np.sqrt(np.mean((pred[folds == k] - y[folds == k]) ** 2))) for k in which]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("network")
    parser.add_argument("tree")
    parser.add_argument("more", nargs="*", help="more network predictions averaged with NETWORK")
    args = parser.parse_args()
    net, tree = load(args.network), load(args.tree)
    if not (net["row"].to_numpy() == tree["row"].to_numpy()).all():
        raise SystemExit("the two files cover different rows")
    y, folds = net["y_true"].to_numpy(), net["fold"].to_numpy()
    g = np.mean([net["y_pred"].to_numpy()] + [load(m)["y_pred"].to_numpy() for m in args.more], axis=0)
    t = tree["y_pred"].to_numpy()
    ks = sorted(set(folds.tolist()))
    print(f"error correlation {np.corrcoef(g - y, t - y)[0, 1]:.3f}")
    for w in WEIGHTS:
        r = fold_rmse((1 - w) * g + w * t, y, folds, ks)
        print(f"w={w:.2f}  RMSE {np.mean(r):.4f} +/- {np.std(r):.4f}")
    chosen, nested = [], []
    for k in ks:
        others = [j for j in ks if j != k]
        w = min(WEIGHTS, key=lambda w: np.mean(fold_rmse((1 - w) * g + w * t, y, folds, others)))
        chosen.append(float(w))
        nested += fold_rmse((1 - w) * g + w * t, y, folds, [k])
    print(f"nested: weights {chosen}, RMSE {np.mean(nested):.4f} +/- {np.std(nested):.4f}")


if __name__ == "__main__":
    main()
