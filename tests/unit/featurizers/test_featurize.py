"""Atom/bond feature widths and values on known molecules."""

from __future__ import annotations

import numpy as np
import pytest
from rdkit import Chem

from scoremol.featurizers import graph as F
from scoremol.featurizers.graph import ATOM_DIM, ATOM_FEATURES, ATOM_OFFSETS, BOND_DIM, BOND_OFFSETS, smiles_to_graph
from scoremol.featurizers.molecule import NOTHING_KNOWN, KnownTraits, finish_molecule, is_plain_smiles, parse_molecule


def block(x: np.ndarray, name: str, offsets=ATOM_OFFSETS, features=ATOM_FEATURES) -> np.ndarray:
    width = dict(features)[name]
    return x[..., offsets[name] : offsets[name] + width]


def onehot_index(row: np.ndarray, name: str) -> int:
    values = block(row, name)
    assert values.sum() == 1.0, f"{name} is not one-hot: {values}"
    return int(values.argmax())


def test_dimensions_are_sums_of_documented_blocks():
    assert ATOM_DIM == sum(w for _, w in ATOM_FEATURES) == 62
    assert BOND_DIM == sum(w for _, w in F.BOND_FEATURES) == 14
    # every categorical block has its "other" slot
    assert dict(ATOM_FEATURES)["element"] == len(F.ELEMENTS) + 1
    assert dict(ATOM_FEATURES)["formal_charge"] == len(F.FORMAL_CHARGES) + 1


def test_benzene():
    g = smiles_to_graph("c1ccccc1")
    x = g.x.numpy()
    assert x.shape == (6, ATOM_DIM) and x.dtype == np.float32
    for row in x:
        assert F.ELEMENTS[onehot_index(row, "element")] == "C"
        assert F.DEGREES[onehot_index(row, "degree")] == 2
        assert F.TOTAL_HS[onehot_index(row, "total_h")] == 1
        assert F.FORMAL_CHARGES[onehot_index(row, "formal_charge")] == 0
        assert F.HYBRIDIZATIONS[onehot_index(row, "hybridization")] == Chem.HybridizationType.SP2
        assert block(row, "aromatic")[0] == 1.0 and block(row, "in_ring")[0] == 1.0
        assert F.CHIRALITIES[onehot_index(row, "chirality")] == Chem.ChiralType.CHI_UNSPECIFIED
        assert block(row, "mass")[0] == pytest.approx(0.12011, abs=1e-4)
    assert g.edge_index.shape == (2, 12) and g.edge_attr.shape == (12, BOND_DIM)
    e = g.edge_attr.numpy()
    bt = e[:, BOND_OFFSETS["bond_type"] : BOND_OFFSETS["bond_type"] + 5]
    assert (bt.argmax(1) == 3).all()  # aromatic
    assert (e[:, BOND_OFFSETS["conjugated"]] == 1).all() and (e[:, BOND_OFFSETS["in_ring"]] == 1).all()


def test_ethanol_values_and_edge_pairs():
    g = smiles_to_graph("CCO")
    x = g.x.numpy()
    assert [F.ELEMENTS[onehot_index(r, "element")] for r in x] == ["C", "C", "O"]
    assert [F.TOTAL_HS[onehot_index(r, "total_h")] for r in x] == [3, 2, 1]
    assert [F.DEGREES[onehot_index(r, "degree")] for r in x] == [1, 2, 1]
    assert all(F.HYBRIDIZATIONS[onehot_index(r, "hybridization")] == Chem.HybridizationType.SP3 for r in x)
    assert x[:, ATOM_OFFSETS["aromatic"]].sum() == 0 and x[:, ATOM_OFFSETS["in_ring"]].sum() == 0
    ei = g.edge_index.numpy()
    # both directions, consecutive: the reverse of edge e is e ^ 1
    for e in range(ei.shape[1]):
        assert ei[0, e] == ei[1, e ^ 1] and ei[1, e] == ei[0, e ^ 1]
    assert np.array_equal(g.edge_attr.numpy()[0::2], g.edge_attr.numpy()[1::2])
    single = g.edge_attr.numpy()[:, BOND_OFFSETS["bond_type"]]
    assert (single == 1).all()


def test_charged_atom_keeps_its_charge_without_standardization():
    g = smiles_to_graph("C[NH3+]", standardize=False)
    n = g.x.numpy()[1]
    assert F.ELEMENTS[onehot_index(n, "element")] == "N"
    assert F.FORMAL_CHARGES[onehot_index(n, "formal_charge")] == 1
    assert F.TOTAL_HS[onehot_index(n, "total_h")] == 3
    # standardization neutralizes it
    assert F.FORMAL_CHARGES[onehot_index(smiles_to_graph("C[NH3+]").x.numpy()[1], "formal_charge")] == 0


def test_unknown_values_use_the_other_slot():
    g = smiles_to_graph("[U]", standardize=False)
    assert onehot_index(g.x.numpy()[0], "element") == len(F.ELEMENTS)
    g = smiles_to_graph("CC(C)(C)[N+](C)(C)C", standardize=False)  # no neutral form
    assert F.FORMAL_CHARGES[onehot_index(g.x.numpy()[4], "formal_charge")] == 1


def test_chirality_tags_differ_between_enantiomers():
    left = smiles_to_graph("C[C@H](N)C(=O)O").x.numpy()[1]
    right = smiles_to_graph("C[C@@H](N)C(=O)O").x.numpy()[1]
    tags = {F.CHIRALITIES[onehot_index(left, "chirality")], F.CHIRALITIES[onehot_index(right, "chirality")]}
    assert tags == {Chem.ChiralType.CHI_TETRAHEDRAL_CW, Chem.ChiralType.CHI_TETRAHEDRAL_CCW}


def test_double_bond_stereo():
    g = smiles_to_graph("C/C=C/C")
    stereo = g.edge_attr.numpy()[:, BOND_OFFSETS["stereo"] : BOND_OFFSETS["stereo"] + 7]
    assert stereo[:, 0].sum() == 4  # the two single bonds, both directions: STEREONONE
    assert (stereo.argmax(1) != 0).sum() == 2  # the double bond carries E stereo


def test_single_atom_has_no_edges():
    g = smiles_to_graph("C")
    assert g.x.shape == (1, ATOM_DIM)
    assert tuple(g.edge_index.shape) == (2, 0) and tuple(g.edge_attr.shape) == (0, BOND_DIM)


def test_invalid_smiles_raises_value_error():
    with pytest.raises(ValueError, match="invalid SMILES"):
        smiles_to_graph("C1CC")


def test_fingerprint_follows_version(monkeypatch):
    before = F.featurizer_fingerprint()
    monkeypatch.setattr(F, "FEATURIZER_VERSION", F.FEATURIZER_VERSION + 1)
    assert F.featurizer_fingerprint() != before


def _reference_arrays(mol: Chem.Mol) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature by feature, straight from the documented layout: the oracle that the memoized
    fast featurizer must reproduce bit for bit (models trained before it depend on that)."""
    x = np.zeros((mol.GetNumAtoms(), ATOM_DIM), dtype=np.float32)
    for atom in mol.GetAtoms():
        row = x[atom.GetIdx()]
        for name, values, value in (
            ("element", F.ELEMENTS, atom.GetSymbol()),
            ("degree", F.DEGREES, atom.GetDegree()),
            ("formal_charge", F.FORMAL_CHARGES, atom.GetFormalCharge()),
            ("total_h", F.TOTAL_HS, atom.GetTotalNumHs()),
            ("hybridization", F.HYBRIDIZATIONS, atom.GetHybridization()),
            ("chirality", F.CHIRALITIES, atom.GetChiralTag()),
        ):
            row[ATOM_OFFSETS[name] + (values.index(value) if value in values else len(values))] = 1.0
        row[ATOM_OFFSETS["aromatic"]] = atom.GetIsAromatic()
        row[ATOM_OFFSETS["in_ring"]] = atom.IsInRing()
        row[ATOM_OFFSETS["mass"]] = np.float32(atom.GetMass() * 0.01)
    edges, attrs = [], []
    for bond in mol.GetBonds():
        a = np.zeros(BOND_DIM, dtype=np.float32)
        for name, values, value in (
            ("bond_type", F.BOND_TYPES, bond.GetBondType()),
            ("stereo", F.BOND_STEREOS, bond.GetStereo()),
        ):
            a[BOND_OFFSETS[name] + (values.index(value) if value in values else len(values))] = 1.0
        a[BOND_OFFSETS["conjugated"]] = bond.GetIsConjugated()
        a[BOND_OFFSETS["in_ring"]] = bond.IsInRing()
        u, v = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        edges += [(u, v), (v, u)]
        attrs += [a, a]
    edge_index = np.array(edges, dtype=np.int64).T.reshape(2, -1)
    edge_attr = np.array(attrs, dtype=np.float32).reshape(-1, BOND_DIM)
    return x, edge_index, edge_attr


@pytest.mark.parametrize(
    "smiles",
    [
        "CCO",
        "c1ccccc1O",
        "C[C@H](N)C(=O)O",
        "F/C=C\\F",
        "[2H]C([2H])([2H])O",
        "c1ccccc1[13CH3]",
        "C[N+](C)(C)CC(=O)[O-]",
        "[Pt](Cl)(Cl)(N)N",
        "[Fe+3]",
        "[H][H]",
        "C#N",
        "O=S(=O)(O)c1ccc2ccccc2c1",
        "CC1=C(C(=O)OC2CCCC2)[C@@H](c2ccccc2[N+](=O)[O-])C(C(=O)OC)=C(C)N1",
        "[Se]1C=CC=C1",
        "[U]",
    ],
)
def test_memoized_featurizer_matches_the_reference_layout(smiles):
    mol = Chem.MolFromSmiles(smiles)
    for _ in range(2):  # cold, then served from the memo
        got = F.mol_to_arrays(mol, finish_molecule(mol, standardize=False, smiles=smiles).known)
        x, edge_index, edge_attr = _reference_arrays(mol)
        assert got.x.dtype == np.float32 and got.edge_attr.dtype == np.float32 and got.edge_index.dtype == np.int64
        np.testing.assert_array_equal(got.x, x)
        np.testing.assert_array_equal(got.edge_index, edge_index)
        np.testing.assert_array_equal(got.edge_attr, edge_attr)


def test_memoized_rows_are_not_shared_with_callers():
    first = F.mol_to_arrays(Chem.MolFromSmiles("CCO"))
    first.x[:] = 7.0
    first.edge_attr[:] = 7.0
    again = F.mol_to_arrays(Chem.MolFromSmiles("CCO"))
    assert again.x.max() <= 1.0 and again.edge_attr.max() == 1.0


def test_row_table_stays_correct_when_it_grows_and_resets():
    built = []

    def build(key, item):
        built.append(key)
        assert item == f"item {key[0]}"  # the row is built from the atom/bond the key came from
        return np.full(3, key[0], dtype=np.float32)

    table = F._RowTable(build, 3, limit=5)
    table.array = table.array[:2]  # force growth early
    for start in range(0, 40, 3):
        keys = [(float(k),) for k in (start, start + 1, start, start + 2)]  # repeats inside one call
        got = table.gather(keys, [f"item {k[0]}" for k in keys])
        np.testing.assert_array_equal(got[:, 0], [k[0] for k in keys])
        assert len(table.index) <= 5
    assert table.gather([], []).shape == (0, 3)


@pytest.mark.parametrize(
    "smiles, plain",
    [
        ("CCO", True),
        ("c1ccccc1[13CH3]", True),
        ("[NH4+].[Cl-]", True),
        ("C[C@H](N)O", False),
        ("C[C@@H](N)O", False),
        ("F/C=C/F", False),
        ("F\\C=C\\F", False),
        ("[NH3]->[Cu+2]", False),
        ("[Cu+2]<-[NH3]", False),
        ("CC=CC |w:1.0|", False),
    ],
)
def test_plain_smiles_are_those_without_stereo_or_dative_marks(smiles, plain):
    assert is_plain_smiles(smiles) is plain


#: Molecules whose SMILES text says little (charges, isotopes, stereo, fragments, metals),
#: next to the shared sets, where most SMILES let featurization skip getters.
TRICKY = [
    "CN(=O)=O",
    "O=[N+]([O-])c1ccccc1",
    "[13CH3]c1ccccc1",
    "[2H]OC",
    "C[C@H](N)O",
    "F/C=C/F",
    "[NH4+].[Cl-]",
    "CC(=O)[O-].[Na+]",
    "C[N+](C)(C)C",
    "[Cu+2]<-[NH3]",
    "c1cc[nH]c1",
    "[Fe]",
    "OCl(=O)(=O)=O",
    "C1CC1.CCO",
    "CC[S+]([O-])C",
    "[O-][n+]1ccccc1",
    "CC=CC |w:1.0|",
]


def _shared_and_tricky_smiles() -> list[str]:
    import pandas as pd

    from scoremol.data.registry import resolve

    smiles = list(TRICKY)
    for name in ("esol", "freesolv", "lipophilicity"):
        smiles += pd.read_csv(resolve(name))["smiles"].astype(str).tolist()
    return smiles


def test_known_traits_route_matches_the_full_route_on_every_shared_molecule():
    """What the SMILES text and standardization say (:class:`KnownTraits`) lets
    featurization skip the chirality, bond-stereo, bond-type, charge and isotope getters;
    that is only sound if RDKit would have returned exactly the skipped values."""
    checked, skipped = 0, {"no_stereo": 0, "no_isotopes": 0, "no_charges": 0}
    for smiles in _shared_and_tricky_smiles():
        parsed = parse_molecule(smiles)
        if parsed.mol is None:
            continue
        fast, full = F.mol_to_arrays(parsed.mol, parsed.known), F.mol_to_arrays(parsed.mol, NOTHING_KNOWN)
        np.testing.assert_array_equal(fast.x, full.x, err_msg=smiles)
        np.testing.assert_array_equal(fast.edge_index, full.edge_index, err_msg=smiles)
        np.testing.assert_array_equal(fast.edge_attr, full.edge_attr, err_msg=smiles)
        checked += 1
        for name in skipped:
            skipped[name] += getattr(parsed.known, name)
    assert checked > 5500
    assert min(skipped.values()) > 0.6 * checked  # the fast routes are the common case


def _molecule_as_rdkit_sees_it(mol: Chem.Mol) -> tuple:
    """Everything featurization or descriptors could read from a molecule."""
    atoms = [
        (a.GetAtomicNum(), a.GetDegree(), a.GetFormalCharge(), a.GetTotalNumHs(), a.GetNumExplicitHs())
        + (a.GetHybridization(), a.GetChiralTag(), a.GetIsAromatic(), a.IsInRing(), a.GetNumRadicalElectrons())
        for a in mol.GetAtoms()
    ]
    bonds = [
        (b.GetBeginAtomIdx(), b.GetEndAtomIdx(), b.GetBondType(), b.GetStereo(), b.GetBondDir())
        + (b.GetIsConjugated(), b.GetIsAromatic(), b.IsInRing())
        for b in mol.GetBonds()
    ]
    rings = mol.GetRingInfo()
    return Chem.MolToSmiles(mol), atoms, bonds, rings.AtomRings(), rings.BondRings()


def test_plain_smiles_parse_to_the_molecule_molfromsmiles_gives():
    """Plain SMILES skip MolFromSmiles's stereo perception and hydrogen removal; that is
    only sound if the molecule comes out the same, and a SMILES RDKit rejects is still
    rejected (bad valence, aromaticity that cannot be kekulized, syntax)."""
    import pandas as pd

    from scoremol.data.registry import resolve
    from scoremol.featurizers.molecule import _parse_plain

    smiles = _shared_and_tricky_smiles() + pd.read_csv(resolve("aqsoldb"))["SMILES"].astype(str).tolist()
    smiles += pd.read_csv(resolve("biogen"))["SMILES"].astype(str).tolist()
    smiles += ["C(C)(C)(C)(C)C", "c1cccc1", "C1CC", "CC(", "N(=O)(=O)=O", "c1ccccc1C(F)(F)(F)F"]
    plain = [s for s in smiles if "[" not in s and is_plain_smiles(s)]
    assert len(plain) > 8000
    rejected = 0
    for text in plain:
        reference, mol = Chem.MolFromSmiles(text), _parse_plain(text)
        assert (mol is None) == (reference is None), text
        if mol is None:
            rejected += 1
        else:
            assert _molecule_as_rdkit_sees_it(mol) == _molecule_as_rdkit_sees_it(reference), text
    assert rejected >= 5
    assert (
        parse_molecule("c1cccc1").reason
        == parse_molecule("[CH3]c1cccc1").reason
        == ("invalid SMILES (RDKit could not parse it)")
    )


@pytest.mark.parametrize(
    "smiles, known",
    [
        ("CCO", KnownTraits(True, True, True)),
        ("CN(=O)=O", KnownTraits(True, True, False)),  # sanitized to C[N+](=O)[O-]
        ("[13CH3]C", KnownTraits(True, False, True)),
        ("C[C@H](N)O", KnownTraits(False, False, True)),  # a bracket atom: isotopes unknown
        ("C[NH3+]", KnownTraits(True, False, False)),  # neutralized to CN, but charges are then asked
        ("C[N+](C)(C)C", KnownTraits(True, False, False)),  # a quaternary ammonium stays charged
        ("CCO |$a;b;c$|", KnownTraits(False, False, True)),  # CXSMILES: stereo and isotopes asked
    ],
)
def test_known_traits_from_smiles_text_and_standardization(smiles, known):
    assert parse_molecule(smiles).known == known


def test_sdf_records_and_unstandardized_molecules_know_less():
    mol = Chem.MolFromSmiles("CCO")
    assert finish_molecule(mol, standardize=True).known == KnownTraits(False, False, True)  # no text
    assert finish_molecule(mol, standardize=False, smiles="CCO").known == KnownTraits(True, True, False)


def test_wrong_traits_would_change_features():
    """The equivalence test above can fail: claiming no charges for a charged atom, or no
    isotopes for a labelled one, gives different features."""
    for smiles, wrong in (("C[N+](C)(C)C", KnownTraits(no_charges=True)), ("[13CH3]C", KnownTraits(no_isotopes=True))):
        mol = Chem.MolFromSmiles(smiles)
        assert not np.array_equal(F.mol_to_arrays(mol, wrong).x, F.mol_to_arrays(mol).x)


def test_stereo_from_sdf_records_is_kept():
    """SDF records take the full route: their stereo comes from coordinates, not marks."""
    import pandas as pd

    from scoremol.data.read import MoleculeChunk
    from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk

    mol = Chem.MolFromSmiles("C[C@H](N)O")
    chunk = MoleculeChunk(pd.DataFrame(index=range(1)), ["CC(N)O"], 0, mols=[mol], errors=[""])
    data = featurize_chunk(chunk, FeaturizerSettings())
    chirality = block(data.x, "chirality")
    assert chirality[:, 1:3].sum() == 1.0  # one CW/CCW centre survives


def test_featurizing_chunks_keeps_stereo_of_smiles_with_marks():
    import pandas as pd

    from scoremol.data.read import MoleculeChunk
    from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk

    smiles = ["C[C@H](N)O", "C[C@@H](N)O", "F/C=C/F", "F/C=C\\F"]
    data = featurize_chunk(MoleculeChunk(pd.DataFrame({"smiles": smiles}), smiles, 0), FeaturizerSettings())
    for i in (0, 1):  # the two enantiomers
        chirality = block(data.x[data.atom_ptr[i] : data.atom_ptr[i + 1]], "chirality")
        assert chirality[:, 1:3].sum() == 1.0
    stereo = block(data.edge_attr, "stereo", BOND_OFFSETS, F.BOND_FEATURES)
    assert stereo[:, 0].sum() < len(stereo)  # E and Z survive, not all STEREONONE


def test_an_sdf_record_predicts_as_its_smiles_where_a_double_bond_is_left_open(tmp_path):
    """RDKit reads an SDF's unspecified C=N and N=N bonds as STEREOANY ("either") and a
    SMILES's as STEREONONE: the same molecule featurized two ways until both read as none."""
    from scoremol.data.read import read_input, smiles_chunk
    from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk

    smiles = ["Cc1ccccc1NC(N)=Nc2ccccc2C", "CN=NC", "C/C=C/C", "CC(=O)Oc1ccccc1C(=O)O"]
    writer = Chem.SDWriter(str(tmp_path / "m.sdf"))
    for text in smiles:
        writer.write(Chem.MolFromSmiles(text))
    writer.close()
    records = read_input(str(tmp_path / "m.sdf"))
    assert any(b.GetStereo() == Chem.BondStereo.STEREOANY for b in records.mols[0].GetBonds())  # as read
    settings = FeaturizerSettings(standardize=False)
    from_sdf, from_smiles = featurize_chunk(records, settings), featurize_chunk(smiles_chunk(smiles), settings)
    assert np.array_equal(from_sdf.edge_attr, from_smiles.edge_attr) and np.array_equal(from_sdf.x, from_smiles.x)
    trans = finish_molecule(Chem.MolFromSmiles("C/C=C/C"), False).mol  # a stated geometry stays
    assert {b.GetStereo() for b in trans.GetBonds()} >= {Chem.BondStereo.STEREOE}
