"""Which atom attribution to ship: faithfulness on the ESOL test fold, and its cost.

For every test-fold molecule and each method of :mod:`scoremol.inference.explain`, mask the
k atoms with the largest |contribution| (k = 1..5) and, as the control, k random atoms (the
mean of ``--draws`` draws), and record the mean |change of the prediction|. A faithful method
moves the prediction more than random masking, and more than the other methods. Masking is
measured two ways, so that no method is graded only by its own operation: ``zero`` (the
atoms' feature rows set to zero: occlusion's own operation) and ``remove`` (the atoms and
their bonds deleted from the graph: the ``removal`` method's own operation).

The model is a ``--preset fast`` network trained on folds 1-4 of ``esol_folds.csv`` (fold 0
is the test fold; the bundled ``esol-fast`` saw every molecule, so it is not used).

    OMP_NUM_THREADS=1 python bench/explain_faithfulness.py [--model /tmp/esol_fast_f1-4.pt]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from scoremol.data.read import MoleculeChunk
from scoremol.data.registry import resolve
from scoremol.data.splits import folds_from_file
from scoremol.featurizers.dataset import featurize_chunk
from scoremol.inference.explain import (
    METHODS,
    atom_contributions,
    featurize_molecule,
    network_output,
    replicate,
    without_atoms,
)
from scoremol.models.checkpoint import load_model

TARGET = "measured log solubility in mols per litre"
TEST_FOLD = 0
KS = (1, 2, 3, 4, 5)
ROOT = Path(__file__).resolve().parents[1]


def train_model(path: Path, esol: pd.DataFrame, folds: np.ndarray) -> None:
    """A fast-preset model on every fold but the test fold, through the CLI."""
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "esol_train.csv"
        esol[folds != TEST_FOLD].to_csv(train, index=False)
        cmd = [sys.executable, "-m", "scoremol", "train", str(train), "-t", TARGET, "--preset", "fast", "-o", str(path)]
        subprocess.run(cmd, check=True)


def masked_predictions(model, mol, masks: list[list[int]], how: str) -> np.ndarray:
    """The networks' prediction with each set of atoms masked (``zero`` or ``remove``)."""
    m = featurize_molecule(model, mol)
    with torch.inference_mode():
        if how == "zero":
            xs = m.x.unsqueeze(0).repeat(len(masks), 1, 1)
            for j, atoms in enumerate(masks):
                xs[j, atoms] = 0.0
            return network_output(model, replicate(m, xs), 0).numpy()
        return network_output(model, without_atoms(m, masks), 0).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=Path(tempfile.gettempdir()) / "esol_fast_f1-4.pt")
    parser.add_argument("--draws", type=int, default=5, help="random draws per molecule and k")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"explain_{date.today()}.md")
    args = parser.parse_args()
    torch.set_num_threads(1)

    path = resolve("esol")
    esol = pd.read_csv(path)
    folds = folds_from_file(path.parent / "esol_folds.csv", len(esol))
    if not args.model.is_file():
        train_model(args.model, esol, folds)
    model = load_model(args.model)
    smiles = [s.strip() for s in esol.loc[folds == TEST_FOLD, "smiles"]]
    rng = np.random.default_rng(0)

    # cost: predict (featurize + predict, one chunk) vs explain, molecules/s
    chunk = MoleculeChunk(frame=pd.DataFrame({"smiles": smiles}), smiles=smiles, start=0)
    start = time.perf_counter()
    model.predict(featurize_chunk(chunk, model.featurizer))
    predict_rate = len(smiles) / (time.perf_counter() - start)

    rows, rates = [], {}
    for method in METHODS:
        start = time.perf_counter()
        explained = atom_contributions(model, smiles, 0, method=method)
        rates[method] = len(smiles) / (time.perf_counter() - start)
        for how in ("zero", "remove"):
            top = {k: [] for k in KS}
            rand = {k: [] for k in KS}
            for e in explained:
                n = e.mol.GetNumAtoms() if e.ok else 0
                if n < 2:
                    continue
                order = np.argsort(-np.abs(e.weights))
                masks, labels = [[]], []
                for k in KS:
                    if k >= n:  # masking every atom says nothing about which atoms matter
                        continue
                    masks.append([int(i) for i in order[:k]])
                    labels.append(("top", k))
                    for _ in range(args.draws):
                        masks.append([int(i) for i in rng.choice(n, k, replace=False)])
                        labels.append(("rand", k))
                pred = masked_predictions(model, e.mol, masks, how)
                change = np.abs(pred[1:] - pred[0])
                per = {}
                for (kind, k), c in zip(labels, change, strict=True):
                    per.setdefault((kind, k), []).append(c)
                for (kind, k), cs in per.items():
                    (top if kind == "top" else rand)[k].append(float(np.mean(cs)))
            rows.append(
                {
                    "method": method,
                    "mask": how,
                    **{f"top k={k}": np.mean(top[k]) for k in KS},
                    **{f"random k={k}": np.mean(rand[k]) for k in KS},
                    "molecules": len(top[1]),
                }
            )
            print(rows[-1], flush=True)

    lines = [
        f"# Atom attribution: faithfulness and cost ({date.today()})",
        "",
        "`OMP_NUM_THREADS=1 python bench/explain_faithfulness.py` (one CPU thread, a shared 2-core machine).",
        f"Model: `--preset fast` (1 DMPNN/SCORE network, no tree) trained on ESOL folds 1-4; test fold {TEST_FOLD}",
        f"({len(smiles)} molecules). Mean |change of predicted log S| (log10 mol/L) when the k atoms with the",
        f"largest |contribution| are masked, vs k random atoms (mean of {args.draws} draws); molecules with at",
        "most k atoms are left out of that k. Mask `zero`: the atoms' feature rows zeroed; `remove`: the atoms",
        "and their bonds deleted from the graph.",
        "",
        "| method | mask | "
        + " | ".join(f"top {k}" for k in KS)
        + " | "
        + " | ".join(f"random {k}" for k in KS)
        + " |",
        "| --- | --- | " + " | ".join("---:" for _ in KS) * 1 + " | " + " | ".join("---:" for _ in KS) + " |",
    ]
    for r in rows:
        lines.append(
            f"| {r['method']} | {r['mask']} | "
            + " | ".join(f"{r[f'top k={k}']:.3f}" for k in KS)
            + " | "
            + " | ".join(f"{r[f'random k={k}']:.3f}" for k in KS)
            + " |"
        )
    lines += [
        "",
        "Cost (molecules/s, one thread; predict = featurize + predict of the whole fold as one chunk):",
        "",
        "| | molecules/s | x slower than predict |",
        "| --- | ---: | ---: |",
        f"| predict | {predict_rate:.0f} | 1 |",
    ]
    lines += [f"| explain, {m} | {r:.0f} | {predict_rate / r:.1f} |" for m, r in rates.items()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
