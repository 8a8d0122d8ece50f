"""Store the training molecules and their labels in the bundled model files.

Models trained since scoremol 0.9 carry them (the nearest-neighbour panel of reports);
the bundled files were trained before. This rebuilds each one's training table exactly
as ``scripts/build_bundled_model.sh`` trains it, checks that it is the table the model
saw (the same molecule count, and the first network's embeddings of a sample of them
match the stored domain embeddings), and saves the model with the molecules attached.
The networks, trees and calibration are untouched: predictions stay byte-identical.

    python scripts/attach_training_molecules.py            # every bundled model
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoremol.models.checkpoint import load_model, save_model  # noqa: E402
from scoremol.pretrained import MODELS  # noqa: E402
from scoremol.spec import TrainingSpec  # noqa: E402
from scoremol.training.setup import prepare_training  # noqa: E402

#: each bundled model's inputs and the spec options of its build (scripts/build_bundled_model.sh)
BUILDS: dict[str, tuple[list[str], dict]] = {
    "multitask": (["aqsoldb", "biogen", "lipophilicity"], {"standardize": False}),
    "aqsoldb": (["aqsoldb"], {"standardize": False}),
    "fast": (["aqsoldb"], {"standardize": False, "preset": "fast"}),
    "esol": (["esol"], {}),
    "esol-fast": (["esol"], {"preset": "fast"}),
}


def attach(name: str, sample: int = 256) -> str:
    card = MODELS[name]
    model = load_model(card.path)
    if model.domain is None:
        return f"{name}: no domain, nothing to attach"
    inputs, options = BUILDS[name]
    job = prepare_training(inputs if len(inputs) > 1 else inputs[0], TrainingSpec(**options))
    data = job.data
    y = np.stack([data.column_values(t) for t in model.target_names], axis=1)
    rows = np.flatnonzero(np.isfinite(y).any(axis=1))
    reference = model.domain.reference.float()
    if len(rows) != len(reference):
        raise SystemExit(f"{name}: {len(rows)} training molecules rebuilt, the model saw {len(reference)}")
    picked = np.random.default_rng(0).choice(len(rows), size=min(sample, len(rows)), replace=False)
    embedded = model.predict(data, ids=rows[picked], domain=False, embed=True).embedding.float()
    gap = float((embedded - reference[picked]).norm(dim=1).max() / reference[picked].norm(dim=1).mean())
    if gap > 1e-2:  # float16 storage: a relative error of about 1e-3
        raise SystemExit(f"{name}: the rebuilt molecules are not the model's (embedding gap {gap:.3g})")
    smiles = data.table[data.smiles_col].astype(str).to_numpy()[data.graph_row[rows]]
    model.domain = replace(model.domain, smiles=smiles.tolist(), labels=y[rows].astype(np.float32))
    before = card.path.stat().st_size
    save_model(model, card.path)
    after = card.path.stat().st_size
    return f"{name}: {len(rows):,} molecules attached (embedding gap {gap:.1e}), {before:,} -> {after:,} bytes"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(BUILDS), help=f"any of {', '.join(BUILDS)}")
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(BUILDS))
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    torch.set_num_threads(1)
    for name in args.models:
        print(attach(name), flush=True)


if __name__ == "__main__":
    main()
