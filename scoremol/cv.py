"""Cross-validation: fold assignment (file, random, scaffold), per-fold runs, aggregation.

The test fold is never seen before its final evaluation: scalers, early stopping and the
validation split all come from the training portion (see :func:`scoremol.train.train_model`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
from sklearn.model_selection import GroupKFold, KFold

from scoremol.errors import ScoremolError

SPLITS = ("random", "scaffold")


def folds_from_file(path: str | Path, n_rows: int) -> np.ndarray:
    """Fold of every data row from a ``row,fold`` CSV (row = 0-based data row)."""
    try:
        table = pd.read_csv(path)
    except FileNotFoundError:
        raise ScoremolError(f"folds file not found: {path}") from None
    except Exception as exc:
        raise ScoremolError(f"folds file {path} is not a readable CSV ({type(exc).__name__})") from None
    if not {"row", "fold"} <= set(table.columns):
        raise ScoremolError(f"folds file {path} needs columns row,fold; it has {', '.join(table.columns)}")
    rows = pd.to_numeric(table["row"], errors="coerce")
    fold = pd.to_numeric(table["fold"], errors="coerce")
    if rows.isna().any() or fold.isna().any():
        raise ScoremolError(f"folds file {path} has non-integer row or fold values")
    rows, fold = rows.astype(int).to_numpy(), fold.astype(int).to_numpy()
    if rows.min() < 0 or rows.max() >= n_rows:
        raise ScoremolError(f"folds file {path} names rows outside 0..{n_rows - 1}")
    if len(set(rows.tolist())) != len(rows):
        raise ScoremolError(f"folds file {path} assigns some rows twice")
    out = np.full(n_rows, -1, dtype=np.int64)
    out[rows] = fold
    return out  # -1: a row the file leaves out (never trained or tested on)


def scaffold_of(smiles: str) -> str:
    """Bemis-Murcko scaffold SMILES ('' for acyclic or unparsable molecules)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return ""
    try:
        return MurckoScaffold.MurckoScaffoldSmiles(mol=mol, includeChirality=False)
    except Exception:
        return ""


def make_folds(smiles: list[str], k: int, split: str = "random", seed: int = 0) -> np.ndarray:
    """Fold of every row: shuffled K-fold, or scaffold groups kept whole within a fold."""
    n = len(smiles)
    if k < 2 or k > n:
        raise ScoremolError(f"--folds must be between 2 and the number of molecules ({n})")
    folds = np.empty(n, dtype=np.int64)
    if split == "random":
        splitter = KFold(n_splits=k, shuffle=True, random_state=seed)
        for f, (_, test) in enumerate(splitter.split(np.arange(n))):
            folds[test] = f
    elif split == "scaffold":
        scaffolds = [scaffold_of(s) for s in smiles]
        # acyclic molecules share the empty scaffold; spread them as singletons instead
        groups = [s if s else f"__acyclic_{i}" for i, s in enumerate(scaffolds)]
        codes = pd.factorize(pd.Series(groups))[0]
        # shuffle group labels with the seed so fold composition depends on it
        perm = np.random.default_rng(seed).permutation(codes.max() + 1)
        splitter = GroupKFold(n_splits=k)
        for f, (_, test) in enumerate(splitter.split(np.arange(n), groups=perm[codes])):
            folds[test] = f
    else:
        raise ScoremolError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    return folds


def regression_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """RMSE, MAE and R2 over the finite targets."""
    mask = np.isfinite(y_true)
    t, p = y_true[mask], y_pred[mask]
    if len(t) == 0:
        return {"rmse": math.nan, "mae": math.nan, "r2": math.nan}
    return {
        "rmse": float(math.sqrt(mean_squared_error(t, p))),
        "mae": float(mean_absolute_error(t, p)),
        "r2": float(r2_score(t, p)) if len(t) > 1 else math.nan,
    }


@dataclass
class FoldResult:
    repeat: int
    fold: int
    n_train: int
    n_test: int
    rmse: float
    mae: float
    r2: float
    best_epoch: float
    seconds: float
    parameters: int
    test_rows: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    predictions: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    history: list = field(repr=False, default_factory=list)

    def row(self) -> dict:
        return {k: getattr(self, k) for k in ("repeat", "fold", "n_train", "n_test", "rmse", "mae", "r2", "best_epoch", "seconds", "parameters")}


def summarize(results: list[FoldResult]) -> dict:
    """Mean and (population) standard deviation of each metric over all folds."""
    out: dict = {"n_folds": len(results)}
    for key in ("rmse", "mae", "r2", "best_epoch", "seconds"):
        values = np.array([getattr(r, key) for r in results], dtype=np.float64)
        out[key] = {"mean": float(np.nanmean(values)), "std": float(np.nanstd(values))}
    out["parameters"] = int(results[0].parameters) if results else 0
    return out


# A fold runner maps (train graph indices, test graph indices, seed) to
# (test predictions [n_test], best epoch, parameters, per-epoch history).
FoldRunner = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, float, int, list]]


def run_cv(
    fold_of_graph: np.ndarray,
    y: np.ndarray,
    runner: FoldRunner,
    repeats: int = 1,
    seed: int = 0,
    refold: Callable[[int], np.ndarray] | None = None,
    on_fold: Callable[[FoldResult], None] | None = None,
) -> list[FoldResult]:
    """Run every fold (and repeat); ``refold(r)`` gives new folds for repeat ``r`` > 0."""
    results = []
    for r in range(repeats):
        folds = fold_of_graph if r == 0 or refold is None else refold(r)
        for f in sorted(set(folds.tolist()) - {-1}):
            test = np.where(folds == f)[0]
            train = np.where((folds != f) & (folds != -1))[0]
            start = time.perf_counter()
            pred, best_epoch, params, history = runner(train, test, seed + 1000 * r)
            seconds = time.perf_counter() - start
            m = regression_metrics(y[test], pred)
            result = FoldResult(r, f, len(train), len(test), m["rmse"], m["mae"], m["r2"], best_epoch, seconds, params, test, pred, history)
            results.append(result)
            if on_fold is not None:
                on_fold(result)
    return results


def graph_runner(data, target: str, model_config, train_config, gnn_descriptors: tuple[str, ...] | None = None) -> FoldRunner:
    """A fold runner for every neural model (graph and dense, optionally tree-blended)."""
    from scoremol.train import train_model

    def run(train: np.ndarray, test: np.ndarray, seed: int):
        config = type(train_config)(**{**train_config.to_dict(), "seed": seed})
        model = train_model(data, [target], model_config, config, rows=train, gnn_descriptors=gnn_descriptors)
        pred = model.predict_features(data, device=train_config.device, ids=test)[0][:, 0]
        history = [dict(h, member=k) for k, m in enumerate(model.members) for h in m.history]
        best = float(np.mean([m.best_epoch for m in model.members]))
        return pred, best, model.metrics["parameters"], history

    return run


def catboost_runner(data, target: str, morgan: bool, val_fraction: float, iterations: int | None = None) -> FoldRunner:
    """A fold runner for the CatBoost baseline (early stopping on ``val_fraction`` of the
    training portion, or a fixed number of trees on all of it when that is 0; see
    :func:`scoremol.baselines.fit_catboost`)."""
    from scoremol.baselines import catboost_features, fit_predict_catboost

    x = catboost_features(data, morgan)
    y = data.column_values(target)

    def run(train: np.ndarray, test: np.ndarray, seed: int):
        pred, best = fit_predict_catboost(x, y, train, test, seed=seed, val_fraction=val_fraction, iterations=iterations)
        return pred, float(best), 0, []

    return run


def write_outputs(directory: Path, config: dict, results: list[FoldResult], data, target: str) -> dict:
    """cv_results.json, cv_folds.csv, oof_predictions.csv and cv_history.csv in ``directory``."""
    import json

    from scoremol.io import atomic_write

    directory.mkdir(parents=True, exist_ok=True)
    summary = summarize(results)
    payload = {"config": config, "summary": summary, "folds": [r.row() for r in results]}
    with atomic_write(directory / "cv_results.json") as handle:
        json.dump(payload, handle, indent=2)
    with atomic_write(directory / "cv_folds.csv", newline="") as handle:
        pd.DataFrame([r.row() for r in results]).to_csv(handle, index=False)
    smiles = data.table[data.smiles_col].astype(str).to_numpy()
    y = data.column_values(target)
    oof = pd.concat(
        [
            pd.DataFrame({
                "repeat": r.repeat, "fold": r.fold, "row": data.graph_row[r.test_rows],
                "smiles": smiles[data.graph_row[r.test_rows]], "y_true": y[r.test_rows], "y_pred": r.predictions,
            })
            for r in results
        ],
        ignore_index=True,
    )
    with atomic_write(directory / "oof_predictions.csv", newline="") as handle:
        oof.to_csv(handle, index=False, float_format="%.6g")
    history = [dict(h, repeat=r.repeat, fold=r.fold) for r in results for h in r.history]
    if history:
        with atomic_write(directory / "cv_history.csv", newline="") as handle:
            pd.DataFrame(history).to_csv(handle, index=False, float_format="%.6g")
    return payload
