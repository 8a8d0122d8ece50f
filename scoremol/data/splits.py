"""Fold assignments for cross-validation: from a ``row,fold`` file, random, or by scaffold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold
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
    if table.empty:
        raise ScoremolError(f"folds file {path} has no rows")
    rows = pd.to_numeric(table["row"], errors="coerce").to_numpy(np.float64)
    fold = pd.to_numeric(table["fold"], errors="coerce").to_numpy(np.float64)
    whole = np.isfinite(rows) & np.isfinite(fold) & (rows == np.round(rows)) & (fold == np.round(fold))
    if not whole.all():
        raise ScoremolError(f"folds file {path} has non-integer row or fold values")
    rows, fold = rows.astype(np.int64), fold.astype(np.int64)
    if fold.min() < 0:
        raise ScoremolError(f"folds file {path} has negative folds; number them from 0")
    if len(set(fold.tolist())) < 2:
        raise ScoremolError(f"folds file {path} has one fold; cross-validation needs at least 2")
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
        raise ScoremolError(f"folds must be between 2 and the number of molecules ({n})")
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
        if k > codes.max() + 1:
            raise ScoremolError(
                f"a scaffold split of these {n} molecules allows at most {codes.max() + 1} folds (one per scaffold)"
            )
        # shuffle group labels with the seed so fold composition depends on it
        perm = np.random.default_rng(seed).permutation(codes.max() + 1)
        splitter = GroupKFold(n_splits=k)
        for f, (_, test) in enumerate(splitter.split(np.arange(n), groups=perm[codes])):
            folds[test] = f
    else:
        raise ScoremolError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    return folds
