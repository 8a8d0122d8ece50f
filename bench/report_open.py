"""How long a 1,000-row report takes to open in Debian's Chromium (headless, Playwright).

Run: python bench/report_open.py [--rows 1000] [--repeats 3]
Predicts ESOL's molecules repeated to ``--rows`` rows with the bundled default, writes the
report (structures, neighbours, atom maps for the first 100 rows), then opens it ``--repeats``
times in a fresh browser page: the time from navigation until the page's script has drawn
the table (``body[data-ready='1']``), median and all runs, and the file's size.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from playwright import sync_api

from scoremol.data.registry import resolve

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        smiles = pd.read_csv(resolve("esol"))["smiles"].astype(str).tolist()
        src = Path(tmp) / "in.smi"
        src.write_text("".join(f"{smiles[i % len(smiles)]} m{i}\n" for i in range(args.rows)))
        report = Path(tmp) / "report.html"
        cmd = [sys.executable, "-m", "scoremol", "-q", "predict", str(src), "-o", str(Path(tmp) / "p.csv")]
        subprocess.run([*cmd, "--report", str(report)], check=True)
        seconds = []
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for _ in range(args.repeats):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(report.resolve().as_uri())
                page.wait_for_selector("body[data-ready='1']")
                seconds.append(time.perf_counter() - start)
                page.close()
            browser.close()
        print(
            f"{args.rows:,}-row report, {report.stat().st_size / 1e6:.1f} MB: opens in "
            f"{statistics.median(seconds):.2f} s (runs {', '.join(f'{s:.2f}' for s in seconds)})"
        )


if __name__ == "__main__":
    main()
