"""The distillation set: new molecules only, built from training fragments, reproducible."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rdkit import Chem

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import make_distillation_set as distill  # noqa: E402


@pytest.fixture(scope="module")
def shared():
    """The benchmark's training SMILES and every shared molecule's canonical SMILES."""
    return distill.training_smiles()


@pytest.mark.slow
def test_molecules_are_new_valid_drug_sized_and_seeded(shared):
    smiles, known = shared
    assert len(smiles) > 10_000 and len(known) > len(smiles)  # test molecules are known, never fragmented
    pool = distill.fragment_pool(smiles[:400])  # a slice keeps the test quick; main() reads them all
    made = distill.recombine(pool, known, 30, seed=0)
    assert made == distill.recombine(pool, known, 30, seed=0) and len(made) == 30  # one seed, one set
    assert made != distill.recombine(pool, known, 30, seed=1)
    for text in made:
        mol = Chem.MolFromSmiles(text)
        assert mol is not None and 12 <= mol.GetNumHeavyAtoms() <= 50
        assert Chem.MolToSmiles(mol) == text and text not in known


@pytest.mark.slow
def test_the_script_writes_what_recombination_makes(shared, tmp_path, monkeypatch):
    smiles, known = shared
    monkeypatch.setattr(distill, "training_smiles", lambda: (smiles[:200], known))
    out = tmp_path / "brics.smi"
    distill.main(["--molecules", "12", "--seed", "3", "-o", str(out)])
    expected = distill.recombine(distill.fragment_pool(smiles[:200]), known, 12, seed=3)
    assert out.read_text().split() == expected
