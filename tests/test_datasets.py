"""The named data set registry: local resolution, checksums, offline behaviour."""

from __future__ import annotations

import shutil

import pytest

from scoremol.data import registry as datasets
from scoremol.data.registry import REGISTRY, lookup_by_checksum, resolve, resolve_input, sha256_file
from scoremol.errors import ScoremolError


def test_registry_entries_match_the_shared_files(esol_path):
    for name, info in REGISTRY.items():
        path = esol_path.parent / info.filename
        assert sha256_file(path) in info.sha256, name


def test_resolve_from_scoremol_data(esol_path):
    assert resolve("esol") == esol_path
    assert resolve("ESOL") == esol_path


def test_checksum_mismatch_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "esol.csv").write_text("smiles,measured log solubility in mols per litre\nCCO,1\n")
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path))
    with pytest.raises(ScoremolError, match="checksum mismatch for esol"):
        resolve("esol")


def test_offline_error_says_where_to_put_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path))

    def offline(*args, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(datasets.urllib.request, "urlopen", offline)
    with pytest.raises(ScoremolError, match=r"could not download freesolv.*put freesolv.csv at .*freesolv.csv"):
        resolve("freesolv")


def test_download_is_verified_and_cached(tmp_path, monkeypatch, esol_path):
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path / "nothing"))
    payload = esol_path.read_bytes()

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return payload

    monkeypatch.setattr(datasets.urllib.request, "urlopen", lambda *a, **k: Response())
    path = resolve("esol")
    assert path.parent == datasets.cache_dir() / "data" and sha256_file(path) == REGISTRY["esol"].sha256[0]
    payload = b"tampered"
    path.unlink()
    with pytest.raises(ScoremolError, match="downloaded esol has sha256"):
        resolve("esol")
    assert not path.exists()


def test_local_copy_inherits_target_column(tmp_path, esol_path):
    copy = tmp_path / "my_solubility_data.csv"
    shutil.copy(esol_path, copy)
    info = lookup_by_checksum(copy)
    assert info is not None and info.target_col == "measured log solubility in mols per litre"
    _, info2 = resolve_input(str(copy))
    assert info2 is info
    (tmp_path / "other.csv").write_text("smiles\nCCO\n")
    assert lookup_by_checksum(tmp_path / "other.csv") is None


def test_unknown_name(tmp_path):
    with pytest.raises(ScoremolError, match="input file not found: tox21"):
        resolve_input("tox21")
