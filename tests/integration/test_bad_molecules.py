"""The bad-input matrix, molecule by molecule: every case has an expected outcome, every
row is accounted for, through featurization and prediction (same rows out as in, status and
reason as expected). File-level cases are in ``tests/cli/test_bad_input_matrix.py``."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from scoremol.data.read import read_input
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.inference.predict import predict_stream
from tests.conftest import PRED

# (case, SMILES, expected status, a fragment of the expected reason ("" = no reason))
MOLECULES = [
    ("invalid SMILES", "C1CC", "invalid", "invalid SMILES"),
    ("unbalanced aromatic ring", "c1ccccc", "invalid", "invalid SMILES"),
    ("pentavalent carbon", "C(C)(C)(C)(C)C", "invalid", "invalid SMILES"),
    ("empty", "", "empty", "empty SMILES"),
    ("whitespace only", "   ", "empty", "empty SMILES"),
    ("single atom", "C", "ok", ""),
    ("hydrogen only", "[H][H]", "ok", ""),
    ("salt", "CC(=O)[O-].[Na+]", "ok", "kept 1 of 2 fragments); neutralized"),
    ("mixture", "CCO.c1ccccc1", "ok", "kept 1 of 2 fragments"),
    ("disconnected fragments", "C.C", "ok", "kept 1 of 2 fragments"),
    ("metal", "[Fe]", "ok", ""),  # a model's domain says whether it knows iron
    ("organometallic", "C[Hg]C", "ok", ""),
    ("metallocene", "[Fe+2].c1cc[cH-]c1.c1cc[cH-]c1", "ok", "kept 1 of 3 fragments"),
    ("charged species", "C[N+](C)(C)C", "ok", ""),
    ("isotopes", "[13CH3][2H]", "ok", ""),
    ("explicit hydrogens", "[H]OC([H])([H])[H]", "ok", ""),
    ("very large molecule", "C" * 320, "ok", ""),
    ("polymer wildcard", "*CC*", "invalid", "wildcard"),
    ("R-group wildcard", "[*]c1ccccc1", "invalid", "wildcard"),
]


@pytest.mark.parametrize("case,smiles,status,reason", MOLECULES, ids=[m[0] for m in MOLECULES])
def test_molecule_cases_in_featurize_and_predict(case, smiles, status, reason, tiny_model, tmp_path):
    model, _ = tiny_model
    src = tmp_path / "in.csv"
    pd.DataFrame({"id": ["before", case, "after"], "smiles": ["CCO", smiles, "c1ccccc1"]}).to_csv(src, index=False)
    data = featurize_chunk(read_input(str(src)), FeaturizerSettings(descriptors=True, descriptor_set="fast"))
    assert data.num_rows == 3 and data.status == ["ok", status, "ok"]
    assert reason in data.reason[1] and (reason or data.reason[1] == "")
    out = io.StringIO()
    summary = predict_stream(model, str(src), out)
    frame = pd.read_csv(io.StringIO(out.getvalue()), keep_default_na=False)
    assert summary.rows == 3 and frame["id"].tolist() == ["before", case, "after"]
    assert frame["status"].tolist() == ["ok", status, "ok"]
    value = frame[PRED][1]
    if status == "ok":
        assert np.isfinite(float(value))
    else:
        assert value == ""  # no prediction, the reason says why


def test_very_large_molecule_has_all_its_atoms():
    data = featurize_chunk(read_input_from_list(["C" * 320]), FeaturizerSettings())
    assert data.atom_ptr[-1] == 320 and data.edge_ptr[-1] == 2 * 319


def read_input_from_list(smiles):
    from scoremol.data.read import MoleculeChunk

    return MoleculeChunk(pd.DataFrame({"smiles": smiles}), list(smiles), 0)
