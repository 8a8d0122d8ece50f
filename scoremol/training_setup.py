"""Turn command-line choices into training data and validated configs (shared by train and cv)."""

from __future__ import annotations

import numpy as np

from scoremol.cache import featurize_input
from scoremol.dataset import FeaturizedDataset, FeaturizerSettings
from scoremol.datasets import REGISTRY, DatasetInfo, resolve_input
from scoremol.errors import ScoremolError
from scoremol.nn import ModelConfig
from scoremol.train import TrainConfig


def load_training_data(
    input: str, smiles_col: str | None, fmt: str | None, standardize: bool, descriptors: bool,
    descriptor_set: str | None = None,
) -> tuple[FeaturizedDataset, DatasetInfo | None]:
    """Featurize (or load) the training input; also return its registry entry, if any.

    ``descriptor_set`` is a set name ("all", "fast") or comma-separated RDKit names.
    """
    path, entry = resolve_input(input)
    try:
        settings = FeaturizerSettings(standardize=standardize, descriptors=descriptors, descriptor_set=descriptor_set)
    except ValueError as exc:
        raise ScoremolError(f"--descriptor-set: {exc}") from None
    data, _ = featurize_input(path, settings, smiles_col, fmt)
    if descriptors and data.descriptors is not None and data.settings.descriptor_names != settings.descriptor_names:
        data = data.select_descriptors(settings.descriptor_names)  # a features file with more descriptors
    if data.num_rows == 0:
        raise ScoremolError(f"no data rows in {input}")
    if descriptors and data.descriptors is None:
        raise ScoremolError(f"{input} has no descriptors; featurize it with --descriptors")
    if entry is None and data.source_sha256:
        entry = next((d for d in REGISTRY.values() if data.source_sha256 in d.sha256), None)
    return data, entry


def make_configs(data: FeaturizedDataset, targets: list[str], gnn_descriptors: tuple[str, ...] | None = None,
                 **opts) -> tuple[ModelConfig, TrainConfig]:
    """Validated model and training configs; a bad value is a one-line error.

    ``gnn_descriptors`` names the descriptors the network fuses when the data carry more.
    """
    values = np.stack([data.column_values(t) for t in targets], axis=1)  # unknown column: clear error
    labelled = int(np.isfinite(values).any(axis=1).sum())
    if labelled < 2:  # checked here, before any progress display starts
        raise ScoremolError(f"need at least 2 molecules with a numeric target, found {labelled}")
    arch = opts["arch"]
    use_desc = bool(opts["descriptors"]) or arch in ("mlp", "score-mlp")
    if use_desc and data.descriptors is None:
        raise ScoremolError(f"--arch {arch} needs descriptors: use --descriptors")
    try:
        model_config = ModelConfig(
            arch=arch,
            mode="score" if arch == "score-mlp" else opts["mode"],
            dt=opts["dt"],
            steps=opts["steps"],
            integrator=opts["integrator"],
            learnable_dt=opts.get("learnable_dt", False),
            readout=opts["readout"],
            hidden=opts["hidden"],
            dropout=opts["dropout"],
            heads=opts["heads"],
            use_descriptors=use_desc,
            descriptor_dim=(len(gnn_descriptors) if gnn_descriptors is not None else data.descriptors.shape[1])
            if use_desc else 0,
            n_targets=len(targets),
        )
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    train_config = TrainConfig(
        epochs=opts["epochs"],
        batch_size=opts["batch_size"],
        lr=opts["lr"],
        weight_decay=opts["weight_decay"],
        seed=opts["seed"],
        val_fraction=opts["val_fraction"],
        patience=opts["patience"],
        ensemble=opts["ensemble"],
        device=opts["device"],
        catboost_weight=opts.get("blend_catboost", 0.0),
    )
    train_config.validate()
    return model_config, train_config
