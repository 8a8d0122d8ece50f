"""The atom and bond feature layout: which values each one-hot block knows, and its width.

Kept free of RDKit so that :mod:`scoremol.nn` can size its input layers without importing
it; :mod:`scoremol.featurizers.graph` maps these names onto RDKit's enums. Every categorical
block has an explicit "other" slot, so an unseen value still has a place.
"""

from __future__ import annotations

#: Bump whenever the meaning or order of any feature changes: it invalidates caches.
FEATURIZER_VERSION = 1

ELEMENTS: tuple[str, ...] = (
    "H",
    "Li",
    "B",
    "C",
    "N",
    "O",
    "F",
    "Na",
    "Mg",
    "Al",
    "Si",
    "P",
    "S",
    "Cl",
    "K",
    "Ca",
    "Fe",
    "Cu",
    "Zn",
    "As",
    "Se",
    "Br",
    "Sn",
    "Te",
    "I",
    "Pt",
    "Hg",
    "Pb",
)
DEGREES = (0, 1, 2, 3, 4, 5)
FORMAL_CHARGES = (-2, -1, 0, 1, 2)
TOTAL_HS = (0, 1, 2, 3, 4)
#: Names of RDKit's ``HybridizationType``, ``ChiralType``, ``BondType`` and ``BondStereo`` values.
HYBRIDIZATION_NAMES = ("S", "SP", "SP2", "SP3", "SP3D", "SP3D2")
CHIRALITY_NAMES = ("CHI_UNSPECIFIED", "CHI_TETRAHEDRAL_CW", "CHI_TETRAHEDRAL_CCW")
BOND_TYPE_NAMES = ("SINGLE", "DOUBLE", "TRIPLE", "AROMATIC")
BOND_STEREO_NAMES = ("STEREONONE", "STEREOANY", "STEREOZ", "STEREOE", "STEREOCIS", "STEREOTRANS")

#: (name, width) of each atom feature block, in order.
ATOM_FEATURES: tuple[tuple[str, int], ...] = (
    ("element", len(ELEMENTS) + 1),
    ("degree", len(DEGREES) + 1),
    ("formal_charge", len(FORMAL_CHARGES) + 1),
    ("total_h", len(TOTAL_HS) + 1),
    ("hybridization", len(HYBRIDIZATION_NAMES) + 1),
    ("aromatic", 1),
    ("in_ring", 1),
    ("chirality", len(CHIRALITY_NAMES) + 1),
    ("mass", 1),
)
#: (name, width) of each bond feature block, in order.
BOND_FEATURES: tuple[tuple[str, int], ...] = (
    ("bond_type", len(BOND_TYPE_NAMES) + 1),
    ("conjugated", 1),
    ("in_ring", 1),
    ("stereo", len(BOND_STEREO_NAMES) + 1),
)
ATOM_DIM = sum(w for _, w in ATOM_FEATURES)
BOND_DIM = sum(w for _, w in BOND_FEATURES)


def _offsets(blocks: tuple[tuple[str, int], ...]) -> dict[str, int]:
    out, pos = {}, 0
    for name, width in blocks:
        out[name] = pos
        pos += width
    return out


ATOM_OFFSETS = _offsets(ATOM_FEATURES)
BOND_OFFSETS = _offsets(BOND_FEATURES)
