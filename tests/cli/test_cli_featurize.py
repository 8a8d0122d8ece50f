"""`scoremol featurize`: every row kept, reports, --strict, stdin, one-line errors."""

from __future__ import annotations

from scoremol.featurizers.dataset import FeaturizedDataset
from tests.conftest import run_cli


def test_featurize_esol_keeps_all_rows(tmp_path, esol_path):
    out_file = tmp_path / "esol.pt"
    _, err, code = run_cli("featurize", str(esol_path), "-o", str(out_file))
    assert code == 0, err
    assert "1128/1128 featurized" in err
    data = FeaturizedDataset.load(out_file)
    assert data.num_rows == data.num_graphs == 1128


def test_featurize_bad_rows_with_reasons_and_strict(tmp_path):
    src = tmp_path / "bad.csv"
    src.write_text("smiles,y\nCCO,1\n\nnot_a_smiles,2\n[Na+].CC(=O)[O-],3\nc1ccccc1,4\n")
    report = tmp_path / "report.csv"
    _, err, code = run_cli("featurize", str(src), "-o", str(tmp_path / "f.pt"), "--report", str(report))
    assert code == 0, err
    assert "3/5 featurized" in err and "invalid SMILES" in err
    lines = report.read_text().splitlines()
    assert len(lines) == 6
    assert lines[2].endswith("empty,empty SMILES")
    assert "kept 1 of 2 fragments" in lines[4]
    _, err, code = run_cli("featurize", str(src), "-o", str(tmp_path / "g.pt"), "--strict")
    assert code == 1 and "with --strict" in err and "Traceback" not in err
    assert "first: row 2: empty SMILES" in err  # the second data row, numbered as train's messages number rows
    assert not (tmp_path / "g.pt").exists()


def test_featurize_from_stdin(tmp_path):
    out_file = tmp_path / "s.pt"
    _, err, code = run_cli("featurize", "-", "-o", str(out_file), stdin="CCO ethanol\nO water\n")
    assert code == 0, err
    data = FeaturizedDataset.load(out_file)
    assert data.num_graphs == 2 and data.table["name"].tolist() == ["ethanol", "water"]


def test_one_line_errors_without_traceback(tmp_path):
    _, err, code = run_cli("featurize", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x.pt"))
    assert code == 1 and err.strip().count("\n") == 0 and "input file not found" in err
    (tmp_path / "a.csv").write_text("id,structure\n1,CCO\n")
    _, err, code = run_cli("featurize", str(tmp_path / "a.csv"), "-o", str(tmp_path / "x.pt"))
    assert code == 1 and "name it with --smiles-col (smiles_col in Python)" in err
    assert "columns are: id, structure" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    _, err, code = run_cli("-v", "featurize", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x.pt"))
    assert code != 0 and "Traceback" in err
