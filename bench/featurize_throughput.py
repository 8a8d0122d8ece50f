"""Graph featurization throughput on ESOL, one core: median molecules/s over repeated runs.

Run: SCOREMOL_DATA=../shared/data python bench/featurize_throughput.py [--repeats 7]
Prints three figures measured in the same run: bare RDKit parsing (the floor), the full
scoremol path (read + parse + standardize + featurize) and featurization alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from rdkit import Chem  # noqa: E402

from scoremol.chem import parse_molecule  # noqa: E402
from scoremol.dataset import FeaturizerSettings, featurize_chunk  # noqa: E402
from scoremol.datasets import resolve_input  # noqa: E402
from scoremol.featurize import mol_to_arrays  # noqa: E402
from scoremol.io import read_input  # noqa: E402


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", default="esol")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    path, _ = resolve_input(args.input)
    chunk = read_input(path)
    n = len(chunk)
    mols = [parse_molecule(s).mol for s in chunk.smiles]
    settings = FeaturizerSettings()
    rows = {
        "RDKit MolFromSmiles only": timed(lambda: [Chem.MolFromSmiles(s) for s in chunk.smiles], args.repeats),
        "scoremol read+parse+standardize+featurize": timed(
            lambda: featurize_chunk(read_input(path), settings), args.repeats
        ),
        "featurize parsed molecules only": timed(lambda: [mol_to_arrays(m) for m in mols], args.repeats),
    }
    print(f"{n} molecules from {path}, {args.repeats} repeats, 1 thread")
    print(f"{'step':45s} {'median s':>9s} {'mol/s':>9s}")
    for name, times in rows.items():
        med = statistics.median(times)
        print(f"{name:45s} {med:9.4f} {n / med:9.0f}")


if __name__ == "__main__":
    main()
