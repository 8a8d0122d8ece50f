"""Cheaper inputs for the blended tree: RDKit families computed in one C++ call each.

Run: python bench/tree_inputs.py esol FAMILIES...    (blend with the saved default networks)
     python bench/tree_inputs.py tasks FAMILIES...   (the tree alone on the drug-like scaffold tests)

FAMILIES joins names with "+": ``fast`` (the networks' 17 descriptors), ``mqn`` (42 MQNs),
``vsa`` (SlogP/SMR/PEOE VSA, 36 numbers from rdMolDescriptors), ``charge`` (Gasteiger
minimum, maximum and absolute extremes), ``chi`` (Chi0-4 v/n, Kappa1-3, Hall-Kier alpha),
``fr`` (RDKit's 85 fragment counts), ``morgan`` (Morgan counts, radius 2, 1,024 bits);
``tree189`` is the shipped tree set. ``esol`` fits CatBoost (2,000 trees, rate 0.03, one
thread) on each of the five shared folds and blends it 0.4 with the networks saved by
``bench/speed_levers.py`` (``levers/n_h128_e4_ep60_v0.npz``: four hidden-128 networks, 60
epochs); ``tasks`` fits it on the training rows of the AqSolDB, Biogen and logD scaffold
splits (molecules as given) and scores each test. Microseconds per molecule are printed too,
but only a quiet machine makes them comparable.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem, RDLogger
from rdkit.Chem import rdFingerprintGenerator, rdPartialCharges
from rdkit.Chem import rdMolDescriptors as rd
from scipy.stats import spearmanr

from scoremol.data.registry import resolve
from scoremol.featurizers.descriptors import ALL_DESCRIPTORS, FAST_DESCRIPTORS, TREE_DESCRIPTORS, compute_descriptors
from scoremol.models.catboost import fit_catboost

LEVERS = Path(__file__).parent / "results" / "levers"
FRAGMENTS = tuple(n for n in ALL_DESCRIPTORS if n.startswith("fr_"))
MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
#: task -> (data set name, SMILES column, target column, split file)
TASKS = {
    "logS": ("aqsoldb", "SMILES", "Solubility", "aqsoldb_split.csv"),
    "logSol_pH6.8": ("biogen", "SMILES", "LOG SOLUBILITY PH 6.8 (ug/mL)", "biogen_solubility_split.csv"),
    "logD": ("lipophilicity", "smiles", "exp", "lipophilicity_split.csv"),
}


def charges(mol: Chem.Mol) -> list[float]:
    copy = Chem.Mol(mol)
    rdPartialCharges.ComputeGasteigerCharges(copy)
    q = np.array([a.GetDoubleProp("_GasteigerCharge") for a in copy.GetAtoms()])
    q = q[np.isfinite(q)]
    return [q.min(), q.max(), np.abs(q).min(), np.abs(q).max()] if len(q) else [np.nan] * 4


def chi(mol: Chem.Mol) -> list[float]:
    names = ("Chi0v", "Chi1v", "Chi2v", "Chi3v", "Chi4v", "Chi0n", "Chi1n", "Kappa1", "Kappa2", "Kappa3")
    return [getattr(rd, f"Calc{n}")(mol) for n in names] + [rd.CalcHallKierAlpha(mol)]


FAMILIES = {
    "tree189": lambda m: compute_descriptors(m, TREE_DESCRIPTORS),
    "fast": lambda m: compute_descriptors(m, FAST_DESCRIPTORS),
    "mqn": lambda m: rd.MQNs_(m),
    "vsa": lambda m: list(rd.SlogP_VSA_(m)) + list(rd.SMR_VSA_(m)) + list(rd.PEOE_VSA_(m)),
    "charge": charges,
    "chi": chi,
    "fr": lambda m: compute_descriptors(m, FRAGMENTS),
    "morgan": lambda m: MORGAN.GetCountFingerprintAsNumPy(m),
}


def features(mols: list[Chem.Mol], families: str) -> tuple[np.ndarray, float]:
    """The matrix of ``families`` (``a+b+c``) for ``mols`` and its cost in us per molecule."""
    start = time.perf_counter()
    rows = [np.concatenate([np.asarray(FAMILIES[f](m), np.float32) for f in families.split("+")]) for m in mols]
    return np.stack(rows), (time.perf_counter() - start) / len(mols) * 1e6


def fit_predict(x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    booster, _ = fit_catboost(x, y, train, seed=0, val_fraction=0.0, iterations=2000, learning_rate=0.03, threads=1)
    return booster.predict(x[test])


def esol(families: list[str]) -> None:
    frame = pd.read_csv(resolve("esol"))
    folds = pd.read_csv(resolve("esol").parent / "esol_folds.csv").sort_values("row")["fold"].to_numpy()
    y = frame["measured log solubility in mols per litre"].to_numpy()
    nets = np.load(LEVERS / "n_h128_e4_ep60_v0.npz")
    mols = [Chem.MolFromSmiles(s) for s in frame.smiles]
    for family in families:
        x, cost = features(mols, family)
        tree, blend = [], []
        for k in range(5):
            train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
            assert np.allclose(nets[f"y{k}"], y[test])  # the saved networks' fold order
            p = fit_predict(x, y, train, test)
            tree.append(np.sqrt(np.mean((p - y[test]) ** 2)))
            blend.append(np.sqrt(np.mean((0.6 * nets[f"net{k}"] + 0.4 * p - y[test]) ** 2)))
        print(
            json.dumps(
                {
                    "set": family,
                    "n": x.shape[1],
                    "us": round(cost),
                    "tree_rmse": round(np.mean(tree), 4),
                    "blend_rmse": round(np.mean(blend), 4),
                    "blend_sd": round(np.std(blend), 4),
                }
            ),
            flush=True,
        )


def tasks(families: list[str]) -> None:
    for task, (name, smiles_col, target, split) in TASKS.items():
        path = resolve(name)
        frame = pd.read_csv(path)
        sets = pd.read_csv(path.parent / split)
        frame = frame.iloc[sets.row.to_numpy()].assign(set=sets.set.to_numpy())
        mols = [Chem.MolFromSmiles(s) for s in frame[smiles_col]]
        keep = np.array([m is not None for m in mols])
        frame, mols = frame[keep], [m for m in mols if m is not None]
        y = frame[target].to_numpy(float)
        train, test = np.flatnonzero(frame.set.to_numpy() == "train"), np.flatnonzero(frame.set.to_numpy() == "test")
        for family in families:
            x, cost = features(mols, family)
            p = fit_predict(x, y, train, test)
            mae, rho = float(np.mean(np.abs(p - y[test]))), float(spearmanr(p, y[test]).statistic)
            print(
                json.dumps(
                    {"task": task, "set": family, "us": round(cost), "mae": round(mae, 4), "spearman": round(rho, 4)}
                ),
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("where", choices=("esol", "tasks"))
    parser.add_argument("families", nargs="+")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    (esol if args.where == "esol" else tasks)(args.families)


if __name__ == "__main__":
    main()
