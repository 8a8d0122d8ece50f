"""Parse and standardize molecules, with a one-line reason for every failure.

Standardization (on by default) keeps the largest organic fragment, so salts and
counter-ions are stripped, and neutralizes charges where a neutral form exists
(RDKit ``MolStandardize``). The expensive standardizers run only when the molecule
needs them (several fragments, or charged atoms), which leaves results unchanged and
keeps the common case fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem, RDLogger
from rdkit.Chem.MolStandardize import rdMolStandardize

RDLogger.DisableLog("rdApp.*")  # failures are reported per row instead of on stderr

STATUS_OK = "ok"
STATUS_INVALID = "invalid"
STATUS_EMPTY = "empty"

#: Bumped whenever the rules for which molecules are valid change (part of cache keys).
PARSE_RULES_VERSION = 2


@dataclass(frozen=True)
class ParsedMolecule:
    """A parsed molecule (``mol`` is None when it failed) and what happened to it."""

    mol: Chem.Mol | None
    status: str
    reason: str = ""


@lru_cache(maxsize=1)
def _fragment_chooser() -> rdMolStandardize.LargestFragmentChooser:
    return rdMolStandardize.LargestFragmentChooser(preferOrganic=True)


@lru_cache(maxsize=1)
def _uncharger() -> rdMolStandardize.Uncharger:
    return rdMolStandardize.Uncharger()


@lru_cache(maxsize=1)
def _charged_atom() -> Chem.Mol:
    return Chem.MolFromSmarts("[!+0]")


def standardize_mol(mol: Chem.Mol) -> tuple[Chem.Mol, str]:
    """Largest organic fragment + neutralization; returns the molecule and a note."""
    notes = []
    n_frags = len(Chem.GetMolFrags(mol))
    if n_frags > 1:
        mol = _fragment_chooser().choose(mol)
        notes.append(f"kept largest of {n_frags} fragments")
    if mol.HasSubstructMatch(_charged_atom()):  # ~10x cheaper than looping over atoms in Python
        before = Chem.GetFormalCharge(mol), sum(1 for a in mol.GetAtoms() if a.GetFormalCharge())
        mol = _uncharger().uncharge(mol)
        after = Chem.GetFormalCharge(mol), sum(1 for a in mol.GetAtoms() if a.GetFormalCharge())
        if after != before:
            notes.append("neutralized")
    return mol, "; ".join(notes)


#: Characters through which a SMILES string can set a chiral tag (``@``), bond stereo
#: (``/``, ``\\``), a dative bond (``->``, ``<-``) or CXSMILES extras (``|``, e.g. wiggly bonds).
_STEREO_OR_DATIVE_MARKS = frozenset("@/\\<>|")


def is_plain_smiles(smiles: str) -> bool:
    """True when ``smiles`` cannot carry stereo or dative bonds: its molecule has no chiral
    tags, every bond's stereo is STEREONONE and no bond is dative.

    RDKit's SMILES parser sets those only from the marks above, so featurizing such a
    molecule can skip the RDKit getters that return enums (about 1 us each, a large part
    of featurization) with identical results (tests compare both routes).
    """
    return _STEREO_OR_DATIVE_MARKS.isdisjoint(smiles)


def parse_molecule(smiles: object, standardize: bool = True) -> ParsedMolecule:
    """Parse one SMILES string; never raises."""
    text = "" if smiles is None else str(smiles).strip()
    if not text or text.lower() == "nan":
        return ParsedMolecule(None, STATUS_EMPTY, "empty SMILES")
    try:
        mol = Chem.MolFromSmiles(text)
    except Exception as exc:  # RDKit raises on a few pathological inputs
        return ParsedMolecule(None, STATUS_INVALID, f"RDKit error: {exc}".splitlines()[0])
    if mol is None:
        return ParsedMolecule(None, STATUS_INVALID, "invalid SMILES (RDKit could not parse it)")
    return finish_molecule(mol, standardize)


#: Elements of typical organic, drug-like training data (ESOL, FreeSolv, Lipophilicity).
ORGANIC_ELEMENTS = (1, 5, 6, 7, 8, 9, 14, 15, 16, 17, 34, 35, 53)


@lru_cache(maxsize=1)
def _unusual_element() -> Chem.Mol:
    return Chem.MolFromSmarts("[" + ";".join(f"!#{z}" for z in ORGANIC_ELEMENTS) + "]")


@lru_cache(maxsize=1)
def _dummy_atom() -> Chem.Mol:
    return Chem.MolFromSmarts("[#0]")


def domain_check(mol: Chem.Mol) -> tuple[str, str]:
    """``(status, note)`` for what a property model can say about ``mol``.

    Wildcard atoms (``*``: polymer repeat units, R-groups) have no chemistry to predict
    from, so they are invalid. Metals and other unusual elements are predicted but flagged:
    the shipped data sets contain almost none, so the prediction is an extrapolation.
    """
    if not mol.HasSubstructMatch(_unusual_element()):  # one query in the common case ('*' is unusual too)
        return STATUS_OK, ""
    if mol.HasSubstructMatch(_dummy_atom()):
        return STATUS_INVALID, "wildcard/dummy atoms (*) are not supported (polymer or R-group notation)"
    symbols = sorted({a.GetSymbol() for a in mol.GetAtoms() if a.GetAtomicNum() not in ORGANIC_ELEMENTS})
    return STATUS_OK, f"contains {', '.join(symbols)}: outside typical training chemistry, extrapolated"


def finish_molecule(mol: Chem.Mol, standardize: bool) -> ParsedMolecule:
    """Apply standardization to an already parsed molecule (SMILES or SDF record)."""
    if mol.GetNumAtoms() == 0:
        return ParsedMolecule(None, STATUS_EMPTY, "molecule has no atoms")
    note = ""
    if standardize:
        try:
            mol, note = standardize_mol(mol)
        except Exception as exc:
            return ParsedMolecule(None, STATUS_INVALID, f"standardization failed: {exc}".splitlines()[0])
    status, domain = domain_check(mol)
    if status != STATUS_OK:
        return ParsedMolecule(None, status, domain)
    return ParsedMolecule(mol, STATUS_OK, "; ".join(n for n in (note, domain) if n))
