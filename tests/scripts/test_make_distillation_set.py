"""The distillation set: new molecules only, built from training fragments, reproducible."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rdkit import Chem

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_molecules_are_new_valid_drug_sized_and_seeded(tmp_path):
    outputs = []
    for name in ("a.smi", "b.smi"):
        out = tmp_path / name
        cmd = [sys.executable, str(ROOT / "scripts" / "make_distillation_set.py"), "--molecules", "30", "-o", str(out)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=600)
        outputs.append(out.read_text().split())
    assert outputs[0] == outputs[1] and len(outputs[0]) == 30  # the same seed, the same molecules
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_distillation_set import training_smiles

    _, known = training_smiles()
    for smiles in outputs[0]:
        mol = Chem.MolFromSmiles(smiles)
        assert mol is not None and 12 <= mol.GetNumHeavyAtoms() <= 50
        assert Chem.MolToSmiles(mol) not in known
