"""chemprop 2.x through its own command line, in its own virtual environment: train with its
defaults on a seeded 90/10 split (the 10 % choose its best epoch, as scoremol's networks
hold out theirs), on the CPU without data-loader workers, then predict test frames."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

CPU = ["--num-workers", "0", "--accelerator", "cpu", "--devices", "1"]
RDKIT_FEATURES = ["--molecule-featurizers", "v1_rdkit_2d_normalized"]


def train_and_predict(
    venv: Path,
    seed: int,
    train: pd.DataFrame,
    targets: list[str],
    tests: dict[str, pd.DataFrame],
    extra=(),
    keep: Path | None = None,
) -> tuple[dict[str, np.ndarray], float]:
    """Train on ``train`` (a ``smiles`` column and ``targets``, NaN = missing), predict each
    test frame: predictions ``[n, len(targets)]`` per test name, and the training seconds.
    ``keep``: copy the trained model file there (a base for ``--from-foundation``)."""
    exe = str(venv / "bin" / "chemprop")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        train.to_csv(tmp / "train.csv", index=False)
        order = np.random.default_rng(seed).permutation(len(train))
        n_val = int(round(0.1 * len(train)))
        split = [{"train": sorted(order[n_val:].tolist()), "val": sorted(order[:n_val].tolist()), "test": []}]
        (tmp / "split.json").write_text(json.dumps(split))
        start = time.perf_counter()
        command = [exe, "train", "-i", str(tmp / "train.csv"), "-s", "smiles", "--target-columns", *targets]
        command += ["--task-type", "regression", "--splits-file", str(tmp / "split.json")]
        command += ["--pytorch-seed", str(seed), "-o", str(tmp / "out"), *CPU, *extra]
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - start
        model = sorted((tmp / "out").rglob("best*.pt"))[0]
        if keep is not None:
            keep.write_bytes(model.read_bytes())
        preds = {}
        for name, frame in tests.items():
            frame[["smiles"]].to_csv(tmp / "test.csv", index=False)
            command = [exe, "predict", "-i", str(tmp / "test.csv"), "-s", "smiles", "--model-paths", str(model)]
            subprocess.run([*command, "-o", str(tmp / "pred.csv"), *CPU, *extra], check=True, capture_output=True)
            preds[name] = pd.read_csv(tmp / "pred.csv")[targets].to_numpy(dtype=float)
    return preds, seconds
