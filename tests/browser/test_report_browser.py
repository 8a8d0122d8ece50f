"""The HTML report in a real browser: Debian's headless Chromium driven by Playwright.

``playwright install`` downloads a browser (and fails offline), so these tests use the
system Chromium at ``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs
it) and are skipped with a reason where it is missing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoremol.report.html import Neighbour, ReportTask, write_report

CHROMIUM = Path(os.environ.get("SCOREMOL_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
XSS_NAME = "<img src=x onerror=alert(1)>"
SCRIPT_NAME = "</script><script>alert(2)</script>"
TASKS = [ReportTask("logS", "log10(mol/L)"), ReportTask("logD", "log10 ratio")]
ROWS = 120
SMILES = ["CCO", "c1ccccc1", "CC(=O)O", "Clc1ccccc1", "c1ccc2ccccc2c1", "CCN", "CC(C)=O", "OCC(O)CO"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")


def frame(n: int = ROWS) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    pred = np.round(rng.normal(-3, 1.5, n), 3)
    f = pd.DataFrame({"smiles": [SMILES[i % len(SMILES)] for i in range(n)], "name": [f"mol{i:04d}" for i in range(n)]})
    f["logS_pred"], f["logD_pred"] = pred, pred / 2
    f["logS_std"], f["logD_std"] = 0.1, 0.2
    f["logS_lo"], f["logS_hi"], f["logS_p_below"] = pred - 1, pred + 1, 0.3
    f["logD_lo"], f["logD_hi"] = pred / 2 - 1, pred / 2 + 1
    f["similarity"], f["domain"], f["status"], f["reason"] = 0.6, "in", "ok", ""
    f.loc[0, ["smiles", "name", "status", "reason", "domain"]] = ["C1CC", XSS_NAME, "invalid", "invalid SMILES", ""]
    f.loc[0, ["logS_pred", "logS_lo", "logS_hi", "logD_pred", "logD_lo", "logD_hi", "similarity"]] = np.nan
    f.loc[1, ["name", "domain", "reason"]] = [SCRIPT_NAME, "out", "<b>far</b> from the training data"]
    f.loc[2:9, "domain"] = "out"
    return f


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    near = {3: [Neighbour("CC(=O)OC", 0.81, {"logS": -0.4}, "methyl acetate"), Neighbour("CCC(=O)O", 0.7)]}
    contributions = {3: [-0.4, -0.3, 0.1, 0.2, 0.2, 0.1, -0.1]}  # chlorobenzene, RDKit atom order
    write_report(
        path,
        frame(),
        smiles_col="smiles",
        name_col="name",
        tasks=TASKS,
        threshold={"logS": -4.0},
        neighbours=near,
        contributions=contributions,
        title="browser test",
    )
    return path


class Watched:
    """A page with every console message, page error, dialog and request recorded."""

    def __init__(self, page, url: str):
        self.page, self.url = page, url
        self.console, self.errors, self.dialogs, self.requests = [], [], [], []
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        if url != self.url:
            self.requests.append(url)
            route.abort()
        else:
            route.continue_()

    def open(self) -> float:
        start = time.perf_counter()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")
        return time.perf_counter() - start

    def rows(self):
        return self.page.locator("#body tr.row")

    def names(self) -> list[str]:
        return self.page.locator("#body tr.row td:nth-child(3)").all_text_contents()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, report):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    watched = Watched(context.new_page(), report.resolve().as_uri())
    watched.open()
    yield watched
    context.close()


def test_opens_with_every_row_counted_and_paged(page):
    assert page.rows().count() == 50
    assert page.page.locator("#page-info").text_content() == f"page 1 of 3 \u00b7 {ROWS} rows"
    counts = page.page.locator("#counts .count b").all_text_contents()
    assert counts == [str(ROWS), str(ROWS - 1), "1", "9"]  # rows, ok, failed, out of domain
    assert page.page.locator("#hist-svg rect").count() > 0 and page.page.locator("#hist-threshold").count() == 1
    page.page.click("#next")
    page.page.click("#next")
    assert page.rows().count() == ROWS - 100 and page.page.locator("#next").is_disabled()
    page.page.click("#prev")
    assert page.rows().first.get_attribute("data-row") == "51"


def test_sorting_by_a_prediction_column(page):
    header = page.page.locator("#head th", has_text="logS").first
    header.click()
    values = frame()["logS_pred"]
    first = page.page.locator("#body tr.row").first.get_attribute("data-row")
    assert int(first) - 1 == int(values.idxmin())
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    first = page.page.locator("#body tr.row").first.get_attribute("data-row")
    assert int(first) - 1 == int(values.idxmax()) and header.get_attribute("aria-sort") == "descending"
    page.page.locator("#head th", has_text="Name").click()
    names = [n for n in page.names() if n.startswith("mol")]
    assert names == sorted(names) and names[0] == "mol0002"  # rows 0 and 1 carry the hostile names


def test_text_filter_and_domain_status_filters(page):
    page.page.fill("#filter", "mol001")
    assert page.names() == [f"mol{i:04d}" for i in range(10, 20)]
    page.page.fill("#filter", "")
    page.page.select_option("#domain-filter", "out")
    assert page.rows().count() == 9
    page.page.select_option("#domain-filter", "")
    page.page.select_option("#status-filter", "invalid")
    assert page.rows().count() == 1 and page.names() == [XSS_NAME]
    page.page.fill("#filter", "no such molecule")
    assert page.rows().count() == 0 and "No row matches" in page.page.locator("#body").text_content()


def test_hostile_names_are_shown_literally_and_run_nothing(page):
    names = page.names()
    assert names[0] == XSS_NAME and names[1] == SCRIPT_NAME
    assert page.page.locator("#body img[src='x']").count() == 0
    reason = page.page.locator("#body tr.row").nth(1).locator("td.reason").text_content()
    assert reason == "<b>far</b> from the training data"
    invalid = page.page.locator("#body tr.row").first
    assert invalid.locator("td.structure img").count() == 0 and "invalid SMILES" in invalid.text_content()
    page.rows().nth(1).click()
    assert page.page.locator("#detail h2").text_content() == SCRIPT_NAME
    page.page.wait_for_timeout(200)
    assert page.dialogs == [] and page.errors == []


def test_detail_panel_with_neighbours_and_atom_map(page):
    assert page.page.locator("#detail").is_hidden()
    page.rows().nth(3).click()
    detail = page.page.locator("#detail")
    assert detail.is_visible()
    assert detail.locator("h2").text_content() == "mol0003"
    assert detail.locator(".neighbour").count() == 2
    assert "methyl acetate" in detail.locator(".neighbour").first.text_content()
    assert "measured logS -0.40" in detail.locator(".neighbour").first.text_content()
    assert detail.locator("img.map").count() == 1
    assert detail.locator("img.map").evaluate("i => i.complete && i.naturalWidth > 0")
    page.page.click("#close")
    assert detail.is_hidden()
    page.rows().nth(4).click()  # no neighbours, no map: no panel sections and no error
    assert detail.locator(".neighbour").count() == 0 and detail.locator("img.map").count() == 0
    assert page.errors == []


def test_structures_render_as_images(page):
    images = page.page.locator("#body td.structure img")
    assert images.count() == 49  # every row but the invalid one
    assert images.first.evaluate("i => i.complete && i.naturalWidth > 0")


def test_no_request_leaves_the_page_and_console_is_clean(page):
    page.rows().nth(3).click()
    page.page.click("#next")
    page.page.wait_for_timeout(200)
    assert page.requests == []
    assert [m for m in page.console if m[0] in ("error", "warning")] == []
    assert page.errors == [] and page.dialogs == []


def test_a_1000_row_report_lists_1000_rows_and_says_so(browser, tmp_path):
    """How fast it opens is measured by bench/report_open.py (tests assert no wall-clock time)."""
    path = tmp_path / "big.html"
    big = frame(1200)
    summary = write_report(path, big, smiles_col="smiles", name_col="name", tasks=TASKS, max_rows=1000)
    assert summary.shown == 1000
    context = browser.new_context()
    watched = Watched(context.new_page(), path.resolve().as_uri())
    watched.open()
    assert "1,000 of 1,200 rows" in watched.page.locator("#note").text_content()
    assert watched.page.locator("#page-info").text_content().endswith("1000 rows")
    context.close()


def test_a_yes_no_task_shows_its_probability_as_a_bar_with_its_set(browser, tmp_path):
    f = pd.DataFrame({"smiles": SMILES * 2, "name": [f"m{i}" for i in range(16)]})
    f["bbb_prob"] = np.linspace(0.05, 0.95, 16)
    f["bbb_class"] = np.where(f.bbb_prob >= 0.5, "yes", "no")
    f["bbb_set"] = np.where(f.bbb_prob > 0.8, "{yes}", np.where(f.bbb_prob < 0.2, "{no}", "{no,yes}"))
    f["S_ugml"] = 1234.5678901234567  # a --ugml column: printed to 4 significant digits, not 16
    f["similarity"], f["domain"], f["status"], f["reason"] = 0.6, "in", "ok", ""
    path = tmp_path / "cls.html"
    write_report(path, f, smiles_col="smiles", name_col="name", tasks=[ReportTask("bbb", kind="classification")])
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    watched = Watched(context.new_page(), path.resolve().as_uri())
    watched.open()
    cells = watched.page.locator("#body tr.row").first.locator("td")
    texts = cells.all_text_contents()
    assert texts[4].startswith("5 %  set {no}") and "1235" in texts, texts
    bars = watched.page.locator("#body svg.bar.prob")
    assert bars.count() == 16
    widths = [float(bars.nth(k).locator("rect").nth(1).get_attribute("width")) for k in (0, 15)]
    assert widths[0] < 10 < 120 < widths[1]  # 5 % and 95 % of a 140-pixel bar
    assert not watched.errors and not watched.requests
    context.close()
