"""A featurized data set: every input row with its status, and graphs for the valid ones.

Saved as a ``torch.save`` archive that holds only tensors and one JSON string, so it loads
with ``torch.load(weights_only=True)``: no arbitrary object is ever unpickled. The JSON
records the featurizer settings and version, so a consumer can refuse stale features.

Featurizing needs no torch (imported on use by the methods that make tensors), so worker
processes that only featurize never pay for importing it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import rdkit

from scoremol.data.atomic import atomic_write
from scoremol.data.read import MoleculeChunk
from scoremol.errors import ScoremolError
from scoremol.featurizers.descriptors import ALL_DESCRIPTORS, compute_descriptor_matrix, descriptor_names
from scoremol.featurizers.graph import ATOM_DIM, BOND_DIM, featurizer_fingerprint, mol_to_arrays
from scoremol.featurizers.molecule import STATUS_OK, parse_chunk

if TYPE_CHECKING:
    import torch
    from torch_geometric.data import Data

FORMAT_NAME = "scoremol-features"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class FeaturizerSettings:
    """Everything that changes the features; recorded with every output and model."""

    standardize: bool = True
    descriptors: bool = False
    descriptor_set: tuple[str, ...] | None = None  # None = all RDKit descriptors
    fingerprint: str = field(default_factory=featurizer_fingerprint)
    rdkit_version: str = rdkit.__version__
    atom_dim: int = ATOM_DIM
    bond_dim: int = BOND_DIM

    def __post_init__(self) -> None:
        # A set name ("fast") or comma list is stored as the explicit names it stands for,
        # so models and caches record exactly which descriptors they were built with.
        if isinstance(self.descriptor_set, str) or isinstance(self.descriptor_set, list):
            names = descriptor_names(
                self.descriptor_set if isinstance(self.descriptor_set, str) else tuple(self.descriptor_set)
            )
            object.__setattr__(self, "descriptor_set", None if names == ALL_DESCRIPTORS else names)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["descriptor_set"] = list(self.descriptor_set) if self.descriptor_set else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> FeaturizerSettings:
        d = dict(d)
        if d.get("descriptor_set"):
            d["descriptor_set"] = tuple(d["descriptor_set"])
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})

    def compatible_with_code(self) -> bool:
        """True when features made with these settings match what this code would make."""
        return self.fingerprint == featurizer_fingerprint() and self.atom_dim == ATOM_DIM and self.bond_dim == BOND_DIM

    @property
    def descriptor_names(self) -> tuple[str, ...]:
        return descriptor_names(self.descriptor_set) if self.descriptors else ()


def network_featurizer(
    settings: FeaturizerSettings, use_descriptors: bool, descriptor_columns: list[int] | None
) -> FeaturizerSettings:
    """The features a blended model's networks need without its tree: only the descriptors
    they fuse (columns ``descriptor_columns`` of ``settings``' set), or none."""
    if use_descriptors and descriptor_columns is not None:
        names = settings.descriptor_names
        return replace(settings, descriptor_set=tuple(names[i] for i in descriptor_columns))
    if not use_descriptors:
        return replace(settings, descriptors=False)
    return settings


@dataclass
class FeaturizedDataset:
    """Rows in input order plus graph tensors for the rows whose status is ``ok``."""

    table: pd.DataFrame  # the input's columns, as strings
    smiles_col: str
    status: list[str]
    reason: list[str]
    settings: FeaturizerSettings
    graph_row: np.ndarray  # [G] row index of each graph
    x: np.ndarray  # [sum atoms, ATOM_DIM]
    edge_index: np.ndarray  # [2, sum edges], local to each graph
    edge_attr: np.ndarray  # [sum edges, BOND_DIM]
    atom_ptr: np.ndarray  # [G + 1]
    edge_ptr: np.ndarray  # [G + 1]
    descriptors: np.ndarray | None = None  # [G, D] float32 with NaN for missing
    source_sha256: str = ""

    # -- views -------------------------------------------------------------------------
    @property
    def num_rows(self) -> int:
        return len(self.status)

    @property
    def num_graphs(self) -> int:
        return len(self.graph_row)

    @property
    def num_failed(self) -> int:
        return self.num_rows - self.num_graphs

    def graph_tensors(self, i: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(x, edge_index, edge_attr)`` of graph ``i`` (sharing memory with the data set)."""
        import torch

        a0, a1 = self.atom_ptr[i], self.atom_ptr[i + 1]
        e0, e1 = self.edge_ptr[i], self.edge_ptr[i + 1]
        return (
            torch.from_numpy(self.x[a0:a1]),
            torch.from_numpy(self.edge_index[:, e0:e1]),
            torch.from_numpy(self.edge_attr[e0:e1]),
        )

    def graph(self, i: int) -> Data:
        """The PyG ``Data`` of graph ``i`` (tensors share memory with the data set)."""
        from torch_geometric.data import Data  # imported on use: scoremol's own paths avoid PyG

        x, edge_index, edge_attr = self.graph_tensors(i)
        return Data(x=x, edge_index=edge_index, edge_attr=edge_attr)

    def select_descriptors(self, names: tuple[str, ...]) -> FeaturizedDataset:
        """The same data with only the descriptor columns ``names`` (a subset of its own)."""
        have = list(self.settings.descriptor_names)
        missing = [n for n in names if n not in have]
        if self.descriptors is None or missing:
            raise ScoremolError(
                f"these features have no descriptor(s) {', '.join(missing) or 'at all'}; featurize again"
            )
        settings = replace(self.settings, descriptor_set=None if names == ALL_DESCRIPTORS else tuple(names))
        return replace(self, descriptors=self.descriptors[:, [have.index(n) for n in names]], settings=settings)

    def graphs(self) -> list[Data]:
        return [self.graph(i) for i in range(self.num_graphs)]

    def graph_smiles(self, ids: np.ndarray) -> list[str]:
        """The input SMILES of graphs ``ids`` (as read, before parsing)."""
        return self.table[self.smiles_col].astype(str).to_numpy()[self.graph_row[np.asarray(ids)]].tolist()

    def column_values(self, column: str) -> np.ndarray:
        """A table column as float64 per graph (non-numeric -> NaN)."""
        if column not in self.table.columns:
            raise ScoremolError(
                f"target column {column!r} not found; columns are: {', '.join(map(str, self.table.columns))}"
            )
        values = pd.to_numeric(self.table[column].astype(str).str.strip(), errors="coerce").to_numpy(np.float64)
        return values[self.graph_row]

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        import torch

        meta = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "settings": self.settings.to_dict(),
            "smiles_col": self.smiles_col,
            "columns": [str(c) for c in self.table.columns],
            "table": {str(c): self.table[c].astype(str).tolist() for c in self.table.columns},
            "status": self.status,
            "reason": self.reason,
            "source_sha256": self.source_sha256,
        }
        payload = {
            "meta": json.dumps(meta),
            "graph_row": torch.from_numpy(self.graph_row),
            "x": torch.from_numpy(self.x),
            "edge_index": torch.from_numpy(self.edge_index),
            "edge_attr": torch.from_numpy(self.edge_attr),
            "atom_ptr": torch.from_numpy(self.atom_ptr),
            "edge_ptr": torch.from_numpy(self.edge_ptr),
        }
        if self.descriptors is not None:
            payload["descriptors"] = torch.from_numpy(self.descriptors)
        with atomic_write(path, "wb") as handle:
            torch.save(payload, handle)

    @classmethod
    def load(cls, path: str | Path) -> FeaturizedDataset:
        import torch

        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
            meta = json.loads(payload["meta"])
        except FileNotFoundError:
            raise ScoremolError(f"featurized file not found: {path}") from None
        except Exception as exc:
            raise ScoremolError(f"{path} is not a readable scoremol features file ({type(exc).__name__})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            raise ScoremolError(f"{path} is not a scoremol features file")
        if meta.get("format_version", 0) > FORMAT_VERSION:
            raise ScoremolError(f"{path} was written by a newer scoremol (format {meta['format_version']})")
        settings = FeaturizerSettings.from_dict(meta["settings"])
        table = pd.DataFrame({c: meta["table"][c] for c in meta["columns"]})
        desc = payload.get("descriptors")
        return cls(
            table=table,
            smiles_col=meta["smiles_col"],
            status=meta["status"],
            reason=meta["reason"],
            settings=settings,
            graph_row=payload["graph_row"].numpy(),
            x=payload["x"].numpy(),
            edge_index=payload["edge_index"].numpy(),
            edge_attr=payload["edge_attr"].numpy(),
            atom_ptr=payload["atom_ptr"].numpy(),
            edge_ptr=payload["edge_ptr"].numpy(),
            descriptors=None if desc is None else desc.numpy(),
            source_sha256=meta.get("source_sha256", ""),
        )


def featurize_chunk(chunk: MoleculeChunk, settings: FeaturizerSettings) -> FeaturizedDataset:
    """Parse, standardize and featurize every row of ``chunk`` (never raises per row)."""
    parsed = parse_chunk(chunk, settings.standardize)
    status = [p.status for p in parsed]
    reason = [p.reason for p in parsed]
    graph_row, xs, eis, eas, mols = [], [], [], [], []
    for i, p in enumerate(parsed):
        if p.status != STATUS_OK:
            continue
        try:
            g = mol_to_arrays(p.mol, p.known)  # SDF records: nothing known (stereo from coordinates)
        except Exception as exc:  # defensive: a featurizer bug must not lose the row
            status[i], reason[i] = "invalid", f"featurization failed: {exc}".splitlines()[0]
            continue
        graph_row.append(i)
        xs.append(g.x)
        eis.append(g.edge_index)
        eas.append(g.edge_attr)
        mols.append(p.mol)
    atom_counts = np.array([len(x) for x in xs], dtype=np.int64)
    edge_counts = np.array([e.shape[1] for e in eis], dtype=np.int64)
    descriptors = None
    if settings.descriptors:
        descriptors = compute_descriptor_matrix(mols, settings.descriptor_names)
    return FeaturizedDataset(
        table=chunk.frame,
        smiles_col=chunk.smiles_col,
        status=status,
        reason=reason,
        settings=settings,
        graph_row=np.asarray(graph_row, dtype=np.int64),
        x=np.concatenate(xs) if xs else np.zeros((0, ATOM_DIM), np.float32),
        edge_index=np.concatenate(eis, axis=1) if eis else np.zeros((2, 0), np.int64),
        edge_attr=np.concatenate(eas) if eas else np.zeros((0, BOND_DIM), np.float32),
        atom_ptr=np.concatenate([[0], np.cumsum(atom_counts)]).astype(np.int64),
        edge_ptr=np.concatenate([[0], np.cumsum(edge_counts)]).astype(np.int64),
        descriptors=descriptors,
    )
