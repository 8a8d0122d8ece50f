"""Calibrated intervals and the applicability domain, measured on molecules the model never saw.

Run: python bench/uncertainty_benchmark.py [--systems default fast] [--sets esol aqsoldb]
     [--out-dir bench/results/uncertainty]

- ESOL: the shared 5 folds (esol_folds.csv); each fold trains the system on the other four
  and predicts the fold.
- AqSolDB: the scaffold split (aqsoldb_split.csv), molecules as given (as the bundled model).
For every test molecule: the prediction, its intervals at a grid of nominal coverages, its
similarity and domain verdict. Reports observed coverage at 80/90/95 % (per fold and
pooled), mean 90 % width, Spearman(|error|, width), RMSE in and out of the domain; writes
`summary.json`, `table.md`, the per-molecule `<set>_<system>.csv`, and with matplotlib the
calibration plot and the error-vs-similarity plot.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from scoremol.api import ScoreRegressor
from scoremol.calibration.metrics import COVERAGES, coverage_key, uncertainty_metrics
from scoremol.data.read import smiles_chunk
from scoremol.data.registry import resolve
from scoremol.featurizers.dataset import featurize_chunk

ROOT = Path(__file__).resolve().parents[1]
SPECS = {"default": {}, "fast": {"preset": "fast"}}
GRID = np.round(np.arange(0.05, 1.0, 0.05), 2)


def evaluate(model, smiles: list[str], y: np.ndarray) -> pd.DataFrame:
    """One row per molecule: truth, prediction, intervals over GRID, similarity, domain."""
    data = featurize_chunk(smiles_chunk(smiles), model.featurizer)
    result = model.predict(data)
    calibration = model.calibration[0]
    frame = pd.DataFrame({"smiles": np.asarray(smiles)[data.graph_row], "y": y[data.graph_row]})
    frame["pred"] = result.mean[:, 0]
    frame["similarity"] = result.similarity
    frame["in_domain"] = [not why for why in result.domain_reason]
    frame["why_out"] = result.domain_reason
    frame["threshold"] = model.domain.threshold
    for c in GRID:
        lo, hi = calibration.interval(frame["pred"].to_numpy(), result.difficulty(0), float(c))
        frame[f"lo_{c:.2f}"], frame[f"hi_{c:.2f}"] = lo, hi
    return frame


def metrics_of(frame: pd.DataFrame) -> dict:
    lo = np.stack([frame[f"lo_{c:.2f}"] for c in COVERAGES], axis=1)
    hi = np.stack([frame[f"hi_{c:.2f}"] for c in COVERAGES], axis=1)
    return uncertainty_metrics(frame.y.to_numpy(), frame.pred.to_numpy(), lo, hi, frame.in_domain.to_numpy())


def esol(system: str) -> tuple[pd.DataFrame, list[dict], float]:
    table = pd.read_csv(resolve("esol"))
    folds = pd.read_csv(resolve("esol").parent / "esol_folds.csv").sort_values("row")["fold"].to_numpy()
    smiles, y = table["smiles"].tolist(), table["measured log solubility in mols per litre"].to_numpy()
    frames, per_fold, seconds = [], [], 0.0
    for f in sorted(set(folds)):
        train, test = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
        start = time.perf_counter()
        model = ScoreRegressor(**SPECS[system], seed=0).fit([smiles[i] for i in train], y[train]).model_
        seconds += time.perf_counter() - start
        frame = evaluate(model, [smiles[i] for i in test], y[test]).assign(fold=f)
        per_fold.append(
            {"fold": int(f), "rmse": float(np.sqrt(np.mean((frame.y - frame.pred) ** 2))), **metrics_of(frame)}
        )
        print(f"esol {system} fold {f}: {per_fold[-1]}", flush=True)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True), per_fold, seconds


def aqsoldb_split() -> tuple[pd.DataFrame, pd.DataFrame]:
    """AqSolDB's scaffold split: the `train` and `test` rows of the shipped table."""
    data = pd.read_csv(resolve("aqsoldb"))
    split = pd.read_csv(resolve("aqsoldb").parent / "aqsoldb_split.csv")
    return tuple(data.iloc[split.loc[split.set == part, "row"].to_numpy()] for part in ("train", "test"))


def aqsoldb(system: str) -> tuple[pd.DataFrame, list[dict], float]:
    train, test = aqsoldb_split()
    start = time.perf_counter()
    model = ScoreRegressor(**SPECS[system], seed=0, standardize=False).fit(
        train.SMILES.tolist(), train.Solubility.to_numpy()
    )
    seconds = time.perf_counter() - start
    frame = evaluate(model.model_, test.SMILES.tolist(), test.Solubility.to_numpy())
    row = {"fold": "test", "rmse": float(np.sqrt(np.mean((frame.y - frame.pred) ** 2))), **metrics_of(frame)}
    print(f"aqsoldb {system}: {row}", flush=True)
    return frame, [row], seconds


def plots(frames: dict[str, pd.DataFrame], thresholds: dict[str, float], out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="ideal")
    for name, frame in frames.items():
        observed = [np.mean((frame.y >= frame[f"lo_{c:.2f}"]) & (frame.y <= frame[f"hi_{c:.2f}"])) for c in GRID]
        ax.plot(GRID, observed, marker="o", ms=3, label=name)
    ax.set_xlabel("nominal coverage")
    ax.set_ylabel("observed coverage (test molecules)")
    ax.set_title("Calibration of scoremol's intervals")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "calibration.png", dpi=120)

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, frame in frames.items():
        edges = np.unique(np.quantile(frame.similarity, np.linspace(0, 1, 11)))
        which = np.clip(np.searchsorted(edges, frame.similarity, side="right") - 1, 0, len(edges) - 2)
        centers = [frame.similarity[which == b].mean() for b in range(len(edges) - 1)]
        rmse = [np.sqrt(np.mean((frame.y - frame.pred)[which == b] ** 2)) for b in range(len(edges) - 1)]
        line = ax.plot(centers, rmse, marker="o", label=name)
        ax.axvline(thresholds[name], color=line[0].get_color(), ls=":", lw=1)
    ax.set_xlabel("similarity to the training data (deciles; dotted: median domain threshold)")
    ax.set_ylabel("RMSE, log10(mol/L)")
    ax.set_title("Error against similarity (test molecules)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "error_vs_similarity.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", default=["default", "fast"], choices=list(SPECS))
    parser.add_argument("--sets", nargs="+", default=["esol", "aqsoldb"], choices=["esol", "aqsoldb"])
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results" / "uncertainty")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    summary_path = args.out_dir / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    for data_set in args.sets:
        for system in args.systems:
            frame, per_fold, seconds = (esol if data_set == "esol" else aqsoldb)(system)
            name = f"{data_set}_{system}"
            frame.to_csv(args.out_dir / f"{name}.csv", index=False, float_format="%.5g")
            summary[name] = {"pooled": metrics_of(frame), "per_fold": per_fold, "train_seconds": seconds}
            summary_path.write_text(json.dumps(summary, indent=2))
    frames, thresholds = {}, {}
    for name in summary:
        path = args.out_dir / f"{name}.csv"
        if path.exists():
            frames[name] = pd.read_csv(path)
            out = frames[name]
            thresholds[name] = (
                float(out.similarity[~out.in_domain.astype(bool)].max()) if (~out.in_domain.astype(bool)).any() else 0.0
            )
    lines = [
        "| set / system | "
        + " | ".join(f"cover {round(c * 100)} %" for c in COVERAGES)
        + " | width 90 % | Spearman(|err|, width) | RMSE in | RMSE out | out share |",
        "|---" * (len(COVERAGES) + 6) + "|",
    ]
    for name, entry in summary.items():
        m = entry["pooled"]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{m[coverage_key(c)]:.3f}" for c in COVERAGES)
            + f" | {m['width_90']:.3f} | {m['spearman_error_width']:.3f} | {m['rmse_in']:.3f} | {m['rmse_out']:.3f}"
            f" | {m['share_out']:.1%} |"
        )
    (args.out_dir / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        plots(frames, thresholds, args.out_dir)
    except ImportError:
        print("matplotlib is not installed: no plots (pip install -e '.[plot]')")


if __name__ == "__main__":
    main()
