"""Unlabelled drug-like molecules built only from the shared sets, for distillation.

Distillation (issue 28) trains one fast network to reproduce the default model on many
molecules. The brief allows only the shared sets' molecules and what can be built from
them: this breaks the training molecules of the shared sets into BRICS fragments and
recombines them (RDKit's BRICSBuild, seeded), keeping new molecules that parse, are not
already in a shared set, and fall in the drug-like range the default is used on (heavy
atoms 12-50, at most 400 atoms in all). Scaffold-test molecules of the benchmark splits
are left out of the fragment pool, so a student judged on those tests never saw pieces
recombined from them.

    python scripts/make_distillation_set.py --molecules 100000 -o distill.smi
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from rdkit import Chem, RDLogger
from rdkit.Chem import BRICS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from drug_like_benchmark import load_tasks  # noqa: E402

RDLogger.DisableLog("rdApp.*")


def training_smiles() -> tuple[list[str], set[str]]:
    """SMILES of the drug-like benchmark's training molecules (every scaffold-test molecule
    of any task removed, as the benchmark trains), and the canonical SMILES of every shared
    molecule, test ones included (to keep only new molecules)."""
    train, test, _ = load_tasks("ugml")
    keep = [s for frame in train.values() for s in frame.smiles]
    known = set()
    for frame in (*train.values(), *test.values()):
        for s in frame.smiles:
            mol = Chem.MolFromSmiles(s)
            if mol is not None:
                known.add(Chem.MolToSmiles(mol))
    return keep, known


def fragment_pool(smiles: list[str]) -> list[Chem.Mol]:
    """The BRICS fragments of the drug-sized molecules among ``smiles``, in a fixed order."""
    fragments = set()
    for s in smiles:
        mol = Chem.MolFromSmiles(s)
        if mol is not None and 8 <= mol.GetNumHeavyAtoms() <= 60:
            fragments.update(BRICS.BRICSDecompose(mol))
    pool = [Chem.MolFromSmiles(f) for f in sorted(fragments)]
    return [f for f in pool if f is not None]


def recombine(pool: list[Chem.Mol], known: set[str], molecules: int, seed: int) -> list[str]:
    """Up to ``molecules`` new drug-sized molecules (canonical SMILES, sorted) recombined from
    ``pool``, none of them in ``known``. Seeds Python's ``random``, which BRICSBuild's
    scrambling reads too, so one seed gives one set."""
    random.seed(seed)
    pool = list(pool)
    random.shuffle(pool)
    made: set[str] = set()
    attempts = 0
    while len(made) < molecules and attempts < 50 * molecules:
        attempts += 1
        # a few random fragments at a time: BRICSBuild over the whole pool would enumerate
        # the first fragments' products exhaustively, not sample the chemistry
        picked = random.sample(pool, random.choice((2, 3)))
        product = next(BRICS.BRICSBuild(picked, scrambleReagents=True, maxDepth=len(picked) - 1), None)
        if product is None:
            continue
        try:
            product.UpdatePropertyCache(strict=False)
            Chem.SanitizeMol(product)
        except Exception:
            continue
        if not 12 <= product.GetNumHeavyAtoms() <= 50:
            continue
        text = Chem.MolToSmiles(product)
        if text not in known:
            made.add(text)
    return sorted(made)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--molecules", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    smiles, known = training_smiles()
    pool = fragment_pool(smiles)
    made = recombine(pool, known, args.molecules, args.seed)
    args.output.write_text("".join(f"{s}\n" for s in made))
    print(f"{len(pool):,} fragments from {len(smiles):,} training molecules; {len(made):,} new molecules")


if __name__ == "__main__":
    main()
