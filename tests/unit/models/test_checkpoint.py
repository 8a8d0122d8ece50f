"""Model files: exact round trip, safe loading, one-line errors for every broken file."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from scoremol.errors import ScoremolError
from scoremol.models.checkpoint import load_model, save_model


def test_round_trip_gives_identical_predictions(tiny_model, esol_data):
    model, path = tiny_model
    loaded = load_model(path)
    rows = np.arange(100, 120)
    assert np.array_equal(model.predict(esol_data, ids=rows).mean, loaded.predict(esol_data, ids=rows).mean)
    assert loaded.model_config == model.model_config
    assert loaded.featurizer == model.featurizer
    assert loaded.target_names == model.target_names
    assert len(loaded.members) == 2 and loaded.members[0].history == model.members[0].history
    assert loaded.metrics["parameters"] == model.metrics["parameters"]


def test_file_holds_only_plain_data(tiny_model):
    _, path = tiny_model
    raw = torch.load(path, weights_only=True)
    meta = json.loads(raw["meta"])
    assert meta["format"] == "scoremol-model" and "scoremol_version" in meta
    assert {"model_config", "featurizer", "target_scaler", "members", "train_config"} <= set(meta)


def test_truncated_and_corrupt_files(tiny_model, tmp_path):
    _, path = tiny_model
    data = path.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ScoremolError, match="not a readable scoremol model .corrupt, truncated"):
        load_model(truncated)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(os.urandom(2048))
    with pytest.raises(ScoremolError, match="not a readable scoremol model"):
        load_model(garbage)
    with pytest.raises(ScoremolError, match="model file not found"):
        load_model(tmp_path / "absent.pt")


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch " + os.environ["EVIL_MARKER"],))


def test_pickled_code_is_never_executed(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("EVIL_MARKER", str(marker))
    evil = tmp_path / "evil.pt"
    torch.save({"meta": "{}", "weights": [_Evil()]}, evil)
    with pytest.raises(ScoremolError, match="not a scoremol model"):
        load_model(evil)
    assert not marker.exists()


def test_newer_version_and_other_files(tiny_model, tmp_path, esol_data):
    model, path = tiny_model
    raw = torch.load(path, weights_only=True)
    meta = json.loads(raw["meta"])
    meta["format_version"] = 99
    meta["scoremol_version"] = "9.0.0"
    newer = tmp_path / "newer.pt"
    torch.save({"meta": json.dumps(meta), "weights": raw["weights"]}, newer)
    with pytest.raises(ScoremolError, match=r"written by scoremol 9.0.0.*upgrade"):
        load_model(newer)
    features = tmp_path / "features.pt"
    esol_data.save(features)
    with pytest.raises(ScoremolError, match="not a scoremol model"):
        load_model(features)
    meta["format_version"] = 1
    meta["model_config"]["hidden"] = 32  # weights no longer match
    mismatch = tmp_path / "mismatch.pt"
    torch.save({"meta": json.dumps(meta), "weights": raw["weights"]}, mismatch)
    with pytest.raises(ScoremolError, match="weights do not match"):
        load_model(mismatch)


def test_save_is_atomic(tiny_model, tmp_path, monkeypatch):
    model, _ = tiny_model
    target = tmp_path / "m.pt"
    target.write_bytes(b"previous")

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", boom)
    with pytest.raises(KeyboardInterrupt):
        save_model(model, target)
    assert target.read_bytes() == b"previous" and sorted(p.name for p in tmp_path.iterdir()) == ["m.pt"]


def test_metadata_reads_without_torch_as_load_model_sees_it(tiny_model, tmp_path):
    from scoremol.models.metadata import read_metadata
    from scoremol.pretrained import bundled_model_path

    model, path = tiny_model
    meta = read_metadata(path)
    assert meta["featurizer"] == model.featurizer.to_dict() and meta["targets"] == model.target_names
    fast = bundled_model_path("fast")
    assert read_metadata(fast)["featurizer"] == load_model(fast).featurizer.to_dict()
    (tmp_path / "text.pt").write_text("not a model")
    zipped = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2), "note": "meta"}, zipped)  # 'meta' as a value, not a key
    assert read_metadata(tmp_path / "text.pt") is None and read_metadata(zipped) is None
    assert read_metadata(tmp_path / "missing.pt") is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["model_config"].update(steps=10**9), "steps must be an integer in"),
        (lambda m: m["model_config"].update(hidden=10**6), "hidden must be at most"),
        (lambda m: m.update(targets=[]), "targets and their scaler do not match"),
        (lambda m: m["target_scaler"].update(std=[0.0]), "positive spreads"),
        (lambda m: m["target_scaler"].update(mean=[float("nan")]), "finite means"),
    ],
)
def test_a_hand_edited_model_file_is_refused_before_any_work(tiny_model, tmp_path, edit, message):
    """A file's numbers bound what one molecule costs (a billion steps would never end) and
    what a prediction means: they are checked on loading."""
    _, path = tiny_model
    raw = torch.load(path, weights_only=True)
    meta = json.loads(raw["meta"])
    edit(meta)
    edited = tmp_path / "edited.pt"
    torch.save({**raw, "meta": json.dumps(meta)}, edited)
    with pytest.raises(ScoremolError, match=message):
        load_model(edited)


def test_a_domain_of_another_width_is_refused(tmp_path):
    from scoremol.pretrained import bundled_model_path

    raw = torch.load(bundled_model_path("esol-fast"), weights_only=True)  # a small calibrated model
    edited = tmp_path / "edited.pt"
    torch.save({**raw, "domain_reference": raw["domain_reference"][:, :3]}, edited)
    with pytest.raises(ScoremolError, match="domain's embeddings do not match its networks"):
        load_model(edited)


def test_a_folder_is_no_model_file(tmp_path):
    with pytest.raises(ScoremolError, match="is a folder, not a model file"):
        load_model(tmp_path)
