"""Atom contributions: shape, failure handling, the similarity map, and chemistry sanity."""

from __future__ import annotations

import numpy as np
import pytest
from rdkit import Chem

from scoremol.inference.explain import METHODS, atom_contributions, similarity_map
from scoremol.models.checkpoint import load_model
from scoremol.pretrained import MODELS

#: functional group -> (SMARTS of its atoms, molecules that carry it)
GROUPS = {
    "hydroxyl O": ("[OX2H][#6]", ["CCO", "CCCCO", "OCC(O)CO", "Oc1ccccc1", "CC(C)(C)O", "OC1CCCCC1", "CC(O)CC"]),
    "carboxylic acid": (
        "[CX3](=O)[OX2H1]",
        ["CC(=O)O", "OC(=O)c1ccccc1", "CCCC(=O)O", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "O=C(O)c1ccccc1O", "OC(=O)CCC(=O)O"],
    ),
    "amine N": ("[NX3;H2,H1;!$(NC=O)]", ["CCN", "CCCCN", "NCCc1ccccc1", "Nc1ccccc1", "CNC", "NC1CCCCC1", "CCNCC"]),
    "halogen": (
        "[F,Cl,Br,I]",
        ["Clc1ccccc1", "ClC(Cl)Cl", "Brc1ccccc1", "Clc1ccc(Cl)cc1", "CCCCCl", "Ic1ccccc1", "FC(F)(F)c1ccccc1"],
    ),
    "fused aromatic C": (
        "[c;R2]",
        [
            "c1ccc2ccccc2c1",
            "c1ccc2cc3ccccc3cc2c1",
            "c1ccc2c(c1)ccc1ccccc12",
            "Cc1ccc2ccccc2c1",
            "c1ccc2[nH]ccc2c1",
            "Oc1ccc2ccccc2c1",
        ],
    ),
}
RAISE = ("hydroxyl O", "carboxylic acid", "amine N")
LOWER = ("halogen", "fused aromatic C")


@pytest.fixture(scope="module")
def model():
    return load_model(MODELS["multitask"].path)


def group_mean(model, group: str) -> float:
    smarts, smiles = GROUPS[group]
    pattern = Chem.MolFromSmarts(smarts)
    values = []
    for e in atom_contributions(model, smiles, "logS"):
        assert e.ok, e.reason
        atoms = {a for match in e.mol.GetSubstructMatches(pattern) for a in match}
        assert atoms, f"{e.smiles} has no {group}"
        values += [e.weights[a] for a in atoms]
    return float(np.mean(values))


@pytest.mark.parametrize("group", RAISE + LOWER)
def test_chemistry_sanity_on_predicted_log_s(model, group):
    """Polar groups that hydrogen-bond with water raise predicted log S on average; halogens
    and fused aromatic carbons (flat, lipophilic) lower it."""
    mean = group_mean(model, group)
    if group in RAISE:
        assert mean > 0, f"{group}: mean contribution {mean:+.3f}"
    else:
        assert mean < 0, f"{group}: mean contribution {mean:+.3f}"


@pytest.mark.parametrize("method", METHODS)
def test_one_weight_per_atom_and_the_full_prediction(model, method):
    (e,) = atom_contributions(model, ["OC(=O)c1ccccc1"], 0, method=method)
    assert e.ok and e.method == method and len(e.weights) == e.mol.GetNumAtoms() == 9
    assert np.all(np.isfinite(e.weights)) and np.isfinite(e.prediction)
    data = e.to_dict()
    assert [a["element"] for a in data["atoms"]][:3] == ["O", "C", "O"]


def test_prediction_matches_predict(model):
    """The explained prediction is the blend ``scoremol predict`` reports (tree included)."""
    import pandas as pd

    from scoremol.data.read import MoleculeChunk
    from scoremol.inference.predict import predict_part

    smiles = ["CCO", "c1ccc2ccccc2c1", "C"]  # one atom: no masked graphs, the molecule alone
    chunk = MoleculeChunk(frame=pd.DataFrame({"smiles": smiles}), smiles=smiles, start=0)
    expected = predict_part(model, chunk).mean[:, 0]
    got = [e.prediction for e in atom_contributions(model, smiles, 0)]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_bad_inputs_give_a_reason_not_an_exception(model):
    results = atom_contributions(model, ["not a smiles", "", "CCO"], 0)
    assert [r.status for r in results] == ["invalid", "empty", "ok"]
    assert results[0].reason and results[0].weights == [] and results[0].to_dict()["atoms"] == []


def test_unknown_task_or_method_raise(model):
    with pytest.raises(ValueError, match="unknown task"):
        atom_contributions(model, ["CCO"], "nope")
    with pytest.raises(ValueError, match="unknown method"):
        atom_contributions(model, ["CCO"], 0, method="shap")


def test_similarity_map_gives_svg_and_png():
    svg, png = similarity_map("OC(=O)c1ccccc1", [0.3, 0.1, 0.2, -0.1, -0.2, -0.2, -0.2, -0.2, -0.2])
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="weights"):
        similarity_map("CCO", [1.0])
