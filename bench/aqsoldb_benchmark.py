"""AqSolDB scaffold-split benchmark: train on `train`, score on `test`, several seeds, one sitting.

Run: python bench/aqsoldb_benchmark.py [--systems catboost fast default] [--seeds 0 1 2 3 4]
     [--standardize/--no-standardize] [--drop-inorganic] [--dedupe mean|none]
     [--chemprop-venv DIR] [--out bench/results/aqsoldb_<date>.csv]

Systems: scoremol specs by name (`default` = `scoremol train`'s defaults, `fast` = `--preset
fast`, `catboost` = `--arch catboost`) and, when `--chemprop-venv` names a virtual
environment with chemprop 2.x (see bench/peers/chemprop_race.py, which builds one),
`chemprop` (its defaults) and `chemprop-rdkit` (with its RDKit 2D descriptor features).

The test set is scored as it is (1,972 rows), whatever the training data care does; a test
molecule the featurizer rejects is predicted as the training mean and counted. Every system
trains on the same rows. Prints MAE, RMSE, R2, Spearman and training seconds per run, then
mean +/- std per system, and appends the runs to the CSV.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem
from scipy.stats import spearmanr

from scoremol import ScoreRegressor
from scoremol.data.registry import resolve
from scoremol.featurizers.molecule import parse_molecule

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
from chemprop_cli import RDKIT_FEATURES, train_and_predict  # noqa: E402

SPECS = {"default": {}, "fast": {"preset": "fast"}, "catboost": {"arch": "catboost"}}


def load(standardize: bool, drop_inorganic: bool, dedupe: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Train and test frames (``smiles``, ``y``) and counts of what the data care did."""
    data = pd.read_csv(resolve("aqsoldb"))
    split = pd.read_csv(resolve("aqsoldb").parent / "aqsoldb_split.csv")
    train = data.iloc[split.loc[split.set == "train", "row"].to_numpy()]
    test = data.iloc[split.loc[split.set == "test", "row"].to_numpy()]
    train = pd.DataFrame({"smiles": train.SMILES.to_numpy(), "y": train.Solubility.to_numpy()})
    test = pd.DataFrame({"smiles": test.SMILES.to_numpy(), "y": test.Solubility.to_numpy()})
    counts = {"train_rows": len(train), "unparsable": 0, "dropped_inorganic": 0, "merged_duplicates": 0}
    parsed = [parse_molecule(s, standardize=standardize) for s in train.smiles]
    valid = [p.mol is not None for p in parsed]  # 2 rows RDKit cannot parse; chemprop stops on them
    counts["unparsable"] = int(len(train) - sum(valid))
    train, parsed = train[valid], [p for p, ok in zip(parsed, valid) if ok]
    train["key"] = [Chem.MolToSmiles(p.mol) for p in parsed]
    if drop_inorganic:
        organic = [_organic(p.mol) for p in parsed]
        counts["dropped_inorganic"] = int(len(train) - sum(organic))
        train = train[organic]
    if dedupe == "mean":  # one row per structure after standardization, the mean of its values
        before = len(train)
        train = train.groupby("key", sort=False).agg(smiles=("smiles", "first"), y=("y", "mean")).reset_index()
        counts["merged_duplicates"] = before - len(train)
    counts["train_used"] = len(train)
    return train[["smiles", "y"]], test, counts


def _organic(mol) -> bool:
    elements = {a.GetAtomicNum() for a in mol.GetAtoms()}
    return 6 in elements and not elements - {1, 5, 6, 7, 8, 9, 14, 15, 16, 17, 34, 35, 53}


def metrics(y: np.ndarray, pred: np.ndarray) -> dict:
    err = pred - y
    return {
        "mae": float(np.mean(np.abs(err))),
        "rmse": float(np.sqrt(np.mean(err**2))),
        "r2": float(1 - np.sum(err**2) / np.sum((y - y.mean()) ** 2)),
        "spearman": float(spearmanr(y, pred).statistic),
    }


def score(pred: np.ndarray, train: pd.DataFrame, test: pd.DataFrame, seconds: float) -> dict:
    """Metrics over every test row: a molecule without a prediction counts as the training mean."""
    failed = int(np.isnan(pred).sum())
    pred = np.where(np.isnan(pred), train.y.mean(), pred)
    return {**metrics(test.y.to_numpy(), pred), "train_s": seconds, "test_failed": failed}


def run_scoremol(
    name: str, seed: int, train: pd.DataFrame, test: pd.DataFrame, standardize: bool, calibrate: bool = True
) -> dict:
    start = time.perf_counter()
    options = dict(seed=seed, standardize=standardize, calibrate=calibrate)
    model = ScoreRegressor(**SPECS[name], **options).fit(train.smiles, train.y)
    seconds = time.perf_counter() - start
    pred = model.predict(test.smiles)
    return score(pred, train, test, seconds)


def run_chemprop(venv: Path, rdkit: bool, seed: int, train: pd.DataFrame, test: pd.DataFrame) -> dict:
    """chemprop's defaults on the same rows (bench/peers/chemprop_cli.py), optionally with its
    RDKit 2D descriptor features."""
    preds, seconds = train_and_predict(venv, seed, train, ["y"], {"test": test}, RDKIT_FEATURES if rdkit else ())
    return score(preds["test"][:, 0], train, test, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", default=["catboost", "fast", "default"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--standardize", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--drop-inorganic", action="store_true")
    parser.add_argument(
        "--calibrate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="scoremol networks hold out a fold each for calibration (default, as `scoremol train`)",
    )
    parser.add_argument("--dedupe", choices=["none", "mean"], default="none")
    parser.add_argument("--chemprop-venv", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"aqsoldb_{datetime.date.today()}.csv")
    args = parser.parse_args()
    train, test, counts = load(args.standardize, args.drop_inorganic, args.dedupe)
    care = f"standardize={args.standardize} drop_inorganic={args.drop_inorganic} dedupe={args.dedupe}"
    care += "" if args.calibrate else " no-calibrate"
    print(f"data care: {care}; {counts}", flush=True)
    rows = []
    for system in args.systems:
        for seed in args.seeds:
            if system in SPECS:
                result = run_scoremol(system, seed, train, test, args.standardize, args.calibrate)
            else:
                result = run_chemprop(args.chemprop_venv, system == "chemprop-rdkit", seed, train, test)
            row = {"system": system, "seed": seed, "care": care, **counts, **result}
            rows.append(row)
            print(
                f"{system} seed {seed}: MAE {row['mae']:.3f} RMSE {row['rmse']:.3f} R2 {row['r2']:.3f} "
                f"Spearman {row['spearman']:.3f} train {row['train_s']:.0f} s",
                flush=True,
            )
            frame = pd.DataFrame([row])
            frame.to_csv(args.out, mode="a", header=not args.out.is_file(), index=False)
    table = pd.DataFrame(rows).groupby("system", sort=False)
    print("\n| system | MAE | RMSE | R2 | Spearman | train s |\n| --- | --- | --- | --- | --- | --- |")
    for system, g in table:
        cells = [f"{g[k].mean():.3f} +/- {g[k].std(ddof=0):.3f}" for k in ("mae", "rmse", "r2", "spearman")]
        print(f"| {system} | " + " | ".join(cells) + f" | {g.train_s.median():.0f} |")


if __name__ == "__main__":
    os.environ.setdefault("SCOREMOL_WORKERS", "2")
    sys.exit(main())
