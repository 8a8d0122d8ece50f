"""Cost per molecule of the RDKit descriptor sets a model can fuse: all 217 vs the fast 17.

Run: SCOREMOL_DATA=../shared/data python bench/descriptor_cost.py [--repeats 5]
Times ``compute_descriptor_matrix`` on the parsed ESOL molecules (one thread, median of the
repeats) for each set, next to the graph featurization of the same molecules, and prints
milliseconds per molecule and the ratio fast/all. Accuracy of the two sets on the shared
folds is in bench/results/esol_cv.csv (dmpnn_score_desc vs dmpnn_score_fast).
"""

from __future__ import annotations

import argparse
import statistics
import time

import pandas as pd
from rdkit import Chem, RDLogger

from scoremol.datasets import resolve
from scoremol.descriptors import ALL_DESCRIPTORS, FAST_DESCRIPTORS, compute_descriptor_matrix
from scoremol.featurize import mol_to_arrays


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    smiles = pd.read_csv(resolve("esol"))["smiles"].astype(str).tolist()
    # fresh molecules per run: RDKit caches some intermediate results on a Mol
    def fresh():
        return [Chem.MolFromSmiles(s) for s in smiles]

    n = len(smiles)
    parse = median_seconds(fresh, args.repeats)
    rows = {
        "graph featurization": median_seconds(lambda: [mol_to_arrays(m) for m in fresh()], args.repeats) - parse,
        f"all {len(ALL_DESCRIPTORS)} descriptors": median_seconds(
            lambda: compute_descriptor_matrix(fresh(), ALL_DESCRIPTORS), args.repeats) - parse,
        f"fast {len(FAST_DESCRIPTORS)} descriptors": median_seconds(
            lambda: compute_descriptor_matrix(fresh(), FAST_DESCRIPTORS), args.repeats) - parse,
    }
    print(f"ESOL, {n} molecules, median of {args.repeats} runs, one thread (SMILES parsing subtracted: "
          f"{1e3 * parse / n:.3f} ms/molecule)")
    for name, seconds in rows.items():
        print(f"  {name:28s} {1e3 * seconds / n:7.3f} ms/molecule")
    values = list(rows.values())
    print(f"  fast / all: {values[2] / values[1]:.3f}")


if __name__ == "__main__":
    main()
