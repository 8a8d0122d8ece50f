"""The named data set registry: local resolution, checksums, offline behaviour."""

from __future__ import annotations

import shutil

import pytest

from scoremol.data import registry as datasets
from scoremol.data.registry import (
    REGISTRY,
    SHIPPED_DATA,
    lookup_by_checksum,
    resolve,
    resolve_input,
    sha256_file,
    target_label,
)
from scoremol.errors import ScoremolError
from tests.conftest import ESOL_TARGET, ROOT


@pytest.fixture
def nothing_shipped(tmp_path, monkeypatch):
    """Neither $SCOREMOL_DATA nor the repository's data/ holds the files (a wheel install)."""
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path / "nothing"))
    monkeypatch.setattr(datasets, "SHIPPED_DATA", tmp_path / "not-shipped")


def test_registry_entries_match_the_shipped_files():
    for name, info in REGISTRY.items():
        path = SHIPPED_DATA / info.filename
        assert path.is_file(), f"{name} is not shipped in data/"
        assert sha256_file(path) in info.sha256, name


def test_shipped_data_is_the_repositorys_data_folder():
    assert SHIPPED_DATA == ROOT / "data"


def test_resolve_from_scoremol_data(esol_path):
    assert resolve("esol") == esol_path
    assert resolve("ESOL") == esol_path


def test_without_scoremol_data_the_repositorys_copy_is_used(monkeypatch):
    monkeypatch.delenv("SCOREMOL_DATA", raising=False)

    def no_network(*args, **kwargs):
        raise AssertionError("a shipped data set must not be downloaded")

    monkeypatch.setattr(datasets.urllib.request, "urlopen", no_network)
    assert resolve("esol") == ROOT / "data" / "esol.csv"
    assert resolve("aqsoldb") == ROOT / "data" / "aqsoldb.csv"  # no URL: only the shipped copy exists
    path, entry = resolve_input("esol")
    assert path == str(ROOT / "data" / "esol.csv") and entry is REGISTRY["esol"]


def test_scoremol_data_wins_over_the_shipped_copy(tmp_path, monkeypatch, esol_path):
    shutil.copy(esol_path, tmp_path / "esol.csv")
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path))
    assert resolve("esol") == tmp_path / "esol.csv"


def test_checksum_mismatch_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "esol.csv").write_text("smiles,measured log solubility in mols per litre\nCCO,1\n")
    monkeypatch.setenv("SCOREMOL_DATA", str(tmp_path))
    with pytest.raises(ScoremolError, match="checksum mismatch for esol"):
        resolve("esol")


def test_offline_error_says_where_to_put_the_file(tmp_path, monkeypatch, nothing_shipped):
    def offline(*args, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(datasets.urllib.request, "urlopen", offline)
    with pytest.raises(ScoremolError, match=r"could not download freesolv.*put freesolv.csv at .*freesolv.csv"):
        resolve("freesolv")


def test_a_set_without_a_url_is_never_downloaded(monkeypatch, nothing_shipped):
    def no_network(*args, **kwargs):
        raise AssertionError("aqsoldb has no public copy to download")

    monkeypatch.setattr(datasets.urllib.request, "urlopen", no_network)
    with pytest.raises(ScoremolError, match="data set aqsoldb not found locally; put aqsoldb.csv at"):
        resolve("aqsoldb")
    with pytest.raises(ScoremolError, match="not found locally"):
        resolve("esol", download=False)


def test_download_is_verified_and_cached(monkeypatch, esol_path, nothing_shipped):
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
    assert resolve("esol") == path  # the cached copy is found next time
    payload = b"tampered"
    path.unlink()
    with pytest.raises(ScoremolError, match="downloaded esol has sha256"):
        resolve("esol")
    assert not path.exists()


def test_local_copy_inherits_target_column(tmp_path, esol_path):
    copy = tmp_path / "my_solubility_data.csv"
    shutil.copy(esol_path, copy)
    info = lookup_by_checksum(copy)
    assert info is not None and info.target_col == ESOL_TARGET
    _, info2 = resolve_input(str(copy))
    assert info2 is info
    (tmp_path / "other.csv").write_text("smiles\nCCO\n")
    assert lookup_by_checksum(tmp_path / "other.csv") is None


def test_unknown_name():
    with pytest.raises(ScoremolError, match="input file not found: tox21"):
        resolve_input("tox21")
    with pytest.raises(ScoremolError, match="unknown data set 'tox21'; known: esol"):
        resolve("tox21")


def test_target_labels_name_prediction_columns():
    assert target_label(ESOL_TARGET) == "logS" and target_label("Solubility", "log10(mol/L)") == "logS"
    assert target_label("expt", "kcal/mol") == "dG_hydration" and target_label("exp", "log10 ratio (logD7.4)") == "logD"
    # a one-word column of a user's file is not the data set's without its units
    assert target_label("Solubility") == "Solubility" and target_label("exp", "") == "exp"
    assert target_label("my value (uM)") == "my_value_uM"  # shell-safe
    assert target_label("%%") == "target"


def test_pharmabench_water_solubility_is_read_in_mol_per_litre_like_aqsoldb():
    import numpy as np
    import pandas as pd

    """PharmaBench's file holds log10(nmol/L); read through the registry it is log10(mol/L),
    so a model learning it beside AqSolDB sees one unit for one property."""

    from scoremol.training.inputs import labelled_sources

    entry = REGISTRY["pharmabench-water-sol"]
    assert entry.units == REGISTRY["aqsoldb"].units == "log10(mol/L)"
    read = labelled_sources(["pharmabench-water-sol"])
    values = pd.to_numeric(read.sources[0].chunk.frame[entry.target_col])
    raw = pd.read_csv(resolve("pharmabench-water-sol")).value
    assert np.allclose(values.to_numpy(), raw.to_numpy() - 9.0)
    assert read.units == ["log10(mol/L)"] and read.hashes[0][2] == -9.0


def test_an_offset_keeps_text_that_is_not_a_number_for_its_row_reason():
    import pandas as pd

    from scoremol.training.inputs import shifted

    out = shifted(pd.Series(["1.5", "n/a", " 2"]), -9.0)
    assert out.tolist() == ["-7.5", "n/a", "-7.0"]


def test_biogen_assays_besides_solubility_have_short_labels_and_units():
    from scoremol.training.inputs import labelled_sources

    hlm = "LOG HLM_CLint (mL/min/kg)"
    assert target_label(hlm) == "logHLM_CLint"
    assert target_label("LOG MDR1-MDCK ER (B-A/A-B)") == "logMDR1_ER"
    read = labelled_sources(["biogen"], [hlm, "LOG SOLUBILITY PH 6.8 (ug/mL)"])
    assert read.units == ["log10(mL/min/kg)", "log10(ug/mL)"]
