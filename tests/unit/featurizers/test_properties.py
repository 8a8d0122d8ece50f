"""Property-based tests: whatever the strings, featurize and predict never raise and never
lose a row; random valid molecules always featurize."""

from __future__ import annotations

import io

import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rdkit import Chem

from scoremol.data.read import MoleculeChunk, iter_chunks
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.featurizers.molecule import STATUS_OK
from scoremol.inference.predict import predict_chunk, predict_stream

SMILES_ALPHABET = "CNOSPFIBrcnos()[]=#@+-.123456789%*/\\Hl "
smiles_like = st.text(alphabet=SMILES_ALPHABET, max_size=40)
anything = st.text(max_size=30)  # any unicode, control characters included

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _chunk(strings: list[str]) -> MoleculeChunk:
    return MoleculeChunk(pd.DataFrame({"smiles": strings}), list(strings), 0)


@FAST
@given(st.lists(st.one_of(smiles_like, anything), min_size=1, max_size=12))
def test_featurize_never_raises_and_keeps_rows(strings):
    data = featurize_chunk(_chunk(strings), FeaturizerSettings(descriptors=True, descriptor_set="fast"))
    assert data.num_rows == len(strings)
    assert data.num_graphs == sum(s == STATUS_OK for s in data.status)
    assert all(r for s, r in zip(data.status, data.reason) if s != STATUS_OK)  # every failure has a reason
    assert data.descriptors.shape == (data.num_graphs, 17)


@FAST
@given(strings=st.lists(st.one_of(smiles_like, anything), min_size=1, max_size=12))
def test_predict_never_raises_and_keeps_rows(strings, tiny_model):
    model, _ = tiny_model
    out = predict_chunk(model, _chunk(strings))
    assert len(out) == len(strings)
    assert out["smiles"].tolist() == strings


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(smiles_like.filter(lambda s: "\n" not in s and "\r" not in s), min_size=1, max_size=20))
def test_smi_file_round_trip_keeps_row_count(lines, tiny_model, tmp_path):
    model, _ = tiny_model
    assume(any(line.strip() for line in lines))  # a file of only blank lines is "no data rows"
    src = tmp_path / "x.smi"
    src.write_text("".join(f"{line}\n" for line in lines))
    rows = sum(len(c) for c in iter_chunks(str(src)))
    out = io.StringIO()
    summary = predict_stream(model, str(src), out)
    assert summary.rows == rows
    assert len(pd.read_csv(io.StringIO(out.getvalue()), keep_default_na=False)) == rows


VALENCE = {"C": 4, "N": 3, "O": 2, "S": 2, "F": 1, "Cl": 1, "Br": 1, "P": 3}


@st.composite
def random_molecules(draw) -> str:
    """A random connected molecule that respects valences: a random tree (each new atom
    bonds to an atom with a free valence) plus optional ring closures and double bonds."""
    first = draw(st.sampled_from(["C", "N", "O", "S", "P"]))
    symbols, free = [first], [VALENCE[first]]
    mol = Chem.RWMol()
    mol.AddAtom(Chem.Atom(first))
    for _ in range(draw(st.integers(0, 24))):
        open_atoms = [i for i, f in enumerate(free) if f > 0]
        if not open_atoms:
            break
        parent = draw(st.sampled_from(open_atoms))
        symbol = draw(st.sampled_from(sorted(VALENCE)))
        idx = mol.AddAtom(Chem.Atom(symbol))
        mol.AddBond(parent, idx, Chem.BondType.SINGLE)
        symbols.append(symbol)
        free.append(VALENCE[symbol] - 1)
        free[parent] -= 1
    for _ in range(draw(st.integers(0, 3))):
        a, b = draw(st.integers(0, len(symbols) - 1)), draw(st.integers(0, len(symbols) - 1))
        if a != b and free[a] > 0 and free[b] > 0:
            bond = mol.GetBondBetweenAtoms(a, b)
            if bond is None:
                mol.AddBond(a, b, Chem.BondType.SINGLE)  # a ring closure
            elif bond.GetBondType() == Chem.BondType.SINGLE:
                bond.SetBondType(Chem.BondType.DOUBLE)
            free[a] -= 1
            free[b] -= 1
    Chem.SanitizeMol(mol)  # valences are respected by construction
    return Chem.MolToSmiles(mol)


@FAST
@given(st.lists(random_molecules(), min_size=1, max_size=8))
def test_random_valid_molecules_always_featurize(smiles):
    data = featurize_chunk(_chunk(smiles), FeaturizerSettings())
    assert data.status == [STATUS_OK] * len(smiles), data.reason
    for i, s in enumerate(smiles):
        assert data.atom_ptr[i + 1] - data.atom_ptr[i] == Chem.MolFromSmiles(s).GetNumAtoms()
