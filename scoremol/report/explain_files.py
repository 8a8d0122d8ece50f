"""``scoremol explain``'s output folder: per molecule its atom contributions and map.

Each explained molecule ``N`` (1-based input row) gets ``molN.csv`` (atom index, element,
contribution), ``molN.json`` (the same with the prediction), ``molN.svg`` and ``molN.png``
(the similarity map); ``explanations.csv`` lists every input row with its prediction,
status, reason and file stem, so no row is lost. Files of an earlier run in the same
folder that this run did not write again are removed, so the folder holds one run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from scoremol.data.atomic import atomic_write
from scoremol.data.read import read_input
from scoremol.data.registry import resolve_prediction_inputs
from scoremol.device import torch_threads
from scoremol.inference.explain import AtomContributions, atom_contributions, similarity_map, task_index
from scoremol.report.collect import NAME_COLUMNS

INDEX = "explanations.csv"
#: the kinds of file each explained molecule gets
MOLECULE_EXTENSIONS = ("json", "csv", "svg", "png")
#: the per-molecule files this module writes (and so may remove when a later run does not)
MOLECULE_FILE = re.compile(rf"mol\d{{4,}}\.({'|'.join(MOLECULE_EXTENSIONS)})")


def explain_inputs(trained, inputs: list[str], smiles_col: str | None, task: str | int, directory: Path):
    """Explain SMILES strings or a file of molecules (``inputs`` as ``explain`` takes them)
    into ``directory``: ``(index file, molecules explained, rows, the task's label)``. An
    unknown ``task`` is a ``ValueError``."""
    path, smiles = resolve_prediction_inputs(inputs)
    names = None
    if smiles is None:
        chunk = read_input(path, smiles_col)
        smiles = list(chunk.smiles)
        name = next((c for c in NAME_COLUMNS if c in chunk.frame.columns), None)
        names = chunk.frame[name].astype(str).tolist() if name else None
    t = task_index(trained, task)
    with torch_threads(1):  # many tiny forward passes: a second thread only spins
        items = atom_contributions(trained, smiles, t)
    index = write_explanations(directory, items, names)
    return index, sum(item.ok for item in items), len(items), trained.target_labels[t]


def write_explanations(directory: Path, items: list[AtomContributions], names: list[str] | None = None) -> Path:
    """Write the files of ``items`` (one per input row, in order) into ``directory``; returns
    the index file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    earlier = {p.name for p in directory.iterdir() if MOLECULE_FILE.fullmatch(p.name)}
    width = max(4, len(str(len(items))))
    rows = []
    for i, item in enumerate(items):
        stem = f"mol{i + 1:0{width}d}" if item.ok else ""
        if item.ok:
            record = item.to_dict()
            with atomic_write(directory / f"{stem}.json", "w") as handle:
                json.dump(record, handle, indent=1)
            with atomic_write(directory / f"{stem}.csv", "w", newline="") as handle:
                pd.DataFrame(record["atoms"]).to_csv(handle, index=False)
            svg, png = similarity_map(item.mol, item.weights)
            with atomic_write(directory / f"{stem}.svg", "w") as handle:
                handle.write(svg)
            with atomic_write(directory / f"{stem}.png", "wb") as handle:
                handle.write(png)
        rows.append(
            {
                "row": i,
                "name": names[i] if names else "",
                "smiles": item.smiles,
                "task": item.task,
                "prediction": item.prediction if item.ok else None,
                "files": stem,
                "status": item.status,
                "reason": item.reason,
            }
        )
    index = directory / INDEX
    with atomic_write(index, "w", newline="") as handle:
        pd.DataFrame(rows).to_csv(handle, index=False)
    written = {f"{row['files']}.{ext}" for row in rows if row["files"] for ext in MOLECULE_EXTENSIONS}
    for name in earlier - written:
        (directory / name).unlink(missing_ok=True)
    return index
