"""The per-molecule CPU budget of prediction: every part of a bundled model is measured."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_budget_names_every_part_of_both_bundled_models():
    cmd = [sys.executable, str(ROOT / "bench" / "cpu_budget.py"), "--molecules", "40", "--repeats", "1"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600).stdout
    fast, default = out.strip().splitlines()
    number = r"(-?\d+)"
    parts = re.fullmatch(
        rf"fast: featurize {number} us/mol \(graph {number}\); predict {number}; "
        rf"intervals and domain {number}; in all {number} us/mol",
        fast,
    )
    assert parts is not None, fast
    featurize, _, predict, domain, total = map(int, parts.groups())
    assert featurize > 0 and predict > 0 and abs(featurize + predict + domain - total) <= 2
    parts = re.fullmatch(
        rf"multitask: featurize {number} us/mol \(graph {number}, descriptors {number}\); predict {number} "
        rf"\(networks {number}, tree {number}\); intervals and domain {number}; in all {number} us/mol",
        default,
    )
    assert parts is not None, default
    featurize, graph, descriptors, predict, networks, tree, _, _ = map(int, parts.groups())
    assert abs(graph + descriptors - featurize) <= 1 and abs(networks + tree - predict) <= 1
    assert descriptors > graph  # the tree's 189 descriptors cost more than the graph
