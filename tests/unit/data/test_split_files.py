"""The shipped scaffold splits are what scripts/make_scaffold_split.py builds: the shared
Biogen split byte for byte, and the lipophilicity split made here with the same construction."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("data", "smiles", "split", "target"),
    [
        ("biogen_adme.csv", "SMILES", "biogen_solubility_split.csv", "LOG SOLUBILITY PH 6.8 (ug/mL)"),
        ("lipophilicity.csv", "smiles", "lipophilicity_split.csv", None),
    ],
)
def test_split_files_are_rebuilt_byte_for_byte(tmp_path, data, smiles, split, target):
    out = tmp_path / split
    extra = ["--target", target] if target else []
    cmd = [
        sys.executable,
        str(ROOT / "scripts" / "make_scaffold_split.py"),
        str(ROOT / "data" / data),
        smiles,
        str(out),
    ]
    subprocess.run([*cmd, *extra], check=True, capture_output=True)
    assert out.read_bytes() == (ROOT / "data" / split).read_bytes()


def test_scaffolds_never_cross_the_split():
    spec = importlib.util.spec_from_file_location("make_scaffold_split", ROOT / "scripts" / "make_scaffold_split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    smiles = ["c1ccccc1CC", "c1ccccc1CCC", "C1CCCCC1O", "CCO", "CCCO", "c1ccncc1C", "c1ccncc1CC", "C1CCNCC1"] * 3
    split = module.scaffold_split(smiles, list(range(len(smiles))))
    by_scaffold: dict[str, set[str]] = {}
    for row, s in enumerate(smiles):
        by_scaffold.setdefault(module.scaffold(s), set()).add(split[row])
    assert all(len(sets) == 1 for sets in by_scaffold.values())
    assert sum(v == "train" for v in split.values()) <= 0.8 * len(smiles)
