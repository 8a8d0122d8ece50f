"""RDKit descriptors: computed faster, the same numbers."""

from __future__ import annotations

import numpy as np


def test_estate_indices_are_rdkits_bit_for_bit_and_the_extremes_unchanged():
    """The E-state indices are computed once per molecule (numpy), not once per descriptor
    (RDKit's Python loop): the numbers must stay RDKit's exactly, fragments and all."""
    from rdkit import Chem
    from rdkit.Chem.EState.EState import EStateIndices

    from scoremol.featurizers.descriptors import _FUNCTIONS, TREE_DESCRIPTORS, compute_descriptors, estate_indices

    for smiles in ["CCO", "c1ccccc1O", "[Na+].[Cl-]", "CC(=O)Nc1ccc(O)cc1.O", "[Cu]", "FC(F)(F)c1ccc(Br)cc1I"]:
        mol = Chem.MolFromSmiles(smiles)
        assert np.array_equal(estate_indices(Chem.Mol(mol)), np.asarray(EStateIndices(Chem.Mol(mol))))
        fresh = Chem.Mol(mol)
        expected = []
        for name in TREE_DESCRIPTORS:
            try:
                value = float(_FUNCTIONS[name](Chem.Mol(fresh)))
            except Exception:
                value = np.nan
            expected.append(value if np.isfinite(value) else np.nan)
        assert np.array_equal(
            compute_descriptors(mol, TREE_DESCRIPTORS), np.asarray(expected, np.float32), equal_nan=True
        )
