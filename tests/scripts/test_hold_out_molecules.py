"""The molecules a teacher is trained without: a seeded share of the distinct labelled ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

from scoremol.featurizers.merge import molecule_key, sample_molecules

ROOT = Path(__file__).resolve().parents[2]


def test_sample_is_a_seeded_share_of_distinct_molecules():
    smiles = ["CCO", "OCC", "c1ccccc1", "not a smiles"] + [f"C{'C' * i}O" for i in range(1, 40)]
    chosen = sample_molecules(smiles, 0.25, seed=0, standardize=False)
    assert chosen == sample_molecules(smiles, 0.25, seed=0, standardize=False)
    assert chosen != sample_molecules(smiles, 0.25, seed=1, standardize=False)
    assert len(chosen) == round(0.25 * 41)  # 41 distinct parsable molecules: CCO and OCC are one
    assert "OCC" not in chosen and "not a smiles" not in chosen
    assert len({molecule_key(s, False) for s in chosen}) == len(chosen)
    assert chosen == [s for s in smiles if s in chosen]  # input order


def test_script_samples_labelled_rows_of_data_sets(tmp_path, esol_path):
    out = tmp_path / "held.smi"
    cmd = [sys.executable, str(ROOT / "scripts" / "hold_out_molecules.py"), str(esol_path), "--fraction", "0.1"]
    subprocess.run([*cmd, "-o", str(out)], check=True, capture_output=True, timeout=300)
    held = out.read_text().split()
    esol = pd.read_csv(esol_path).smiles.str.strip().tolist()
    distinct = {molecule_key(s, True) for s in esol} - {None}
    assert len(held) == round(0.1 * len(distinct)) and set(held) <= set(esol)


def test_script_never_chooses_a_row_without_its_target(tmp_path):
    """The molecules are train's merged training molecules: a blank target is no label."""
    table = tmp_path / "mols.csv"
    pd.DataFrame({"smiles": ["CCO", "CCN", "CCC", "OCC"], "y": ["1.0", "", "2.0", "3.0"]}).to_csv(table, index=False)
    out = tmp_path / "held.smi"
    cmd = [sys.executable, str(ROOT / "scripts" / "hold_out_molecules.py"), str(table), "--target", "y"]
    subprocess.run([*cmd, "--fraction", "1.0", "-o", str(out)], check=True, capture_output=True, timeout=300)
    assert out.read_text().split() == ["CCO", "CCC"]  # OCC is CCO; CCN has no label
