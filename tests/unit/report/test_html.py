"""The HTML report without a browser: what goes into the page, and that data stays data."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from scoremol.report.html import Neighbour, ReportSummary, ReportTask, embed_json, select_rows, write_report

XSS_NAME = "<img src=x onerror=alert(1)>"
SCRIPT_NAME = "</script><script>alert(2)</script>"
TASKS = [ReportTask("logS", "log10(mol/L)"), ReportTask("logD", "log10 ratio")]


def predictions(n: int = 6) -> pd.DataFrame:
    """A small frame shaped like ``scoremol predict`` output (two tasks, threshold on logS)."""
    rng = np.random.default_rng(0)
    pred = rng.normal(-3, 1.5, n)
    frame = pd.DataFrame(
        {
            "smiles": ["CCO", "c1ccccc1", "CC(=O)O", "Clc1ccccc1", "c1ccc2ccccc2c1", "CCN"][:n] * (n // 6 or 1),
            "name": [f"mol{i}" for i in range(n)],
            "batch": ["b1"] * n,
        }
    )
    frame["logS_pred"], frame["logD_pred"] = pred, pred / 2
    frame["logS_std"], frame["logD_std"] = 0.1, 0.2
    frame["logS_lo"], frame["logS_hi"] = pred - 1, pred + 1
    frame["logS_p_below"] = 0.3
    frame["logD_lo"], frame["logD_hi"] = pred / 2 - 1, pred / 2 + 1
    frame["similarity"], frame["domain"], frame["status"], frame["reason"] = 0.6, "in", "ok", ""
    return frame


def with_bad_rows(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.loc[0, ["smiles", "name", "status", "reason"]] = ["C1CC", XSS_NAME, "invalid", "invalid SMILES <b>"]
    frame.loc[0, ["logS_pred", "logS_lo", "logS_hi", "logD_pred", "similarity"]] = np.nan
    frame.loc[0, "domain"] = ""
    frame.loc[1, ["name", "domain", "reason"]] = [SCRIPT_NAME, "out", "far from the training data & more"]
    return frame


def page_data(path) -> dict:
    text = path.read_text()
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert match, "no data element"
    return json.loads(match.group(1))


def test_embed_json_escapes_markup_characters():
    text = embed_json({"name": SCRIPT_NAME, "x": "a & b <!-- c -->"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": SCRIPT_NAME, "x": "a & b <!-- c -->"}


def test_report_keeps_names_as_data_not_markup(tmp_path):
    path = tmp_path / "report.html"
    write_report(path, with_bad_rows(predictions()), smiles_col="smiles", name_col="name", tasks=TASKS)
    text = path.read_text()
    assert XSS_NAME not in text and SCRIPT_NAME not in text  # only the escaped JSON form
    assert text.count("</script>") == 2  # the data element and the page script, nothing else
    rows = page_data(path)["rows"]
    assert rows[0]["name"] == XSS_NAME and rows[1]["name"] == SCRIPT_NAME
    assert "innerHTML" not in text
    # no address the page could load: only XML namespace names (never fetched) mention http
    assert not re.search(r"(src|href|url)\s*[=(]\s*['\"]?(https?:|//)", text, re.I)


def test_report_content_summary_and_invalid_rows(tmp_path):
    path = tmp_path / "report.html"
    summary = write_report(
        path, with_bad_rows(predictions()), smiles_col="smiles", name_col="name", tasks=TASKS, threshold={"logS": -4}
    )
    data = page_data(path)
    assert (summary.rows, summary.ok, summary.failed, summary.out_of_domain, summary.shown) == (6, 5, 1, 1, 6)
    assert summary.bytes == path.stat().st_size
    assert data["summary"]["histogram"]["counts"] and sum(data["summary"]["histogram"]["counts"]) == 5
    assert data["tasks"][0]["threshold"] == -4 and data["tasks"][0]["has_p"] and not data["tasks"][1]["has_p"]
    assert data["extra"] == ["batch"]
    invalid = data["rows"][0]
    assert invalid["status"] == "invalid" and invalid["pic"] is None and invalid["reason"] == "invalid SMILES <b>"
    assert invalid["v"][0][0] is None  # NaN travels as null
    assert data["pics"][data["rows"][2]["pic"]].startswith("<svg")
    assert "nb" not in data["rows"][2] and "contrib" not in data["rows"][2]


def test_neighbours_and_contributions_reach_the_page(tmp_path):
    path = tmp_path / "report.html"
    near = {2: [Neighbour("CC(=O)OC", 0.8, {"logS": -0.5}, "methyl acetate"), Neighbour("CCC(=O)O", 0.7)] * 2}
    write_report(
        path,
        predictions(),
        smiles_col="smiles",
        name_col="name",
        tasks=TASKS,
        neighbours=near,
        contributions={2: [0.1, -0.2, 0.3, 0.4]},
    )
    data = page_data(path)
    row = data["rows"][2]
    assert len(row["nb"]) == 3 and row["nb"][0]["values"] == [["logS", -0.5]]
    # a structure drawn once however often it appears: methyl acetate twice here, one picture
    assert row["nb"][0]["pic"] == row["nb"][2]["pic"] != row["nb"][1]["pic"]
    assert len(data["pics"]) == len(set(data["pics"])) and data["pics"][row["nb"][0]["pic"]].startswith("<svg")
    assert row["contrib"]["png"].startswith("data:image/png;base64,") and len(row["contrib"]["atoms"]) == 4


def test_contributions_of_the_wrong_length_are_left_out(tmp_path):
    path = tmp_path / "report.html"
    write_report(path, predictions(), smiles_col="smiles", tasks=TASKS, contributions={2: [0.1]})
    assert "contrib" not in page_data(path)["rows"][2]


def test_select_rows_prefers_failed_then_out_of_domain_then_lowest():
    frame = with_bad_rows(predictions(60))
    kept = select_rows(frame, TASKS, 5)
    assert list(kept) == sorted(kept) and len(kept) == 5
    assert 0 in kept and 1 in kept
    rest = [i for i in kept if i not in (0, 1)]
    others = frame.drop(index=[0, 1])
    assert set(rest) == set(others["logS_pred"].nsmallest(3).index)


def test_large_input_keeps_summary_over_all_rows(tmp_path):
    path = tmp_path / "report.html"
    frame = with_bad_rows(predictions(60))
    summary = write_report(path, frame, smiles_col="smiles", name_col="name", tasks=TASKS, max_rows=10)
    data = page_data(path)
    assert summary.rows == 60 and summary.shown == 10 and len(data["rows"]) == 10
    assert data["summary"]["rows"] == 60 and data["summary"]["shown"] == 10
    assert sum(data["summary"]["histogram"]["counts"]) == 59


def test_summaries_merge_like_the_whole():
    frame = with_bad_rows(predictions(60))
    whole = ReportSummary.of(frame, TASKS)
    parts = ReportSummary.of(frame.iloc[:25], TASKS).merge(ReportSummary.of(frame.iloc[25:], TASKS))
    assert (parts.rows, parts.ok, parts.failed, parts.out_of_domain, parts.statuses) == (
        whole.rows,
        whole.ok,
        whole.failed,
        whole.out_of_domain,
        whole.statuses,
    )
    np.testing.assert_array_equal(np.sort(parts.first_task), np.sort(whole.first_task))


def test_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("old")
    import scoremol.report.html as html_module

    def boom(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(html_module, "render_page", boom)
    with pytest.raises(RuntimeError):
        write_report(path, predictions(), smiles_col="smiles", tasks=TASKS)
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_structures_keep_their_styles_as_classes():
    """Each inline style RDKit repeats becomes one class rule: the same drawing, fewer bytes."""
    import re

    from scoremol.report.drawing import structure_svg

    svg = structure_svg("CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21")  # diazepam: N, O, Cl coloured
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>") and "style='" not in svg
    rules = dict(re.findall(r"\.(s\d+)\{([^}]*)\}", svg))
    used = set(re.findall(r"class='(s\d+)'", svg))
    assert used == set(rules) and any("stroke:#00CC00" in r for r in rules.values())  # chlorine's bond colour
    assert len(svg) < 6000  # RDKit's own text is about 11,300 characters
