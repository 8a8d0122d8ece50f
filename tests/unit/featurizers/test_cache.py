"""The features cache is keyed by content AND settings: a changed featurizer never reuses it."""

from __future__ import annotations

import numpy as np
import torch

from scoremol.featurizers import graph as F
from scoremol.featurizers.cache import features_cache_dir, featurize_input
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings


def write(tmp_path, text="smiles,y\nCCO,1.0\nc1ccccc1,2.0\nxyz,3\n"):
    path = tmp_path / "mols.csv"
    path.write_text(text)
    return str(path)


def test_second_call_hits_the_cache(tmp_path):
    path = write(tmp_path)
    first, hit1 = featurize_input(path, FeaturizerSettings())
    second, hit2 = featurize_input(path, FeaturizerSettings())
    assert (hit1, hit2) == (False, True)
    assert np.array_equal(first.x, second.x) and second.status == ["ok", "ok", "invalid"]
    assert len(list(features_cache_dir().iterdir())) == 1


def test_featurizer_change_invalidates(tmp_path, monkeypatch):
    path = write(tmp_path)
    featurize_input(path, FeaturizerSettings())
    monkeypatch.setattr(F, "FEATURIZER_VERSION", F.FEATURIZER_VERSION + 1)
    _, hit = featurize_input(path, FeaturizerSettings(fingerprint=F.featurizer_fingerprint()))
    assert hit is False


def test_settings_and_content_changes_invalidate(tmp_path):
    path = write(tmp_path)
    featurize_input(path, FeaturizerSettings())
    assert featurize_input(path, FeaturizerSettings(standardize=False))[1] is False
    assert featurize_input(path, FeaturizerSettings(descriptors=True))[1] is False
    write(tmp_path, "smiles,y\nCCO,1.0\nCCN,2.0\n")
    data, hit = featurize_input(path, FeaturizerSettings())
    assert hit is False and data.num_graphs == 2


def test_corrupt_cache_entry_is_rebuilt(tmp_path):
    path = write(tmp_path)
    featurize_input(path, FeaturizerSettings())
    (entry,) = features_cache_dir().iterdir()
    entry.write_bytes(b"garbage")
    data, hit = featurize_input(path, FeaturizerSettings())
    assert hit is False and data.num_graphs == 2


def test_saved_file_round_trips_with_weights_only(tmp_path):
    data, _ = featurize_input(write(tmp_path), FeaturizerSettings(descriptors=True), use_cache=False)
    out = tmp_path / "f.pt"
    data.save(out)
    raw = torch.load(out, weights_only=True)  # no arbitrary objects inside
    assert isinstance(raw["meta"], str)
    back = FeaturizedDataset.load(out)
    assert back.status == data.status and back.reason == data.reason
    assert np.array_equal(back.descriptors, data.descriptors, equal_nan=True)
    g = back.graph(1)
    assert g.x.shape == (6, F.ATOM_DIM) and g.edge_index.shape == (2, 12)
    assert back.column_values("y").tolist() == [1.0, 2.0]
    # a features file is accepted as input directly
    again, hit = featurize_input(str(out), FeaturizerSettings())
    assert hit is True and again.num_graphs == 2
