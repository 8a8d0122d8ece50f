"""``featurize``: an input made into a reusable features file (and a per-row report)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from scoremol.data.atomic import atomic_write
from scoremol.data.registry import resolve_input
from scoremol.errors import ScoremolError
from scoremol.featurizers.cache import featurize_input
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings
from scoremol.spec import DEFAULTS
from scoremol.training.requests import FeaturizeRequest
from scoremol.training.setup import feature_plan


@dataclass(frozen=True)
class Featurized:
    """A featurized input, how long it took, and whether the cache answered."""

    data: FeaturizedDataset
    seconds: float
    cache_hit: bool
    smiles: list[str]


def featurize_file(input: str, output: Path, request: FeaturizeRequest | None = None) -> Featurized:
    """Featurize ``input`` (by default as the default model reads it), save it to
    ``output`` and, with ``request.report``, write ``row,smiles,status,reason`` for every row."""
    r = request or FeaturizeRequest()
    path, _ = resolve_input(input)
    settings = feature_plan(DEFAULTS).settings  # what the default model reads
    try:
        if r.descriptor_set is not None:
            settings = FeaturizerSettings(descriptors=True, descriptor_set=r.descriptor_set)
    except ValueError as exc:
        raise ScoremolError(f"--descriptor-set: {exc}") from None
    settings = replace(settings, standardize=r.standardize, descriptors=r.descriptors)
    start = time.perf_counter()
    data, hit = featurize_input(path, settings, r.smiles_col, r.fmt, use_cache=r.cache, workers=r.workers)
    seconds = time.perf_counter() - start
    if data.num_rows == 0:
        raise ScoremolError(f"no data rows in {input}")
    if r.strict and data.num_failed:
        first = next(i for i, s in enumerate(data.status) if s != "ok")
        raise ScoremolError(
            f"{data.num_failed} invalid row(s) with --strict; first: row {first + 1}: {data.reason[first]}"
        )
    data.save(output)
    smiles = data.table[data.smiles_col].astype(str).tolist()
    if r.report is not None:
        import pandas as pd

        frame = pd.DataFrame(
            {"row": range(data.num_rows), "smiles": smiles, "status": data.status, "reason": data.reason}
        )
        with atomic_write(r.report, "w", newline="") as handle:
            frame.to_csv(handle, index=False)
    return Featurized(data, seconds, hit, smiles)
