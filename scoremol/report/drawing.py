"""Structures as small SVG text, drawn by RDKit, for the HTML report.

The SVG goes into the page as an image (``<img src="data:image/svg+xml,...">``, set by the
page's script), never as markup: an image cannot run script whatever it holds.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rdkit import Chem, RDLogger
from rdkit.Chem.Draw import rdMolDraw2D

_HEADER = re.compile(r"<\?xml[^>]*\?>\s*")
_CLASS = re.compile(r" class='[^']*'")
_STYLE = re.compile(r"style='([^']*)'")


def _compact(svg: str) -> str:
    """The SVG without its XML declaration, blank lines and RDKit's bond/atom class names,
    each distinct inline style written once as a class in an SVG ``<style>``: RDKit repeats
    a 150-character style on every path, most of a drawing's bytes (diazepam 11.3 -> 4 kB)."""
    body = _CLASS.sub("", _HEADER.sub("", svg))
    styles: dict[str, str] = {}

    def to_class(match: re.Match) -> str:
        name = styles.setdefault(match.group(1), f"s{len(styles)}")
        return f"class='{name}'"

    body = _STYLE.sub(to_class, body)
    if styles:
        rules = "".join(f".{name}{{{style}}}" for style, name in styles.items())
        tag_end = body.index(">", body.index("<svg")) + 1
        body = f"{body[:tag_end]}<style>{rules}</style>{body[tag_end:]}"
    return "\n".join(line.strip() for line in body.splitlines() if line.strip())


RDLogger.DisableLog("rdApp.*")  # a row that cannot be drawn shows no picture, not a log line


@lru_cache(maxsize=4096)
def structure_svg(smiles: str, width: int = 150, height: int = 110) -> str | None:
    """The 2D structure of ``smiles`` as SVG text, or None when RDKit cannot parse it.

    Cached: a report draws each distinct SMILES once (neighbours repeat across rows)."""
    mol = Chem.MolFromSmiles(str(smiles))
    if mol is None or mol.GetNumAtoms() == 0:
        return None
    return mol_svg(mol, width, height)


def mol_svg(mol: Chem.Mol, width: int = 150, height: int = 110) -> str | None:
    """An RDKit molecule drawn as SVG text (None if RDKit cannot draw it)."""
    try:
        drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
        options = drawer.drawOptions()
        options.clearBackground = False
        options.padding = 0.08
        options.fixedBondLength = 20  # small molecules stay small instead of filling the cell
        rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
        drawer.FinishDrawing()
    except Exception:  # a molecule RDKit parsed but cannot depict: no picture, not a failed report
        return None
    return _compact(drawer.GetDrawingText())


def contribution_png(mol: Chem.Mol, weights: list[float], width: int = 400, height: int = 325) -> str | None:
    """The atom-contribution map as a ``data:`` URL of a PNG (about 50 kB as base64, a third
    less than the filled SVG map with its markup escaped for the page), or None when it
    cannot be drawn. Drawn at 1.25x the size it is shown, for sharp edges."""
    import base64

    from scoremol.inference.explain import similarity_map

    try:
        _, png = similarity_map(mol, weights, size=(width, height), resolution=0.3, fill=True, png=True)
    except Exception:
        return None
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
