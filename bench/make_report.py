"""Figures for BENCHMARKS.md from bench/results/: the table, a parity plot, convergence curves.

Run: python bench/make_report.py [--parity NAME]   (needs the `plot` extra: matplotlib)
Prints the Markdown table of bench/results/esol_cv.csv sorted by RMSE, the epochs each
depth mode needs to reach its best validation RMSE (base vs score, per architecture), and
writes bench/results/parity.png and bench/results/convergence.png.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).parent / "results"


def table(frame: pd.DataFrame) -> str:
    lines = ["| configuration | RMSE (mean +/- std, 5 folds) | MAE | R2 | parameters | s / fold | epochs to best |",
             "| --- | --- | --- | --- | ---: | ---: | ---: |"]
    for _, r in frame.sort_values("rmse_mean").iterrows():
        params = f"{int(r.parameters):,}" if r.parameters else "-"
        lines.append(f"| {r['name']} | {r.rmse_mean:.3f} +/- {r.rmse_std:.3f} | {r.mae_mean:.3f} | {r.r2_mean:.3f} | {params} | {r.seconds_per_fold:.0f} | {r.best_epoch_mean:.0f} |")
    return "\n".join(lines)


def convergence(frame: pd.DataFrame) -> str:
    lines = ["| architecture | base: epochs to best | score: epochs to best | speed-up | base RMSE | score RMSE |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    plain = frame[~frame["descriptors"].astype(bool) & (frame["ensemble"] == 1)]
    for arch in sorted(set(plain["arch"])):
        rows = plain[plain["arch"] == arch].set_index("mode")
        if {"base", "score"} <= set(rows.index):
            b, s = rows.loc["base"], rows.loc["score"]
            lines.append(f"| {arch} | {b.best_epoch_mean:.0f} | {s.best_epoch_mean:.0f} | {b.best_epoch_mean / max(s.best_epoch_mean, 1):.2f}x | {b.rmse_mean:.3f} | {s.rmse_mean:.3f} |")
    return "\n".join(lines)


def plots(frame: pd.DataFrame, parity: str | None, parity_file: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best = parity or frame.sort_values("rmse_mean")["name"].iloc[0]
    oof_path = Path(parity_file) if parity_file else RESULTS / "oof" / f"{best}.csv"
    if oof_path.is_file():
        oof = pd.read_csv(oof_path)
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.scatter(oof.y_true, oof.y_pred, s=8, alpha=0.6)
        lims = [min(oof.y_true.min(), oof.y_pred.min()) - 0.5, max(oof.y_true.max(), oof.y_pred.max()) + 0.5]
        ax.plot(lims, lims, "k--", lw=1)
        rmse = float(np.sqrt(np.mean((oof.y_true - oof.y_pred) ** 2)))
        ax.set(xlim=lims, ylim=lims, xlabel="measured log S (mol/L)", ylabel="predicted (out of fold)",
               title=f"ESOL, {best}: RMSE {rmse:.3f}")
        fig.tight_layout()
        fig.savefig(RESULTS / "parity.png", dpi=120)
    curves = sorted((RESULTS / "curves").glob("*.csv"))
    wanted = [c for c in curves if c.stem.endswith(("_base", "_score")) and "desc" not in c.stem]
    if wanted:
        archs = sorted({c.stem.rsplit("_", 1)[0] for c in wanted})
        fig, axes = plt.subplots(1, len(archs), figsize=(4 * len(archs), 3.5), squeeze=False)
        for ax, arch in zip(axes[0], archs):
            for mode in ("base", "classic", "skip", "score"):
                path = RESULTS / "curves" / f"{arch}_{mode}.csv"
                if path.is_file():
                    h = pd.read_csv(path)
                    mean = h.groupby("epoch")["val_rmse"].median()
                    ax.plot(mean.index, mean.values, label=mode)
            ax.set(title=arch, xlabel="epoch", ylabel="validation RMSE (median of folds)", ylim=(0.4, 1.5))
            ax.legend()
        fig.tight_layout()
        fig.savefig(RESULTS / "convergence.png", dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parity", default=None, help="configuration for the parity plot (default: the best)")
    parser.add_argument("--parity-file", default=None, help="out-of-fold CSV (y_true, y_pred) for the parity plot, e.g. from `scoremol cv -o`")
    args = parser.parse_args()
    frame = pd.read_csv(RESULTS / "esol_cv.csv")
    print(table(frame))
    print()
    print(convergence(frame))
    plots(frame, args.parity, args.parity_file)


if __name__ == "__main__":
    main()
