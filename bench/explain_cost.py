"""What ``explain`` costs with a bundled model, against ``predict`` on the same molecules.

Times, on one thread, featurize + predict of ESOL's test fold 0 as one chunk, and the atom
contributions (atom removal) of the same molecules; the median of ``--repeats`` runs.

    OMP_NUM_THREADS=1 python bench/explain_cost.py --model multitask
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scoremol.data.read import smiles_chunk  # noqa: E402
from scoremol.data.registry import resolve  # noqa: E402
from scoremol.inference.explain import atom_contributions  # noqa: E402
from scoremol.inference.predict import predict_part  # noqa: E402
from scoremol.models.checkpoint import load_model  # noqa: E402
from scoremol.pretrained import resolve_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="multitask")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    folds = pd.read_csv(resolve("esol").parent / "esol_folds.csv")
    smiles = pd.read_csv(resolve("esol"))["smiles"].astype(str).to_numpy()[folds.loc[folds.fold == 0, "row"]].tolist()
    model = load_model(resolve_model(Path(args.model))[0])
    timings = {"predict": [], "explain": []}
    for _ in range(args.repeats):
        start = time.perf_counter()
        predict_part(model, smiles_chunk(smiles), batch_size=128)
        timings["predict"].append(time.perf_counter() - start)
        start = time.perf_counter()
        atom_contributions(model, smiles)
        timings["explain"].append(time.perf_counter() - start)
    rates = {k: len(smiles) / statistics.median(v) for k, v in timings.items()}
    print(
        f"{args.model}, {len(smiles)} molecules (ESOL fold 0), one thread, median of {args.repeats}: "
        f"predict {rates['predict']:,.0f} molecules/s, explain {rates['explain']:,.0f} molecules/s "
        f"({rates['predict'] / rates['explain']:.1f}x slower)"
    )


if __name__ == "__main__":
    main()
