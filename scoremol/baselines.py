"""The CatBoost baseline: gradient-boosted trees on RDKit descriptors (+ Morgan counts).

Graph and dense models train through :mod:`scoremol.train`; this is the non-neural
reference the SCORE paper compares against (0.563 RMSE on ESOL).
"""

from __future__ import annotations

import numpy as np
from rdkit.Chem import rdFingerprintGenerator
from sklearn.model_selection import train_test_split

from scoremol.chem import parse_molecule
from scoremol.dataset import FeaturizedDataset
from scoremol.errors import ScoremolError


def morgan_counts(data: FeaturizedDataset, radius: int = 2, size: int = 2048) -> np.ndarray:
    """Morgan count fingerprints of every graph of ``data`` (same standardization)."""
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=size)
    smiles = data.table[data.smiles_col].astype(str).tolist()
    out = np.zeros((data.num_graphs, size), dtype=np.float32)
    for k, row in enumerate(data.graph_row):
        mol = parse_molecule(smiles[row], data.settings.standardize).mol
        if mol is not None:
            out[k] = generator.GetCountFingerprintAsNumPy(mol)
    return out


def catboost_features(data: FeaturizedDataset, morgan: bool) -> np.ndarray:
    if data.descriptors is None:
        raise ScoremolError("the CatBoost baseline needs descriptors: featurize with --descriptors")
    x = np.where(np.isfinite(data.descriptors), data.descriptors, np.nan).astype(np.float32)
    return np.hstack([x, morgan_counts(data)]) if morgan else x


def fit_predict_catboost(
    x: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    seed: int = 0,
    val_fraction: float = 0.1,
    iterations: int = 3000,
    learning_rate: float = 0.03,
    depth: int = 6,
    threads: int = -1,
) -> tuple[np.ndarray, int]:
    """Fit on ``train`` (early stopping on a seeded validation split), predict ``test``."""
    from catboost import CatBoostRegressor

    keep = train[np.isfinite(y[train])]
    model = CatBoostRegressor(
        iterations=iterations,
        learning_rate=learning_rate,
        depth=depth,
        loss_function="RMSE",
        random_seed=seed,
        verbose=False,
        allow_writing_files=False,  # no catboost_info/ in the working directory
        thread_count=threads,
    )
    if val_fraction > 0 and len(keep) >= 10:
        fit_idx, val_idx = train_test_split(keep, test_size=val_fraction, random_state=seed)
        model.fit(x[fit_idx], y[fit_idx], eval_set=(x[val_idx], y[val_idx]), use_best_model=True, early_stopping_rounds=200)
    else:
        model.fit(x[keep], y[keep])
    return model.predict(x[test]), int(model.get_best_iteration() or iterations)
