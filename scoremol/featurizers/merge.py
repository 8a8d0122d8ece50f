"""Several training inputs as one multi-task table: one row per molecule, one column per target.

Molecules are matched by the canonical isomeric SMILES of the form the network sees (the
standardized parent with ``standardize=True``: largest organic fragment, neutralized), so a
salt in one data set and its free base in another become one row with both labels.
Repeats of a molecule within a target are averaged; a SMILES that does not parse keeps a
row of its own, so it is reported like any invalid input row. Each target keeps its
column name: the same name in two inputs is the same target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from rdkit import Chem

from scoremol.data.read import MoleculeChunk
from scoremol.featurizers.molecule import parse_molecule

#: the SMILES column of a merged table
MERGED_SMILES = "smiles"


@dataclass
class MergeSource:
    """One input of a merge: its rows (as read) and the target columns it brings (none: every
    row joins without labels, for a teacher to label)."""

    name: str
    chunk: MoleculeChunk
    targets: list[str]


@dataclass
class MergeReport:
    """How the inputs became rows: labelled rows read per input and target, rows after
    the merge, and how many molecules two or more inputs share."""

    rows_read: dict[str, int] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    molecules: int = 0
    shared: int = 0
    averaged: int = 0


def molecule_key(smiles: str, standardize: bool) -> str | None:
    """The matching key of a SMILES (canonical isomeric SMILES of the parsed, and when
    ``standardize`` standardized, molecule), or None when it does not parse."""
    parsed = parse_molecule(smiles, standardize)
    return None if parsed.mol is None else Chem.MolToSmiles(parsed.mol)


def molecule_keys(smiles: Sequence[str], standardize: bool) -> list[str | None]:
    """:func:`molecule_key` of each SMILES: how inputs, teachers' training sets and
    ``--exclude`` lists are matched."""
    return [molecule_key(text, standardize) for text in smiles]


def sample_molecules(smiles: Sequence[str], fraction: float, seed: int, standardize: bool = True) -> list[str]:
    """A seeded ``fraction`` of the distinct molecules among ``smiles`` (matched by
    :func:`molecule_key`), each as the first SMILES that names it, in input order; SMILES
    that do not parse are never chosen. For ``train --exclude``: molecules a teacher never
    sees, for its student to calibrate on."""
    first: dict[str, str] = {}
    for text, key in zip(smiles, molecule_keys(smiles, standardize)):
        if key is not None and key not in first:
            first[key] = text
    keys = sorted(first)
    chosen = set(np.random.default_rng(seed).permutation(keys)[: round(fraction * len(keys))])
    return [text for key, text in first.items() if key in chosen]


def merge_sources(sources: Sequence[MergeSource], standardize: bool = True) -> tuple[MoleculeChunk, MergeReport]:
    """One chunk with a ``smiles`` column and every source's targets (as strings, empty
    where a molecule has no label), rows in order of first appearance."""
    report = MergeReport()
    order: dict[str, int] = {}
    first_smiles: list[str] = []
    seen_in: list[set[str]] = []
    targets: list[str] = []
    for source in sources:
        targets += [t for t in source.targets if t not in targets]
    sums = {t: [] for t in targets}
    counts = {t: [] for t in targets}
    for source in sources:
        values = {
            t: pd.to_numeric(source.chunk.frame[t].str.strip(), errors="coerce").to_numpy() for t in source.targets
        }
        labelled = np.zeros(len(source.chunk), bool) if source.targets else np.ones(len(source.chunk), bool)
        for v in values.values():
            labelled |= np.isfinite(v)
        report.rows_read[source.name] = int(labelled.sum())
        for i in np.flatnonzero(labelled):
            smiles = source.chunk.smiles[i]
            key = molecule_key(smiles, standardize)
            key = f"\0{source.name}\0{i}" if key is None else key  # unparsable: each row one of its own
            row = order.get(key)
            if row is None:
                row = order[key] = len(first_smiles)
                first_smiles.append(smiles)
                seen_in.append(set())
                for t in targets:
                    sums[t].append(0.0)
                    counts[t].append(0)
            seen_in[row].add(source.name)
            for t, v in values.items():
                if np.isfinite(v[i]):
                    sums[t][row] += float(v[i])
                    counts[t][row] += 1
    columns = {MERGED_SMILES: first_smiles}
    for t in targets:
        c = np.asarray(counts[t])
        mean = np.asarray(sums[t]) / np.maximum(c, 1)
        columns[t] = [repr(float(m)) if k else "" for m, k in zip(mean, c)]
        report.labels[t] = int((c > 0).sum())
        report.averaged += int((c > 1).sum())
    report.molecules = len(first_smiles)
    report.shared = sum(len(s) > 1 for s in seen_in)
    frame = pd.DataFrame(columns, dtype=str)
    return MoleculeChunk(frame=frame, smiles=list(first_smiles), start=0, smiles_col=MERGED_SMILES), report
