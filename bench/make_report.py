"""Figures for BENCHMARKS.md from bench/results/: the table, a parity plot, convergence curves.

Run: python bench/make_report.py [--parity NAME]   (needs the `plot` extra: matplotlib)
Prints the Markdown table of bench/results/esol_cv.csv sorted by RMSE, the epochs each
depth mode needs to reach its best validation RMSE (base vs score, per architecture), and
writes bench/results/parity.png and bench/results/convergence.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).parent / "results"
sys.path.insert(0, str(Path(__file__).parent))


def _spec(name: str) -> dict:
    """The study's settings for a configuration name ({} for rows made outside the study)."""
    from esol_study import configs

    return configs().get(name, {})


def table(frame: pd.DataFrame) -> str:
    """Markdown table sorted by RMSE; 'fixed N' marks runs without a validation split."""
    lines = ["| configuration | RMSE (mean +/- std, 5 folds) | MAE | R2 | parameters | s / fold | epochs to best |",
             "| --- | --- | --- | --- | ---: | ---: | ---: |"]
    for _, r in frame.sort_values("rmse_mean").iterrows():
        params = f"{int(r.parameters):,}" if r.parameters else "-"
        spec = _spec(r["name"])
        if r["arch"] == "catboost":
            epochs = f"{r.best_epoch_mean:.0f} trees"
        elif spec.get("val_fraction") == 0.0:
            epochs = f"fixed {spec['epochs']}"
        else:
            epochs = f"{r.best_epoch_mean:.0f}"
        lines.append(f"| {r['name']} | {r.rmse_mean:.3f} +/- {r.rmse_std:.3f} | {r.mae_mean:.3f} | {r.r2_mean:.3f} | {params} | {r.seconds_per_fold:.0f} | {epochs} |")
    return "\n".join(lines)


MODES = ("base", "classic", "skip", "score")


def convergence(frame: pd.DataFrame) -> str:
    """Per architecture, without descriptors: RMSE and epochs to best validation RMSE by mode."""
    head = " | ".join(f"{m} RMSE | {m} epochs" for m in MODES)
    lines = [f"| architecture | {head} | score vs base: epochs ratio |", "| --- |" + " ---: |" * (2 * len(MODES) + 1)]
    plain = frame[frame["arch"].isin(["gcn", "gat", "gine", "mpnn", "dmpnn", "attentivefp", "transformer"])
                  & ~frame["descriptors"].astype(str).isin(["True", "fast"]) & (frame["ensemble"] == 1)
                  & frame["name"].isin([f"{a}_{m}" for a in frame["arch"] for m in MODES])]
    for arch in sorted(set(plain["arch"])):
        rows = plain[plain["arch"] == arch].set_index("mode")
        cells = []
        for m in MODES:
            cells += [f"{rows.loc[m].rmse_mean:.3f}", f"{rows.loc[m].best_epoch_mean:.0f}"] if m in rows.index else ["-", "-"]
        ratio = "-"
        if {"base", "score"} <= set(rows.index):
            ratio = f"{rows.loc['base'].best_epoch_mean / max(rows.loc['score'].best_epoch_mean, 1):.2f}x"
        lines.append(f"| {arch} | {' | '.join(cells)} | {ratio} |")
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
    wanted = [c for c in curves if c.stem.endswith(tuple(f"_{m}" for m in MODES)) and "desc" not in c.stem]
    if wanted:
        archs = sorted({c.stem.rsplit("_", 1)[0] for c in wanted} - {"mlp"})
        colours = dict(zip(MODES, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
        fig, axes = plt.subplots(1, len(archs), figsize=(4 * len(archs), 3.5), squeeze=False)
        for ax, arch in zip(axes[0], archs):
            for mode in ("base", "classic", "skip", "score"):
                path = RESULTS / "curves" / f"{arch}_{mode}.csv"
                if path.is_file():
                    h = pd.read_csv(path)
                    mean = h.groupby("epoch")["val_rmse"].median()
                    ax.plot(mean.index, mean.values, label=mode, color=colours[mode], lw=1)
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
    scaffold = frame["name"].str.endswith("_scaffold")
    print(table(frame[~scaffold]))
    print()
    print("Scaffold split (5 folds, Bemis-Murcko scaffolds kept whole):")
    print(table(frame[scaffold]))
    print()
    print(convergence(frame))
    plots(frame[~scaffold], args.parity, args.parity_file)


if __name__ == "__main__":
    main()
