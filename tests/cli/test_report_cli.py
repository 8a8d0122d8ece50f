"""`predict --report`, `report` and `explain` from the command line: files, rows, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples.smi"


def page_data(path: Path) -> dict:
    """The JSON the report page renders (its embedded data script)."""
    text = path.read_text()
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert found, "no data in the page"
    return json.loads(found.group(1))


def test_predict_report_leaves_the_output_unchanged_and_holds_every_row(tmp_path):
    _, err, code = run_cli("predict", str(EXAMPLES), "-m", "esol-fast", "-o", str(tmp_path / "plain.csv"))
    assert code == 0, err
    _, err, code = run_cli(
        "predict", str(EXAMPLES), "-m", "esol-fast", "-o", str(tmp_path / "p.csv"), "--report", str(tmp_path / "r.html")
    )
    assert code == 0, err
    assert (tmp_path / "p.csv").read_bytes() == (tmp_path / "plain.csv").read_bytes()
    data = page_data(tmp_path / "r.html")
    rows = pd.read_csv(tmp_path / "p.csv")
    assert len(data["rows"]) == data["summary"]["rows"] == len(rows) == 22
    assert [r["name"] for r in data["rows"]] == rows["name"].tolist()
    assert all("contrib" in r for r in data["rows"]), "every row of a small input gets its atom map"
    assert all(len(r.get("nb", [])) == 3 for r in data["rows"]), "the bundled model carries its training molecules"
    assert "report: " in err and "22 of 22 rows" in err


def test_report_rows_keeps_the_rows_most_worth_a_look(tmp_path):
    src = tmp_path / "in.smi"
    src.write_text(EXAMPLES.read_text() + "not_a_smiles broken\n")
    _, err, code = run_cli(
        "predict", str(src), "-m", "esol-fast", "--report", str(tmp_path / "r.html"), "--report-rows", "5"
    )
    assert code == 0, err
    data = page_data(tmp_path / "r.html")
    assert data["summary"]["rows"] == 23 and data["summary"]["shown"] == 5 and len(data["rows"]) == 5
    assert data["rows"][-1]["status"] == "invalid" and data["rows"][-1]["r"] == 23  # its row number in the input
    shown = [r["v"][0][0] for r in data["rows"] if r["status"] == "ok"]
    every = pd.read_csv(tmp_path / "p.csv") if (tmp_path / "p.csv").exists() else None
    assert every is None and len(shown) == 4  # the four least soluble of the valid rows


def test_report_of_an_existing_output_and_of_a_file_that_is_none(tmp_path):
    run_cli("predict", str(EXAMPLES), "-m", "esol-fast", "-o", str(tmp_path / "p.csv"))
    _, err, code = run_cli("report", str(tmp_path / "p.csv"), "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    data = page_data(tmp_path / "r.html")
    assert len(data["rows"]) == 22 and data["tasks"][0]["label"] == "logS"
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    _, err, code = run_cli("report", str(tmp_path / "other.csv"))
    assert code == 1 and "is not a scoremol predict output" in err and "Traceback" not in err
    (tmp_path / "empty.csv").write_text("")
    _, err, code = run_cli("report", str(tmp_path / "empty.csv"))
    assert code == 1 and "empty.csv is empty" in err and "EmptyDataError" not in err


def test_explain_writes_tables_and_maps_per_molecule_and_keeps_every_row(tmp_path):
    out = tmp_path / "why"
    _, err, code = run_cli("explain", "CCO", "not_a_smiles", "c1ccccc1Cl", "-m", "esol-fast", "-o", str(out))
    assert code == 0 and err.strip().splitlines()[-1].startswith("explained 2/3 molecules"), err
    index = pd.read_csv(out / "explanations.csv", keep_default_na=False)
    assert index["status"].tolist() == ["ok", "invalid", "ok"] and index["reason"][1]
    assert index["files"].tolist() == ["mol0001", "", "mol0003"]
    atoms = pd.read_csv(out / "mol0003.csv")
    assert atoms["element"].tolist() == ["C"] * 6 + ["Cl"]
    record = json.loads((out / "mol0003.json").read_text())
    assert record["prediction"] == pytest.approx(float(index["prediction"][2]))
    assert (out / "mol0001.svg").read_text().lstrip().startswith("<") and (out / "mol0001.png").read_bytes()[
        :4
    ] == b"\x89PNG"


def test_predict_report_with_a_scheduler_is_a_one_line_error(tmp_path):
    _, err, code = run_cli(
        "predict", str(EXAMPLES), "-o", str(tmp_path / "p.csv"), "--scheduler", "local", "--report", "r.html"
    )
    assert code == 1 and "--report applies to single-machine runs" in err
