"""The files ``cv -o`` writes: the summary as JSON, a row per fold, out-of-fold predictions
and the training history."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.training.cv import CVRun, FoldResult


def oof_frame(results: list[FoldResult], data: FeaturizedDataset, target: str | list[str]) -> pd.DataFrame:
    """Out-of-fold predictions: repeat, fold, input row, SMILES, measured and predicted value
    (of the first target; with several, also ``<target>_true``/``<target>_pred`` for each)."""
    targets = [target] if isinstance(target, str) else list(target)
    smiles = data.table[data.smiles_col].astype(str).to_numpy()
    y = data.column_values(targets[0])
    frames = []
    for r in results:
        columns = {
            "repeat": r.repeat,
            "fold": r.fold,
            "row": data.graph_row[r.test_rows],
            "smiles": smiles[data.graph_row[r.test_rows]],
            "y_true": y[r.test_rows],
            "y_pred": r.predictions,
        }
        if r.uncertainty:
            columns.update(
                y_lo=r.uncertainty["lo"][:, 1],  # the 90 % interval
                y_hi=r.uncertainty["hi"][:, 1],
                similarity=r.uncertainty["similarity"],
                domain=np.where(r.uncertainty["in_domain"], "in", "out"),
            )
        if r.task_predictions is not None:
            for k, t in enumerate(targets):
                columns[f"{t}_true"] = data.column_values(t)[r.test_rows]
                columns[f"{t}_pred"] = r.task_predictions[:, k]
        frames.append(pd.DataFrame(columns))
    return pd.concat(frames, ignore_index=True)


def write_outputs(directory: Path, run: CVRun, data: FeaturizedDataset, target: str | list[str]) -> dict:
    """cv_results.json, cv_folds.csv, oof_predictions.csv and cv_history.csv in ``directory``."""
    import json

    from scoremol.data.atomic import atomic_write

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    results = run.results
    payload = run.payload()
    with atomic_write(directory / "cv_results.json") as handle:
        json.dump(payload, handle, indent=2, allow_nan=False)
    with atomic_write(directory / "cv_folds.csv", newline="") as handle:
        pd.DataFrame([r.row() for r in results]).to_csv(handle, index=False)
    oof = oof_frame(results, data, target)
    with atomic_write(directory / "oof_predictions.csv", newline="") as handle:
        oof.to_csv(handle, index=False, float_format="%.6g")
    history = [dict(h, repeat=r.repeat, fold=r.fold) for r in results for h in r.history]
    if history:
        with atomic_write(directory / "cv_history.csv", newline="") as handle:
            pd.DataFrame(history).to_csv(handle, index=False, float_format="%.6g")
    return payload
