"""Parse and standardize molecules, with a one-line reason for every failure.

Standardization (on by default) keeps the largest organic fragment, so salts and
counter-ions are stripped, and neutralizes charges where a neutral form exists
(RDKit ``MolStandardize``). The expensive standardizers run only when the molecule
needs them (several fragments, or charged atoms), which leaves results unchanged and
keeps the common case fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from rdkit import Chem, RDLogger
from rdkit.Chem.MolStandardize import rdMolStandardize

if TYPE_CHECKING:
    from scoremol.data.read import MoleculeChunk

RDLogger.DisableLog("rdApp.*")  # failures are reported per row instead of on stderr

STATUS_OK = "ok"
STATUS_INVALID = "invalid"
STATUS_EMPTY = "empty"
STATUS_TOO_LARGE = "too_large"

#: Bumped whenever the rules for which molecules are valid change (part of cache keys).
PARSE_RULES_VERSION = 6

#: Atoms (as parsed, hydrogens implicit) above which a molecule is not featurized: some RDKit
#: descriptors grow faster than the square of the atom count (a 500-atom chain: 0.7 s, 1,000
#: atoms: 3.8 s, 20,000: minutes and gigabytes), and a model learnt from drug-sized
#: molecules says little about a polymer. 400 keeps every molecule of the shipped data sets
#: (the largest, in AqSolDB, has 388) and bounds a row's cost at about half a second.
MAX_ATOMS = 400
#: SMILES characters above which a row is not even parsed (a molecule within MAX_ATOMS
#: needs far fewer: at most about ten characters an atom).
MAX_SMILES_CHARS = 10 * MAX_ATOMS


@dataclass(frozen=True)
class KnownTraits:
    """Facts about a parsed molecule that hold for every one of its atoms and bonds, learnt
    from its SMILES text or from a check that already ran, so featurization can skip the
    RDKit getters that would only confirm them (each Python call into RDKit costs about
    0.25 us for an integer and 1 us for an enum, per atom or bond).
    """

    no_stereo: bool = False  # no chiral tags, no bond stereo, no dative bonds
    no_isotopes: bool = False  # every isotope is 0
    no_charges: bool = False  # every formal charge is 0


#: Nothing known: featurization asks RDKit for everything (e.g. SDF records).
NOTHING_KNOWN = KnownTraits()


@dataclass(frozen=True)
class ParsedMolecule:
    """A parsed molecule (``mol`` is None when it failed) and what happened to it."""

    mol: Chem.Mol | None
    status: str
    reason: str = ""
    known: KnownTraits = NOTHING_KNOWN


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
    mol, note, _ = _standardize(mol)
    return mol, note


def _standardize(mol: Chem.Mol, one_fragment: bool = False) -> tuple[Chem.Mol, str, bool]:
    """:func:`standardize_mol`, plus whether the result has no charged atom at all.

    ``one_fragment``: the caller knows ``mol`` is connected (skips fragment perception).
    """
    notes = []
    n_frags = 1 if one_fragment else len(Chem.GetMolFrags(mol))
    if n_frags > 1:
        mol = _fragment_chooser().choose(mol)
        notes.append(f"salt or mixture: predicted for its largest fragment alone (kept 1 of {n_frags} fragments)")
    neutral = not mol.HasSubstructMatch(_charged_atom())  # ~10x cheaper than looping over atoms
    if not neutral:
        before = Chem.GetFormalCharge(mol), sum(1 for a in mol.GetAtoms() if a.GetFormalCharge())
        mol = _uncharger().uncharge(mol)
        after = Chem.GetFormalCharge(mol), sum(1 for a in mol.GetAtoms() if a.GetFormalCharge())
        if after != before:
            notes.append("neutralized")
    return mol, "; ".join(notes), neutral


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


@cache
def _known_traits(no_stereo: bool, no_isotopes: bool, no_charges: bool) -> KnownTraits:
    return KnownTraits(no_stereo, no_isotopes, no_charges)  # eight shared instances


def parse_molecule(smiles: object, standardize: bool = True) -> ParsedMolecule:
    """Parse one SMILES string; never raises."""
    text = "" if smiles is None else str(smiles).strip()
    if not text or text.lower() == "nan":
        return ParsedMolecule(None, STATUS_EMPTY, "empty SMILES")
    if len(text) > MAX_SMILES_CHARS:
        return ParsedMolecule(
            None, STATUS_TOO_LARGE, f"SMILES of {len(text):,} characters, above the limit of {MAX_SMILES_CHARS:,}"
        )
    inner_space = _inner_whitespace(text)
    if inner_space is not None:
        return ParsedMolecule(None, STATUS_INVALID, inner_space)
    try:
        mol = _parse_plain(text) if "[" not in text and is_plain_smiles(text) else Chem.MolFromSmiles(text)
    except Exception as exc:  # RDKit raises on a few pathological inputs
        return ParsedMolecule(None, STATUS_INVALID, f"RDKit error: {exc}".splitlines()[0])
    if mol is None:
        return ParsedMolecule(None, STATUS_INVALID, "invalid SMILES (RDKit could not parse it)")
    return finish_molecule(mol, standardize, smiles=text)


def _inner_whitespace(text: str) -> str | None:
    """The reason to refuse a stripped SMILES with whitespace inside, or None.

    RDKit reads what follows the first space or tab as the molecule's name, so ``CC O``
    would silently become ethane. Only a CXSMILES extension (``CCO |$R;;$|``) may follow
    a space.
    """
    parts = text.split(None, 1)
    if len(parts) == 1 or parts[1].startswith("|"):
        return None
    return f"invalid SMILES: whitespace inside it ({parts[0][:40]!r} then {parts[1][:20]!r}); a SMILES has none"


def _parse_plain(text: str) -> Chem.Mol | None:
    """Parse and sanitize a SMILES with no bracket atoms and no stereo or dative marks
    (None when RDKit cannot). ``MolFromSmiles`` would also perceive stereo and remove
    explicit hydrogens, which such a SMILES cannot have: skipping them gives the same
    molecule (tests compare both routes on the shared sets) about 15 us sooner, a fifth
    of parsing a drug-like molecule."""
    mol = Chem.MolFromSmiles(text, sanitize=False)
    if mol is None:
        return None
    try:
        Chem.SanitizeMol(mol)
    except Exception:  # bad valence or aromaticity: what MolFromSmiles returns None for
        return None
    return mol


#: Elements of typical organic molecules: one with only these needs no further check.
ORGANIC_ELEMENTS = (1, 5, 6, 7, 8, 9, 14, 15, 16, 17, 34, 35, 53)


@lru_cache(maxsize=1)
def _unusual_element() -> Chem.Mol:
    return Chem.MolFromSmarts("[" + ";".join(f"!#{z}" for z in ORGANIC_ELEMENTS) + "]")


@lru_cache(maxsize=1)
def _dummy_atom() -> Chem.Mol:
    return Chem.MolFromSmarts("[#0]")


def domain_check(mol: Chem.Mol, organic_only: bool = False) -> tuple[str, str]:
    """``(status, reason)``: wildcard atoms (``*``: polymer repeat units, R-groups) have no
    chemistry to predict from, so they are invalid; anything else is predicted, and each
    model's own domain (:class:`scoremol.calibration.Domain`) says whether it knows the
    molecule's elements. ``organic_only``: the caller knows every atom is an organic
    element (no query needed).
    """
    if organic_only or not mol.HasSubstructMatch(_unusual_element()):  # one query ('*' is unusual too)
        return STATUS_OK, ""
    if mol.HasSubstructMatch(_dummy_atom()):
        return STATUS_INVALID, "wildcard/dummy atoms (*) are not supported (polymer or R-group notation)"
    return STATUS_OK, ""


def finish_molecule(mol: Chem.Mol, standardize: bool, smiles: str | None = None) -> ParsedMolecule:
    """Apply standardization to an already parsed molecule (SMILES or SDF record).

    ``smiles``: the text ``mol`` was parsed from, if any; what its characters guarantee
    saves queries here and RDKit calls in featurization (see :class:`KnownTraits`).
    """
    if mol.GetNumAtoms() == 0:
        return ParsedMolecule(None, STATUS_EMPTY, "molecule has no atoms")
    if mol.GetNumAtoms() > MAX_ATOMS:
        return ParsedMolecule(
            None, STATUS_TOO_LARGE, f"{mol.GetNumAtoms():,} atoms, above the limit of {MAX_ATOMS} per molecule"
        )
    from_text = smiles is not None
    if not from_text or "|" in smiles:
        _open_double_bonds_unspecified(mol)
    # No '.': SMILES has no other way to write a second fragment. No '[': every atom is in
    # the organic subset (B C N O P S F Cl Br I, or '*'), with no isotope. CXSMILES
    # extensions ('|...|') are left to RDKit's answers, to be safe from what they may add.
    connected = from_text and "." not in smiles
    organic_subset = from_text and "[" not in smiles and "|" not in smiles
    note, neutral = "", False
    if not standardize and not connected:
        n_frags = len(Chem.GetMolFrags(mol))
        if n_frags > 1:  # a salt's counter-ion changes its solubility: say what was predicted
            note = f"salt or mixture of {n_frags} fragments: predicted as given"
    if standardize:
        try:
            mol, note, neutral = _standardize(mol, one_fragment=connected)
        except Exception as exc:
            return ParsedMolecule(None, STATUS_INVALID, f"standardization failed: {exc}".splitlines()[0])
    status, domain = domain_check(mol, organic_only=organic_subset and "*" not in smiles)
    if status != STATUS_OK:
        return ParsedMolecule(None, status, domain)
    # charges are known only from the query: RDKit's sanitization may charge-separate
    # bracket-free groups (CN(=O)=O becomes C[N+](=O)[O-])
    known = _known_traits(from_text and is_plain_smiles(smiles), organic_subset, neutral)
    return ParsedMolecule(mol, STATUS_OK, "; ".join(n for n in (note, domain) if n), known)


def _open_double_bonds_unspecified(mol: Chem.Mol) -> None:
    """Give a double bond whose geometry is left open ("either", ``STEREOANY``: an SDF's
    crossed bond, a CXSMILES wiggly bond) no stereo, as a SMILES that leaves it unspecified
    reads: the networks learnt from SMILES, so the same molecule predicts the same from an
    SDF. A SMILES without ``|`` cannot set it."""
    for bond in mol.GetBonds():
        if bond.GetStereo() == Chem.BondStereo.STEREOANY:
            bond.SetStereo(Chem.BondStereo.STEREONONE)


def parse_chunk(chunk: MoleculeChunk, standardize: bool = True) -> list[ParsedMolecule]:
    """Parse and standardize every row of a chunk (SMILES, or the structures an SDF carried);
    never raises, one result per row."""
    if chunk.mols is None:
        return [parse_molecule(s, standardize) for s in chunk.smiles]
    out = []
    for mol, err in zip(chunk.mols, chunk.errors or [""] * len(chunk.mols)):
        if mol is None:
            out.append(ParsedMolecule(None, STATUS_INVALID, err or "record could not be parsed"))
        else:
            out.append(finish_molecule(mol, standardize))
    return out
