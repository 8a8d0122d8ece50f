"""Parsing and standardization: salts, charges, invalid and empty input."""

from rdkit import Chem

from scoremol.featurizers.molecule import parse_molecule


def test_salt_is_stripped_and_neutralized():
    p = parse_molecule("CC(=O)[O-].[Na+]")
    assert p.status == "ok"
    assert Chem.MolToSmiles(p.mol) == "CC(=O)O"
    assert "fragments" in p.reason and "neutralized" in p.reason


def test_hydrochloride_keeps_organic_part():
    p = parse_molecule("CN.Cl")
    assert Chem.MolToSmiles(p.mol) == "CN"


def test_no_standardize_keeps_everything():
    p = parse_molecule("CC(=O)[O-].[Na+]", standardize=False)
    assert Chem.MolToSmiles(p.mol) == "CC(=O)[O-].[Na+]"
    # the salt is predicted as given (whether a model knows sodium is its domain's call)
    assert p.reason == "salt or mixture of 2 fragments: predicted as given"


def test_invalid_and_empty_have_reasons():
    assert parse_molecule("C1CC").status == "invalid"
    assert parse_molecule("not a smiles").reason.startswith("invalid SMILES")
    for empty in ("", "   ", None, "nan"):
        p = parse_molecule(empty)
        assert p.status == "empty" and p.mol is None and p.reason == "empty SMILES"


def test_whitespace_is_stripped():
    assert Chem.MolToSmiles(parse_molecule("  CCO \t").mol) == "CCO"


def test_whitespace_inside_is_invalid_not_a_shorter_molecule():
    """RDKit reads what follows a space as a name: 'CC O' would be ethane, with status ok."""
    for text in ("CC O", "CCCCCC Cl", "CC\tO", "CC\nO", "c1ccccc1 C"):
        p = parse_molecule(text)
        assert p.status == "invalid" and p.mol is None
        assert p.reason.startswith("invalid SMILES: whitespace inside it")
    assert parse_molecule("C[C@H](N)C(=O)O |r|").status == "ok"  # a CXSMILES extension follows a space


def test_unchanged_molecule_has_no_note():
    p = parse_molecule("c1ccccc1O")
    assert p.status == "ok" and p.reason == ""


def test_salts_say_what_was_predicted():
    """A salt's counter-ion changes its solubility, so the reason says which form was predicted."""
    from scoremol.featurizers.molecule import parse_molecule

    stripped = parse_molecule("O=C([O-])c1ccccc1.[Na+]", standardize=True)
    assert stripped.mol.GetNumAtoms() == 9 and "predicted for its largest fragment alone" in stripped.reason
    kept = parse_molecule("O=C([O-])c1ccccc1.[Na+]", standardize=False)
    assert kept.mol.GetNumAtoms() == 10 and kept.reason.startswith("salt or mixture of 2 fragments: predicted as given")
    mixture = parse_molecule("CCO.c1ccccc1", standardize=False)
    assert mixture.reason == "salt or mixture of 2 fragments: predicted as given"
    assert parse_molecule("c1ccccc1", standardize=False).reason == ""
