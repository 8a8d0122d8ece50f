"""Graph featurization throughput on ESOL, one core: median molecules/s over repeated runs.

Run: SCOREMOL_DATA=../shared/data python bench/featurize_throughput.py [--repeats 7]
Prints three figures measured in the same run: bare RDKit parsing (the floor), the full
scoremol path (read + parse + standardize + featurize) and featurization alone. With
``--parallel-rows N`` (default 50,000) it also featurizes the shared sets repeated to N rows
with 1 worker and with every CPU, checks that both give identical arrays, and prints the
speed-up, plus the cost per molecule of the fast and the full descriptor sets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from rdkit import Chem  # noqa: E402

from scoremol.data.read import MoleculeChunk, read_input  # noqa: E402
from scoremol.data.registry import (
    resolve,  # noqa: E402
    resolve_input,  # noqa: E402
)
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk  # noqa: E402
from scoremol.featurizers.descriptors import compute_descriptor_matrix, descriptor_names  # noqa: E402
from scoremol.featurizers.graph import mol_to_arrays  # noqa: E402
from scoremol.featurizers.molecule import parse_molecule  # noqa: E402
from scoremol.featurizers.parallel import featurize_all
from scoremol.pool import default_workers  # noqa: E402


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
    parser.add_argument("--parallel-rows", type=int, default=50_000)
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
    for name in ("fast", "all"):
        names = descriptor_names(name)
        t = statistics.median(timed(lambda: compute_descriptor_matrix(mols, names), 3))
        print(f"descriptors {name!r} ({len(names)}): {t / n * 1e3:.3f} ms per molecule")
    if args.parallel_rows:
        big = _repeated(args.parallel_rows)
        times = {}
        results = {}
        for workers in (1, default_workers()):
            times[workers] = statistics.median(
                timed(lambda: results.__setitem__(workers, featurize_all(big, settings, workers)), 3)
            )
        same = all(
            np.array_equal(getattr(results[1], k), getattr(results[default_workers()], k))
            for k in ("x", "edge_index", "edge_attr", "atom_ptr", "graph_row")
        )
        w = default_workers()
        print(
            f"{len(big)} rows: 1 worker {len(big) / times[1]:.0f} mol/s, {w} workers {len(big) / times[w]:.0f} mol/s, "
            f"speed-up {times[1] / times[w]:.2f}x, identical results: {same}"
        )


def _repeated(n: int) -> MoleculeChunk:
    import pandas as pd

    smiles = []
    for name in ("esol", "freesolv", "lipophilicity"):
        smiles += pd.read_csv(resolve(name))["smiles"].astype(str).tolist()
    rows = [smiles[i % len(smiles)] for i in range(n)]
    return MoleculeChunk(pd.DataFrame({"smiles": rows}), rows, 0)


if __name__ == "__main__":
    main()
