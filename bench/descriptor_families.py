"""What each family of RDKit descriptors costs per molecule, and how many numbers it gives.

The default model's tree reads 204 RDKit descriptors (the "tree" set, 189 of them besides
the networks' own), about 2 ms per molecule: most of the default's prediction time. This
times, on drug-like molecules from the shared sets, the current set by its own families
(one Python call per descriptor; the fragment counts are one SMARTS match each) against
what RDKit computes in one C++ call: ``rdMolDescriptors.Properties``, MQNs, the VSA
families, Morgan count fingerprints, and Gasteiger charges once per molecule.

    python bench/descriptor_families.py --molecules 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem, RDLogger
from rdkit.Chem import Descriptors, rdFingerprintGenerator, rdMolDescriptors, rdPartialCharges

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scoremol.data.registry import resolve  # noqa: E402
from scoremol.featurizers.descriptors import FAST_DESCRIPTORS, TREE_DESCRIPTORS  # noqa: E402

RDLogger.DisableLog("rdApp.*")
FUNCTIONS = dict(Descriptors._descList)


def families() -> dict[str, list[str]]:
    """The tree set by family (by name prefix), so each family's cost can be read off."""
    out: dict[str, list[str]] = {}
    for name in TREE_DESCRIPTORS:
        if name.startswith("fr_"):
            key = "fragment counts (fr_*)"
        elif "VSA" in name:
            key = "VSA families (Python calls)"
        elif name.startswith(("BCUT2D", "Chi", "Kappa", "BertzCT", "Ipc", "HallKier", "BalabanJ", "AvgIpc")):
            key = "topology (BCUT, Chi, Kappa, ...)"
        elif name.startswith(("Max", "Min")) and ("Charge" in name or "EState" in name):
            key = "charges and E-state extremes"
        else:
            key = "other (counts, MolWt, LogP, QED, ...)"
        out.setdefault(key, []).append(name)
    return out


def python_calls(names: list[str]):
    def run(mol):
        return [FUNCTIONS[n](mol) for n in names]

    return run


_MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
_PROPERTIES = rdMolDescriptors.Properties()


def vsa_cpp(mol):
    return (
        list(rdMolDescriptors.SlogP_VSA_(mol))
        + list(rdMolDescriptors.SMR_VSA_(mol))
        + list(rdMolDescriptors.PEOE_VSA_(mol))
    )


def gasteiger(mol):
    m = Chem.Mol(mol)
    rdPartialCharges.ComputeGasteigerCharges(m)
    charges = [a.GetDoubleProp("_GasteigerCharge") for a in m.GetAtoms()]
    return [min(charges), max(charges)]


CPP = {
    "rdMolDescriptors.Properties (one call)": lambda mol: list(_PROPERTIES.ComputeProperties(mol)),
    "MQNs (one call)": lambda mol: rdMolDescriptors.MQNs_(mol),
    "VSA families (C++ calls)": vsa_cpp,
    "Morgan counts r=2, 2048 (one call)": lambda mol: _MORGAN.GetCountFingerprintAsNumPy(mol),
    "Gasteiger charges once (min, max)": gasteiger,
}


def timed(work, mols, repeats: int) -> tuple[float, int]:
    """Median microseconds per molecule over ``repeats`` passes, and the numbers per molecule."""
    width = len(work(mols[0]))
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for mol in mols:
            work(mol)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds) / len(mols) * 1e6, width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--molecules", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    smiles = pd.read_csv(resolve("biogen"))["SMILES"].astype(str).tolist()
    smiles += pd.read_csv(resolve("lipophilicity"))["smiles"].astype(str).tolist()
    rng = np.random.default_rng(0)
    mols = [m for m in (Chem.MolFromSmiles(s) for s in rng.permutation(smiles)[: args.molecules]) if m is not None]
    rows = []
    rows.append(("tree set, all (today)", *timed(python_calls(list(TREE_DESCRIPTORS)), mols, args.repeats)))
    rows.append(("networks' 17 fast descriptors", *timed(python_calls(list(FAST_DESCRIPTORS)), mols, args.repeats)))
    for family, names in families().items():
        rows.append((f"  {family}", *timed(python_calls(names), mols, args.repeats)))
    for label, work in CPP.items():
        rows.append((label, *timed(work, mols, args.repeats)))
    lines = [
        f"{len(mols):,} drug-like molecules (Biogen + logD SMILES), median of {args.repeats} passes, one core",
        "",
        "| family | us per molecule | numbers |",
        "|---|---|---|",
    ]
    lines += [f"| {label} | {us:,.0f} | {width} |" for label, us, width in rows]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
