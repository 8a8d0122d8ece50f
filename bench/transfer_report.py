"""Tables and learning curves of a transfer-benchmark sitting (``bench/transfer_benchmark.py``).

    python bench/transfer_report.py bench/results/transfer_<date>.csv [--plots docs/]

Prints, per assay, the MAE (mean over subsample seeds) of every system at every size, the
mean over sizes, and the targets' tests: fine-tuned against scratch (relative MAE at 300 or
fewer molecules; at the full size) and against CatBoost; the training seconds of
fine-tuning against scratch. ``--plots`` writes ``transfer_<assay>.png`` (MAE against
training molecules, one line per system) into that folder.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

#: sizes in order ("all" last)
SIZES = ["50", "100", "300", "1000", "all"]


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean MAE, Spearman and seconds per (assay, size, system), with the seeds counted."""
    frame = frame.assign(size=frame["size"].astype(str))
    out = frame.groupby(["assay", "size", "system"], as_index=False).agg(
        n_train=("n_train", "first"),
        seeds=("seed", "nunique"),
        mae=("mae", "mean"),
        spearman=("spearman", "mean"),
        seconds=("train_seconds", "median"),
    )
    out["order"] = out["size"].map(SIZES.index)
    return out.sort_values(["assay", "order", "system"]).drop(columns="order")


def assay_table(summary: pd.DataFrame, assay: str) -> str:
    """A markdown table: rows are sizes, columns systems' MAE (Spearman)."""
    rows = summary[summary.assay == assay]
    systems = sorted(rows.system.unique())
    lines = ["| molecules | " + " | ".join(systems) + " |", "| --- |" + " --- |" * len(systems)]
    for _, part in rows.groupby("size", sort=False):
        cells = {r.system: f"{r.mae:.3f} ({r.spearman:.2f})" for r in part.itertuples()}
        lines.append(f"| {part.n_train.iloc[0]} | " + " | ".join(cells.get(s, "") for s in systems) + " |")
    means = rows.groupby("system").mae.mean()
    lines.append("| mean over sizes | " + " | ".join(f"{means.get(s, float('nan')):.3f}" for s in systems) + " |")
    return "\n".join(lines)


def target_checks(summary: pd.DataFrame) -> list[str]:
    """The issue's tests, per assay, on what the sitting holds."""
    lines = []
    for assay, rows in summary.groupby("assay"):
        mae = rows.pivot(index="size", columns="system", values="mae")
        secs = rows.pivot(index="size", columns="system", values="seconds")
        small = [s for s in ("50", "100", "300") if s in mae.index]
        parts = [assay]
        if {"from", "scratch"} <= set(mae.columns):
            gain = (1 - mae.loc[small, "from"] / mae.loc[small, "scratch"]).mean() if small else float("nan")
            parts.append(f"fine-tuned MAE {gain:.1%} below scratch at <=300 molecules (mean of sizes)")
            if "all" in mae.index:
                full = mae.loc["all", "from"] / mae.loc["all", "scratch"] - 1
                parts.append(f"at full size {full:+.1%} against scratch")
                parts.append(f"time ratio at full size {secs.loc['all', 'from'] / secs.loc['all', 'scratch']:.2f}")
        if {"from", "catboost"} <= set(mae.columns) and small:
            parts.append(f"below CatBoost at <=300: {(mae.loc[small, 'from'] < mae.loc[small, 'catboost']).mean():.0%}")
        best = mae.mean().idxmin()
        parts.append(f"lowest mean MAE over sizes: {best}")
        lines.append("; ".join(parts))
    return lines


def plot(summary: pd.DataFrame, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    for assay, rows in summary.groupby("assay"):
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for system, part in rows.groupby("system"):
            ax.plot(part.n_train, part.mae, marker="o", label=system)
        ax.set_xscale("log")
        ax.set_xlabel("training molecules")
        ax.set_ylabel("scaffold-test MAE")
        ax.set_title(f"Biogen {assay}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(folder / f"transfer_{assay}.png", dpi=110)
        plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path)
    parser.add_argument("--plots", type=Path)
    args = parser.parse_args()
    summary = summarize(pd.read_csv(args.results, dtype={"size": str}))
    for assay in summary.assay.unique():
        print(f"\n{assay}: MAE (Spearman), mean over seeds\n\n{assay_table(summary, assay)}")
    print()
    print("\n".join(target_checks(summary)))
    if args.plots is not None:
        plot(summary, args.plots)


if __name__ == "__main__":
    main()
