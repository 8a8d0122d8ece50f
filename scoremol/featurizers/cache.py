"""Featurize an input file once: a cache keyed by input content AND featurizer settings.

The key hashes the input bytes, the reading options, every featurizer setting, the
featurizer fingerprint (a digest of the feature vocabularies and version) and the RDKit
version. Changing any of them changes the key, so stale features are never reused.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from scoremol.data.read import read_input
from scoremol.data.registry import cache_dir, sha256_file
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FORMAT_VERSION, FeaturizedDataset, FeaturizerSettings
from scoremol.featurizers.molecule import PARSE_RULES_VERSION
from scoremol.featurizers.parallel import featurize_all


def cache_key(source_sha256: str, smiles_col: str | None, fmt: str | None, settings: FeaturizerSettings) -> str:
    spec = {
        "source": source_sha256,
        "smiles_col": smiles_col,
        "fmt": fmt,
        "settings": settings.to_dict(),
        "format_version": FORMAT_VERSION,
        "parse_rules": PARSE_RULES_VERSION,  # which rows are valid can change without the features changing
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:32]


def features_cache_dir() -> Path:
    return cache_dir() / "features"


def is_features_file(path: str) -> bool:
    """True for a file written by ``scoremol featurize`` (a zip archive from torch.save)."""
    if path == "-" or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(4) == b"PK\x03\x04"


def featurize_input(
    path: str,
    settings: FeaturizerSettings,
    smiles_col: str | None = None,
    fmt: str | None = None,
    use_cache: bool = True,
    workers: int | None = None,
) -> tuple[FeaturizedDataset, bool]:
    """Featurize ``path`` (or load it, if it is already a features file).

    Large inputs are featurized on ``workers`` processes (default: every CPU available);
    the result is the same either way. Returns the data set and whether it came from the cache.
    """
    if is_features_file(path):
        data = FeaturizedDataset.load(path)
        if not data.settings.compatible_with_code():
            raise ScoremolError(f"{path} was featurized by a different featurizer version; featurize it again")
        return data, True
    source = sha256_file(path) if path != "-" else ""
    cached = None
    if use_cache and source:
        cached = features_cache_dir() / f"{cache_key(source, smiles_col, fmt, settings)}.pt"
        if cached.is_file():
            try:
                return FeaturizedDataset.load(cached), True
            except ScoremolError:
                cached.unlink(missing_ok=True)  # corrupt cache entry: rebuild it
    chunk = read_input(path, smiles_col, fmt)
    data = featurize_all(chunk, settings, workers)
    data.source_sha256 = source
    if cached is not None:
        try:
            data.save(cached)
        except OSError:
            pass  # a read-only cache must not break featurization
    return data, False
