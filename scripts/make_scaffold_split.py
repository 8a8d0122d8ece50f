"""Write a Bemis-Murcko scaffold split of a CSV, built as the shared splits were.

Run: python scripts/make_scaffold_split.py INPUT.csv SMILES_COL OUT.csv [--target COL] [--check SPLIT.csv]

Scaffolds (RDKit ``MurckoScaffoldSmiles``, no chirality) group the rows (those with a
``--target`` value, when given); groups larger than 10 % of the rows come first, the rest
after, each list shuffled with ``random.Random(0)``; groups fill ``train`` while it stays at
most 80 % of the rows, the rest go to ``test``. ``--check`` compares the result with an
existing split (the construction reproduces ``aqsoldb_split.csv`` and
``biogen_solubility_split.csv`` exactly).
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

import pandas as pd
from rdkit import Chem, RDLogger
from rdkit.Chem.Scaffolds.MurckoScaffold import MurckoScaffoldSmiles


def scaffold(smiles: str) -> str:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return smiles
    return MurckoScaffoldSmiles(mol=mol, includeChirality=False)


def scaffold_split(smiles: list[str], rows: list[int], seed: int = 0, frac: float = 0.8) -> dict[int, str]:
    groups: dict[str, list[int]] = defaultdict(list)
    for row, s in zip(rows, smiles):
        groups[scaffold(s)].append(row)
    n = len(rows)
    big = [g for g in groups.values() if len(g) > n / 10]
    small = [g for g in groups.values() if len(g) <= n / 10]
    rng = random.Random(seed)
    rng.shuffle(big)
    rng.shuffle(small)
    out: dict[int, str] = {}
    n_train = 0
    for group in big + small:
        if n_train + len(group) <= frac * n:
            n_train += len(group)
            out.update({r: "train" for r in group})
        else:
            out.update({r: "test" for r in group})
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("smiles_col")
    parser.add_argument("output")
    parser.add_argument("--target")
    parser.add_argument("--check")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    frame = pd.read_csv(args.input)
    rows = list(range(len(frame)))
    if args.target:
        rows = [r for r in rows if pd.notna(frame[args.target].iloc[r])]
    split = scaffold_split([str(frame[args.smiles_col].iloc[r]) for r in rows], rows)
    out = pd.DataFrame({"row": rows, "set": [split[r] for r in rows]})
    if args.check:
        ref = pd.read_csv(args.check)
        same = ref.merge(out, on="row", suffixes=("_ref", "_new"))
        print(f"{len(ref)} rows in {args.check}; {int((same.set_ref == same.set_new).sum())} agree")
    out.to_csv(args.output, index=False, lineterminator="\n")
    print(f"{args.output}: {int((out.set == 'train').sum())} train, {int((out.set == 'test').sum())} test")


if __name__ == "__main__":
    main()
