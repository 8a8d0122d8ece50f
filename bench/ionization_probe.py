"""Probe: do ionization features at the assays' pH help the drug-like tasks?

Run: pip install dimorphite-dl==2.1.0  (Apache-2.0; not a scoremol dependency)
     python bench/ionization_probe.py [drug_like_benchmark.py arguments]

Dimorphite-DL finds each molecule's ionizable sites and gives each a measured mean pKa. From
them this probe derives six numbers per molecule, at pH 6.8 (Biogen's buffer) and 7.4 (logD):
the expected number of ionized acidic sites, of ionized basic sites (Henderson-Hasselbalch),
and the solubility gain of the strongest acid and base, ``log10(1 + 10^(pH - pKa))`` for the
acid plus ``log10(1 + 10^(pKa - pH))`` for the base, capped at 4 log units. They are added to
scoremol's descriptor table under ``Ion_*`` names: every tree reads them (the ``tree`` set
gains them) and ``--option descriptor_set=fastion`` also fuses them into the networks. The
drug-like benchmark then runs as usual with the remaining arguments
(``bench/results/ionization_probe_2026-12-07.md``).
"""

from __future__ import annotations

import math
import runpy
import sys
from functools import cache
from pathlib import Path

from rdkit import Chem

import scoremol.featurizers.dataset as dataset
import scoremol.featurizers.descriptors as descriptors

#: The assays' pH: Biogen's buffer and AstraZeneca's logD.
PH_VALUES = (6.8, 7.4)
#: Sites Dimorphite-DL lists with a pKa above this (alcohols) never ionize in water.
MAX_PKA = 14.0
#: Ionization raises solubility until the salt's own solubility caps it.
MAX_GAIN = 4.0


def _detector():
    try:
        from dimorphite_dl.protonate.detect import ProtonationSiteDetector
        from loguru import logger
    except ImportError:
        sys.exit("this probe needs Dimorphite-DL: pip install dimorphite-dl==2.1.0")
    logger.remove()  # Dimorphite-DL logs every molecule
    return ProtonationSiteDetector()


_DETECTOR = _detector()


@cache
def sites(smiles: str) -> tuple[tuple[bool, float], ...]:
    """Each ionizable site as (is a base, mean pKa). A site is basic when its atom is a
    nitrogen that Dimorphite-DL charges on protonation (its names without a leading '*')."""
    from dimorphite_dl.mol import MoleculeRecord

    try:
        record, found = _DETECTOR.find_sites(MoleculeRecord(smiles))
    except Exception:
        return ()
    out = []
    for site in found:
        for pka in site.pkas:
            atom = record.mol.GetAtomWithIdx(site.idxs_match[pka.idx_site])
            out.append((atom.GetSymbol() == "N" and not site.name.startswith("*"), pka.mean))
    return tuple(out)


#: the molecule last asked about and its SMILES: its six features are computed one after
#: another, so it is written once, not six times (the reference keeps its id from reuse)
_LAST: list = [None, ""]


def _smiles(mol: Chem.Mol) -> str:
    if _LAST[0] is not mol:
        _LAST[:] = [mol, Chem.MolToSmiles(mol)]
    return _LAST[1]


def ionization(mol: Chem.Mol, ph: float) -> tuple[float, float, float]:
    """(ionized acidic sites, ionized basic sites, capped solubility gain) at ``ph``."""
    found = sites(_smiles(mol))
    acids = [k for base, k in found if not base and k < MAX_PKA]
    bases = [k for base, k in found if base]
    acid_ionized = sum(1 / (1 + 10 ** (k - ph)) for k in acids)
    base_ionized = sum(1 / (1 + 10 ** (ph - k)) for k in bases)
    gain = 0.0
    if acids:
        gain += math.log10(1 + 10 ** min(ph - min(acids), 6))
    if bases:
        gain += math.log10(1 + 10 ** min(max(bases) - ph, 6))
    return acid_ionized, base_ionized, min(gain, MAX_GAIN)


def register() -> tuple[str, ...]:
    """Add the ``Ion_*`` features to scoremol's descriptor table; returns their names."""
    new = {}
    for ph in PH_VALUES:
        tag = f"{ph:.1f}".replace(".", "")
        for i, kind in enumerate(("acid", "base", "gain")):
            new[f"Ion_{kind}{tag}"] = lambda mol, ph=ph, i=i: ionization(mol, ph)[i]
    descriptors._FUNCTIONS.update(new)
    descriptors.ALL_DESCRIPTORS += tuple(new)
    descriptors.TREE_DESCRIPTORS += tuple(new)
    descriptors.DESCRIPTOR_SETS.update(
        all=descriptors.ALL_DESCRIPTORS,
        tree=descriptors.TREE_DESCRIPTORS,
        fastion=descriptors.FAST_DESCRIPTORS + tuple(new),
    )
    dataset.ALL_DESCRIPTORS = descriptors.ALL_DESCRIPTORS
    return tuple(new)


if __name__ == "__main__":
    register()
    benchmark = Path(__file__).with_name("drug_like_benchmark.py")
    sys.argv = [str(benchmark), *sys.argv[1:]]
    runpy.run_path(str(benchmark), run_name="__main__")
