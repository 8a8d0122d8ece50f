"""RDKit 2D descriptors for models that fuse them, with non-finite values made explicit.

Several RDKit descriptors are NaN, infinite or astronomically large for some molecules
(Ipc, partial charges, BCUT2D on unusual atoms). They are stored as NaN here and counted,
so the training-time scaler (:mod:`scoremol.data.scaling`) can impute them deliberately.
"""

from __future__ import annotations

import math

import numpy as np
from rdkit import Chem
from rdkit.Chem import Descriptors

#: Every RDKit 2D descriptor, in RDKit's order.
ALL_DESCRIPTORS: tuple[str, ...] = tuple(name for name, _ in Descriptors._descList)
_FUNCTIONS = dict(Descriptors._descList)

#: A small, cheap subset for solubility-like properties: the Delaney (ESOL) equation's inputs
#: (Crippen logP, molecular weight, rotatable bonds, aromatic share via ring counts) plus polarity,
#: hydrogen bonding, size and saturation. It costs about a tenth of the full set per molecule
#: (bench/featurize_throughput.py) and skips the slow, noisy ones (qed, BCUT2D, Ipc, BertzCT).
FAST_DESCRIPTORS: tuple[str, ...] = (
    "MolLogP",
    "MolMR",
    "MolWt",
    "HeavyAtomCount",
    "NumRotatableBonds",
    "NumAromaticRings",
    "NumAliphaticRings",
    "RingCount",
    "FractionCSP3",
    "TPSA",
    "LabuteASA",
    "NumHDonors",
    "NumHAcceptors",
    "NHOHCount",
    "NOCount",
    "NumHeteroatoms",
    "NumValenceElectrons",
)

#: The slowest RDKit descriptors: together about half of the full set's cost per molecule.
SLOW_DESCRIPTORS: frozenset[str] = frozenset(
    {"qed", "SPS", "BertzCT", "Ipc", "AvgIpc"} | {n for n in ALL_DESCRIPTORS if n.startswith("BCUT2D")}
)
#: What a blended CatBoost model uses: every descriptor but the slow ones. On ESOL the tree
#: is as accurate with them (0.556 vs 0.557 RMSE, 0.515 blended either way) at 0.43x the
#: cost per molecule (6.1 vs 14.0 ms on Lipophilicity molecules, measured in one run).
TREE_DESCRIPTORS: tuple[str, ...] = tuple(n for n in ALL_DESCRIPTORS if n not in SLOW_DESCRIPTORS)

#: Named descriptor sets accepted wherever a set is chosen (CLI ``--descriptor-set``).
DESCRIPTOR_SETS: dict[str, tuple[str, ...]] = {
    "all": ALL_DESCRIPTORS,
    "fast": FAST_DESCRIPTORS,
    "tree": TREE_DESCRIPTORS,
}
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def descriptor_names(subset: str | tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Resolve a descriptor selection: None means every RDKit descriptor; a string is a set
    name ("all", "fast", "tree") or comma-separated descriptor names."""
    if subset is None:
        return ALL_DESCRIPTORS
    if isinstance(subset, str):
        if subset in DESCRIPTOR_SETS:
            return DESCRIPTOR_SETS[subset]
        subset = tuple(n.strip() for n in subset.split(",") if n.strip())
        if not subset:
            raise ValueError("empty descriptor set")
    names = tuple(subset)
    unknown = [n for n in names if n not in _FUNCTIONS]
    if unknown:
        raise ValueError(f"unknown RDKit descriptors: {', '.join(unknown)}")
    return names


def union(*selections: tuple[str, ...]) -> tuple[str, ...]:
    """Every descriptor named in any selection, in RDKit's order."""
    wanted = set().union(*selections)
    return tuple(n for n in ALL_DESCRIPTORS if n in wanted)


#: Descriptors RDKit derives from the molecule's E-state indices, which each call recomputes
#: (an O(n^2) Python loop, a quarter of the tree set's cost) unless told that the indices
#: left on the molecule may serve (``force=0``): they are computed once, by :func:`estate_indices`.
_ESTATE_EXTREMES = frozenset({"MaxEStateIndex", "MinEStateIndex", "MaxAbsEStateIndex", "MinAbsEStateIndex"})


def estate_indices(mol: Chem.Mol) -> np.ndarray:
    """RDKit's E-state indices (``rdkit.Chem.EState.EStateIndices``), bit for bit, with its
    pair loop in numpy: every pair term is the same division, and each atom's terms are
    added in the same order (a running sum over the other atoms by index). Left on the
    molecule where RDKit's E-state descriptors look for them."""
    from rdkit.Chem.EState.EState import GetPrincipleQuantumNumber

    table = Chem.GetPeriodicTable()
    intrinsic = np.zeros(mol.GetNumAtoms(), dtype=np.float64)
    for i, atom in enumerate(mol.GetAtoms()):
        degree = atom.GetDegree()
        if degree > 0:
            number = atom.GetAtomicNum()
            valence = table.GetNOuterElecs(number) - atom.GetTotalNumHs()
            n = GetPrincipleQuantumNumber(number)
            intrinsic[i] = (4.0 / (n * n) * valence + 1) / degree
    path = Chem.GetDistanceMatrix(mol, useBO=False, useAtomWts=False) + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (intrinsic[:, None] - intrinsic[None, :]) / (path * path)
    terms[path >= 1e6] = 0.0  # atoms in different fragments do not perturb each other
    accum = np.cumsum(terms, axis=1)[:, -1] if len(intrinsic) else intrinsic
    result = accum + intrinsic
    mol._eStateIndices = result
    return result


def compute_descriptors(mol: Chem.Mol, names: tuple[str, ...] = ALL_DESCRIPTORS) -> np.ndarray:
    """One molecule's descriptor vector (float32); failures and non-finite values are NaN."""
    out = np.full(len(names), np.nan, dtype=np.float32)
    estate = False  # whether this molecule's E-state indices are computed
    for i, name in enumerate(names):
        try:
            if name in _ESTATE_EXTREMES:
                if not estate:
                    estate_indices(mol)
                    estate = True
                value = float(_FUNCTIONS[name](mol, 0))
            else:
                value = float(_FUNCTIONS[name](mol))
        except Exception:  # RDKit raises for some descriptors on exotic molecules
            continue
        if math.isfinite(value) and abs(value) < _FLOAT32_MAX:
            out[i] = value
    return out


def compute_descriptor_matrix(mols: list[Chem.Mol], names: tuple[str, ...] = ALL_DESCRIPTORS) -> np.ndarray:
    """Descriptor matrix ``[len(mols), len(names)]`` (float32 with NaN for missing)."""
    if not mols:
        return np.zeros((0, len(names)), dtype=np.float32)
    return np.stack([compute_descriptors(m, names) for m in mols])
