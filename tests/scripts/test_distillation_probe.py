"""The distillation probe's training table: each row's own label wins over the teacher's."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


class _Teacher:
    """Predicts 100 + the row's position for every task (NaN for an unparsable SMILES)."""

    def predict(self, smiles):
        out = 100.0 + np.arange(len(smiles), dtype=float)[:, None].repeat(3, axis=1)
        out[[s == "bad" for s in smiles]] = np.nan
        return out


def test_own_labels_then_the_teachers_and_unlabelable_rows_dropped():
    sys.path.insert(0, str(ROOT / "bench"))
    from distillation_probe import student_table

    train = {
        "a": pd.DataFrame({"smiles": ["C", "CC"], "y": [1.0, 2.0]}),
        "b": pd.DataFrame({"smiles": ["CCC"], "y": [3.0]}),
        "c": pd.DataFrame({"smiles": ["CO"], "y": [4.0]}),
    }
    smiles, labels = student_table(_Teacher(), train, ["CCO", "bad", "CCN"])
    assert smiles == ["C", "CC", "CCC", "CO", "CCO", "CCN"]
    expected = [
        [1.0, 100.0, 100.0],
        [2.0, 101.0, 101.0],
        [102.0, 3.0, 102.0],
        [103.0, 103.0, 4.0],
        [104.0, 104.0, 104.0],
        [106.0, 106.0, 106.0],
    ]
    assert labels.tolist() == expected
