"""No single row can stall a run: a generated torture set of huge, deep, fragmented and
exotic molecules, through every command, keeps every row with a status and a reason."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from rdkit import Chem

from scoremol.data.read import MoleculeChunk
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.featurizers.molecule import MAX_ATOMS, MAX_SMILES_CHARS, STATUS_TOO_LARGE, parse_molecule
from tests.conftest import esol_head, run_cli, run_cli_process, tiny_net_flags


def fused_ladder(rings: int) -> str:
    """A saturated ladder of ``rings`` fused six-membered rings (4 * rings + 2 atoms)."""
    mol = Chem.RWMol()
    top = [mol.AddAtom(Chem.Atom(6)) for _ in range(rings + 1)]
    bottom = [mol.AddAtom(Chem.Atom(6)) for _ in range(rings + 1)]
    for k in range(rings + 1):
        mol.AddBond(top[k], bottom[k], Chem.BondType.SINGLE)
    for k in range(rings):
        for row in (top, bottom):  # two atoms between rungs make each ring six-membered
            a, b = mol.AddAtom(Chem.Atom(6)), mol.AddAtom(Chem.Atom(6))
            mol.AddBond(row[k], a, Chem.BondType.SINGLE)
            mol.AddBond(a, b, Chem.BondType.SINGLE)
            mol.AddBond(b, row[k + 1], Chem.BondType.SINGLE)
    return Chem.MolToSmiles(mol)


#: name -> (SMILES, expected status)
TORTURE = {
    "chain_500": ("C" * 500, STATUS_TOO_LARGE),
    "chain_2000": ("C" * 2000, STATUS_TOO_LARGE),
    "chain_20000": ("C" * 20000, STATUS_TOO_LARGE),
    "ladder_200_rings": (fused_ladder(200), STATUS_TOO_LARGE),
    "macrocycle_300": ("C1" + "C" * 298 + "C1", "ok"),
    "cubane_cage": ("C12C3C4C1C5C2C3C45", "ok"),
    "adamantane_cage": ("C1C2CC3CC1CC(C2)C3", "ok"),
    "one_megabyte_line": ("C" * 1_000_000, STATUS_TOO_LARGE),
    "deep_branches_300": ("C" + "(C" * 300 + ")" * 300, "ok"),
    "deep_branches_3000": ("C" + "(C" * 3000 + ")" * 3000, STATUS_TOO_LARGE),
    "fragments_3000": (".".join(["C"] * 3000), STATUS_TOO_LARGE),
    "fragments_150": (".".join(["[Na+].[Cl-]"] * 150), "ok"),
    "charge_plus_8": ("[C+8]", None),  # RDKit may refuse it: any status, with a reason
    "charges": ("[O-][N+]([O-])=[N+]([O-])[O-]", None),
    "isotopes": ("[2H]C([2H])([2H])[13C]([3H])=[18O]", "ok"),
    "ordinary": ("CC(=O)Oc1ccccc1C(=O)O", "ok"),
}


def test_size_limits_give_their_own_status_and_reason():
    for name, (smiles, expected) in TORTURE.items():
        parsed = parse_molecule(smiles, standardize=True)
        if expected == STATUS_TOO_LARGE:
            assert parsed.status == STATUS_TOO_LARGE, name
            assert f"{MAX_ATOMS}" in parsed.reason or f"{MAX_SMILES_CHARS:,}" in parsed.reason, parsed.reason
        elif expected == "ok":
            assert parsed.status == "ok", (name, parsed.reason)
    assert "20,000 characters" in parse_molecule("C" * 20000).reason
    assert "500 atoms" in parse_molecule("C" * 500).reason


def test_featurizing_the_torture_set_keeps_every_row():
    names = list(TORTURE)
    chunk = MoleculeChunk(pd.DataFrame({"smiles": [TORTURE[n][0] for n in names]}), [TORTURE[n][0] for n in names], 0)
    data = featurize_chunk(chunk, FeaturizerSettings(descriptors=True, descriptor_set="tree"))
    assert data.num_rows == len(names)
    for name, status, reason in zip(names, data.status, data.reason):
        expected = TORTURE[name][1]
        assert expected is None or status == expected, (name, status, reason)
        assert status == "ok" or reason, name


def _torture_file(tmp_path, with_targets: bool = False):
    frame = pd.DataFrame({"smiles": [s for s, _ in TORTURE.values()], "name": list(TORTURE)})
    if with_targets:
        frame["y"] = -2.0
    path = tmp_path / "torture.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_the_bundled_default_predicts_the_torture_set_row_by_row(tmp_path):
    path = _torture_file(tmp_path)
    out, err, code = run_cli_process("predict", str(path))
    assert code == 0, err
    assert "Traceback" not in err and "Warning" not in err, err
    frame = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert frame.name.tolist() == list(TORTURE)  # every row, in order
    for name, status, reason in zip(frame.name, frame.status, frame.reason):
        expected = TORTURE[name][1]
        assert expected is None or status == expected, (name, status, reason)
    too_large = frame[frame.status == STATUS_TOO_LARGE]
    assert too_large.reason.str.contains("above the limit").all()


@pytest.mark.slow
def test_train_cv_and_featurize_keep_going_past_the_torture_set(tmp_path, esol_path):
    head = pd.read_csv(esol_head(esol_path, 60, tmp_path))
    torture = pd.read_csv(_torture_file(tmp_path, with_targets=True))
    mixed = pd.concat(
        [
            head[["smiles", "measured log solubility in mols per litre"]].rename(
                columns={"measured log solubility in mols per litre": "y"}
            ),
            torture[["smiles", "y"]],
        ],
        ignore_index=True,
    )
    mixed.to_csv(tmp_path / "mixed.csv", index=False)
    small = tiny_net_flags(1)
    _, err, code = run_cli("featurize", str(tmp_path / "mixed.csv"), "-o", str(tmp_path / "f.pt"))
    assert code == 0 and "Traceback" not in err, err
    _, err, code = run_cli("train", str(tmp_path / "mixed.csv"), "-t", "y", *small, "-o", str(tmp_path / "m.pt"))
    assert code == 0 and "could not be featurized" in err, err
    _, err, code = run_cli("cv", str(tmp_path / "mixed.csv"), "-t", "y", *small, "--folds", "2")
    assert code == 0 and "Traceback" not in err, err
