"""A model file's metadata, read without importing torch.

A model file (:mod:`scoremol.checkpoint`) is a ``torch.save`` zip whose ``data.pkl`` holds
one JSON string beside the weights. Loading the model needs torch, which takes over a
second to import; knowing which features it wants does not, and lets featurization start
while torch is still loading (:mod:`scoremol.head_start`). Only the JSON is kept: every
class the pickle names is replaced by an inert stub, so nothing in the file is executed.
:func:`scoremol.checkpoint.load_model` still validates the whole file before any use.
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

from scoremol.dataset import FeaturizerSettings, network_featurizer

#: A larger ``data.pkl`` is not one of ours (ours are a few hundred KB: weights live beside it).
MAX_PICKLE_BYTES = 64 * 2**20


def _stub(*args: object, **kwargs: object) -> None:
    return None


class _MetaOnlyUnpickler(pickle.Unpickler):
    """Rebuilds plain containers and strings; tensors and any named class become None."""

    def find_class(self, module: str, name: str):  # noqa: D102 - see the class docstring
        return dict if (module, name) == ("collections", "OrderedDict") else _stub

    def persistent_load(self, pid: object) -> None:  # tensor storages live outside data.pkl
        return None


def read_model_meta(path: str | Path) -> dict:
    """The JSON metadata of the model file at ``path``; ``ValueError`` if it has none."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n == "data.pkl" or n.endswith("/data.pkl")]
            if len(names) != 1 or archive.getinfo(names[0]).file_size > MAX_PICKLE_BYTES:
                raise ValueError("no single data.pkl of a plausible size")
            payload = _MetaOnlyUnpickler(io.BytesIO(archive.read(names[0]))).load()
        meta = json.loads(payload["meta"])
    except Exception as exc:  # any malformed file: the caller just does without
        raise ValueError(f"{path}: no readable scoremol metadata ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: no readable scoremol metadata")
    return meta


def prediction_featurizer(meta: dict, network_only: bool = False) -> FeaturizerSettings:
    """The features a model described by ``meta`` will ask for when predicting
    (as :meth:`scoremol.trained.TrainedModel.without_tree` when ``network_only``)."""
    settings = FeaturizerSettings.from_dict(meta["featurizer"])
    if network_only and meta.get("tree") is not None:
        settings = network_featurizer(settings, bool(meta["model_config"].get("use_descriptors")),
                                      meta.get("descriptor_columns"))
    return settings
