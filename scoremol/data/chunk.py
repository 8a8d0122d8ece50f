"""A block of input rows, and how its SMILES column is found: what every reader returns."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from rdkit import Chem

from scoremol.errors import ScoremolError

SMILES_NAMES = ("smiles", "SMILES", "Smiles")


@dataclass
class MoleculeChunk:
    """A block of consecutive input rows.

    ``frame`` holds the columns a user gets back in outputs (all values as strings);
    ``smiles`` the raw SMILES of each row; ``mols`` pre-parsed molecules for formats that
    carry structures (SDF), with ``errors`` the per-row reason when a record failed.
    """

    frame: pd.DataFrame
    smiles: list[str]
    start: int
    smiles_col: str = "smiles"
    mols: list[Chem.Mol | None] | None = None
    errors: list[str] | None = None

    def __len__(self) -> int:
        return len(self.smiles)


def smiles_chunk(smiles: list[str], extra: dict[str, object] | None = None) -> MoleculeChunk:
    """A chunk from SMILES held in memory (a ``smiles`` column, plus ``extra`` columns)."""
    frame = pd.DataFrame({"smiles": smiles, **(extra or {})})
    return MoleculeChunk(frame, list(smiles), 0, "smiles")


def find_smiles_column(columns: list[str], requested: str | None) -> str:
    """The SMILES column: ``requested`` if given, else one named smiles/SMILES/Smiles."""
    if requested is not None:
        if requested in columns:
            return requested
        raise ScoremolError(f"SMILES column {requested!r} not found; columns are: {', '.join(map(str, columns))}")
    for name in SMILES_NAMES:
        if name in columns:
            return name
    matches = [c for c in columns if str(c).strip().lower() == "smiles"]
    if len(matches) == 1:
        return matches[0]
    raise ScoremolError(
        "no SMILES column found (looked for smiles/SMILES/Smiles); name it with --smiles-col (smiles_col in Python); "
        f"columns are: {', '.join(map(str, columns))}"
    )


def check_header(header: list[str]) -> None:
    """A header naming a column twice is a one-line error (which of them would be meant?)."""
    seen, dupes = set(), []
    for name in header:
        if name in seen and name not in dupes:
            dupes.append(name)
        seen.add(name)
    if dupes:
        raise ScoremolError(f"duplicate column names in header: {', '.join(dupes)}")
