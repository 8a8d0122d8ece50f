"""A multi-task model's figures on every shared scaffold test it has a target for.

    python bench/base_tasks.py MODEL.pt --out bench/results/<name>_tasks_<date>.csv

Per task: MAE, Spearman and the 90 % interval's cover for a regression target; AUROC, AUPRC,
balanced accuracy, Brier, ECE (15 bins) and the 90 % sets' cover for a yes/no one. Only
honest for a model that never saw the tests (trained with ``--exclude`` of
``scripts/scaffold_test_molecules.py``'s list, as the bundled ``adme`` base and the transfer
benchmark's base are).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))

from classification_benchmark import class_scores  # noqa: E402
from scaffold_test_molecules import scaffold_tests  # noqa: E402

from scoremol.data.read import smiles_chunk  # noqa: E402
from scoremol.data.registry import REGISTRY  # noqa: E402
from scoremol.inference.predict import predict_part  # noqa: E402
from scoremol.models.checkpoint import load_model  # noqa: E402


def task_column(key: str) -> str:
    """The training column of a scaffold test's target (``biogen:<column>`` names its own)."""
    return key.split(":", 1)[1] if ":" in key else REGISTRY[key].target_col


def score_tasks(path: Path) -> pd.DataFrame:
    model = load_model(path)
    rows = []
    for key, test in scaffold_tests().items():
        if task_column(key) not in model.target_names:
            continue
        t = model.target_names.index(task_column(key))
        result = predict_part(model, smiles_chunk(test.smiles.tolist()))
        truth = test.y.to_numpy(float)[result.graph_row]
        mean = result.mean[:, t]
        row = {"task": key, "label": model.target_labels[t], "n_test": len(test), "n_predicted": len(mean)}
        if model.classify[t]:
            row.update(class_scores(model, t, mean, truth))
        else:
            lo, hi = model.calibration[t].interval(mean, result.difficulty(t), 0.9)
            row.update(
                mae=float(np.mean(np.abs(mean - truth))),
                spearman=float(spearmanr(mean, truth).statistic),
                cover90=float(np.mean((truth >= lo) & (truth <= hi))),
            )
        row.update(model=path.name, date=str(date.today()))
        print(row, flush=True)
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    score_tasks(args.model).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
