"""Figures for BENCHMARKS.md from bench/results/: the table, a parity plot, convergence curves.

Run: python bench/make_report.py [--parity NAME]   (needs the `plot` extra: matplotlib)
Prints the Markdown table of bench/results/esol_cv.csv sorted by RMSE, the epochs each
depth mode needs to reach its best validation RMSE (base vs score, per architecture), and
writes bench/results/parity.png and bench/results/convergence.png.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).parent / "results"
sys.path.insert(0, str(Path(__file__).parent))


def _spec(name: str) -> dict:
    """The study's settings for a configuration name ({} for rows made outside the study).

    esol_study imports scoremol (and torch); when that import fails, the only setting the
    table needs (a fixed schedule without validation split, ``_fullN`` in the name) is read
    from the name, so the report still runs from bench/results alone.
    """
    try:
        from esol_study import configs
    except ImportError:
        match = re.search(r"_full(\d+)(?:_|$)", name)
        return {"val_fraction": 0.0, "epochs": int(match.group(1))} if match else {}
    return configs().get(name, {})


def table(frame: pd.DataFrame) -> str:
    """Markdown table sorted by RMSE; 'fixed N' marks runs without a validation split."""
    lines = [
        "| configuration | RMSE (mean +/- std, 5 folds) | MAE | R2 | parameters | s / fold | epochs to best |",
        "| --- | --- | --- | --- | ---: | ---: | ---: |",
    ]
    for _, r in frame.sort_values("rmse_mean").iterrows():
        params = f"{int(r.parameters):,}" if r.parameters else "-"
        spec = _spec(r["name"])
        if r["arch"] == "catboost":
            epochs = f"{r.best_epoch_mean:.0f} trees"
        elif spec.get("val_fraction") == 0.0:
            epochs = f"fixed {spec['epochs']}"
        else:
            epochs = f"{r.best_epoch_mean:.0f}"
        lines.append(
            f"| {r['name']} | {r.rmse_mean:.3f} +/- {r.rmse_std:.3f} | {r.mae_mean:.3f} | {r.r2_mean:.3f} "
            f"| {params} | {r.seconds_per_fold:.0f} | {epochs} |"
        )
    return "\n".join(lines)


MODES = ("base", "classic", "skip", "score")


def convergence(frame: pd.DataFrame) -> str:
    """Per architecture, without descriptors: RMSE and epochs to best validation RMSE by mode."""
    head = " | ".join(f"{m} RMSE | {m} epochs" for m in MODES)
    lines = [f"| architecture | {head} | score vs base: epochs ratio |", "| --- |" + " ---: |" * (2 * len(MODES) + 1)]
    plain = frame[
        frame["arch"].isin(["gcn", "gat", "gine", "mpnn", "dmpnn", "attentivefp", "transformer"])
        & ~frame["descriptors"].astype(str).isin(["True", "fast"])
        & (frame["ensemble"] == 1)
        & frame["name"].isin([f"{a}_{m}" for a in frame["arch"] for m in MODES])
    ]
    for arch in sorted(set(plain["arch"])):
        rows = plain[plain["arch"] == arch].set_index("mode")
        cells = []
        for m in MODES:
            cells += (
                [f"{rows.loc[m].rmse_mean:.3f}", f"{rows.loc[m].best_epoch_mean:.0f}"]
                if m in rows.index
                else ["-", "-"]
            )
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
        # two title lines: a long configuration name no longer runs off the figure
        ax.set(
            xlim=lims,
            ylim=lims,
            xlabel="measured log S (mol/L)",
            ylabel="predicted (out of fold)",
            title=f"ESOL, out of fold (all folds pooled): RMSE {rmse:.3f}\n{best}",
        )
        ax.set_aspect("equal")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(RESULTS / "parity.png", dpi=120)
    curves = sorted((RESULTS / "curves").glob("*.csv"))
    wanted = [c for c in curves if c.stem.endswith(tuple(f"_{m}" for m in MODES)) and "desc" not in c.stem]
    if wanted:
        archs = sorted({c.stem.rsplit("_", 1)[0] for c in wanted} - {"mlp"})
        colours = dict(zip(MODES, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
        # A grid (at most 3 columns, one slot kept for the shared legend) instead of one row:
        # 3 x 4.1 in at 110 dpi is about 1,350 px wide, readable when scaled to page width.
        ncols = min(3, len(archs) + 1)
        nrows = math.ceil((len(archs) + 1) / ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(4.1 * ncols, 3.0 * nrows), squeeze=False, sharex=True, sharey=True
        )
        flat = list(axes.flat)
        for i, (ax, arch) in enumerate(zip(flat, archs)):
            for mode in MODES:
                path = RESULTS / "curves" / f"{arch}_{mode}.csv"
                if path.is_file():
                    h = pd.read_csv(path)
                    mean = h.groupby("epoch")["val_rmse"].median()
                    ax.plot(mean.index, mean.values, label=mode, color=colours[mode], lw=1.2)
            ax.set_title(arch, fontsize=12)
            ax.set_ylim(0.45, 1.2)
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=10, labelbottom=True, labelleft=i % ncols == 0)
            if i % ncols == 0:
                ax.set_ylabel("validation RMSE", fontsize=11)
            if i >= len(archs) - ncols:  # last panel of its column
                ax.set_xlabel("epoch", fontsize=11)
        legend_ax = flat[len(archs)]
        legend_ax.axis("off")
        handles, labels = flat[0].get_legend_handles_labels()
        legend_ax.legend(
            handles,
            labels,
            loc="center",
            bbox_to_anchor=(0.5, 0.62),
            fontsize=12,
            title="depth mode",
            title_fontsize=12,
            frameon=False,
        )
        legend_ax.text(
            0.5,
            0.05,
            "median over the 5 folds\nper epoch, no descriptors",
            ha="center",
            va="bottom",
            fontsize=10,
            transform=legend_ax.transAxes,
        )
        for ax in flat[len(archs) + 1 :]:
            ax.axis("off")
        fig.suptitle("ESOL: validation RMSE per epoch by depth mode", fontsize=13)
        fig.tight_layout()
        fig.savefig(RESULTS / "convergence.png", dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parity", default=None, help="configuration for the parity plot (default: the best)")
    parser.add_argument(
        "--parity-file",
        default=None,
        help="out-of-fold CSV (y_true, y_pred) for the parity plot, e.g. from `scoremol cv -o`",
    )
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
