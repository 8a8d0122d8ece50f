"""The torture set through `scoremol predict`: each case alone (seconds, peak memory, status,
reason), and 20,000 ordinary SMILES with and without the torture set mixed in.

Run: python bench/torture_benchmark.py [--model NAME|PATH] [--repeats 3]
     [--out bench/results/torture_<date>.md]

The cases are the test suite's (tests/integration/test_torture.py). The ordinary SMILES are
bench/predict_throughput.py's (ESOL, FreeSolv and Lipophilicity repeated); the torture rows
are spread through the file. Each timing runs the real command line in a fresh process;
mixed and plain runs alternate and the medians are compared. Memory is the peak summed PSS
of the process tree, from a separate run.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT))
from measure import run_measured  # noqa: E402
from predict_throughput import make_input  # noqa: E402

from tests.integration.test_torture import TORTURE  # noqa: E402

SCOREMOL = [sys.executable, "-m", "scoremol"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"torture_{datetime.date.today()}.md")
    args = parser.parse_args()
    model = ["--model", args.model] if args.model else []
    lines = [
        "| case | atoms / characters | seconds | peak PSS MiB | status | reason |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, (smiles, _) in TORTURE.items():
            src = tmp / f"{name}.smi"
            src.write_text(f"{smiles} {name}\n")
            out = tmp / f"{name}.csv"
            seconds, pss = run_measured([*SCOREMOL, "predict", str(src), *model, "-o", str(out)])
            row = pd.read_csv(out, keep_default_na=False).iloc[0]
            size = f"{len(smiles):,} chars"
            lines.append(f"| {name} | {size} | {seconds:.2f} | {pss:.0f} | {row.status} | {row.reason[:90]} |")
            print(lines[-1], flush=True)
        plain = make_input(20_000, tmp)
        rows = plain.read_text().splitlines()
        step = len(rows) // (len(TORTURE) + 1)
        for k, (name, (smiles, _)) in enumerate(TORTURE.items()):
            rows.insert((k + 1) * step + k, f"{smiles} {name}")
        mixed = tmp / "mixed.smi"
        mixed.write_text("\n".join(rows) + "\n")
        times = {"plain": [], "mixed": []}
        for _ in range(args.repeats):
            for label, src in (("plain", plain), ("mixed", mixed)):
                seconds, _ = run_measured(
                    [*SCOREMOL, "predict", str(src), *model, "-o", str(tmp / "o.csv")], sample_memory=False
                )
                times[label].append(seconds)
        _, pss_mixed = run_measured([*SCOREMOL, "predict", str(mixed), *model, "-o", str(tmp / "o.csv")])
        check = pd.read_csv(tmp / "o.csv", keep_default_na=False)
        counts = check.status.value_counts().to_dict()
        plain_s, mixed_s = statistics.median(times["plain"]), statistics.median(times["mixed"])
        summary = [
            "",
            f"20,000 ordinary SMILES: {plain_s:.1f} s (median of {args.repeats}: {times['plain']}); with the "
            f"{len(TORTURE)} torture rows mixed in: {mixed_s:.1f} s ({times['mixed']}), {mixed_s / plain_s:.3f}x; "
            f"peak PSS {pss_mixed:.0f} MiB; {len(check):,} rows out of {len(rows):,}, statuses {counts}.",
        ]
        print("\n".join(summary), flush=True)
    model_name = args.model or "the bundled default"
    header = [f"# Torture set through `scoremol predict` ({model_name}), {datetime.date.today()}", ""]
    args.out.write_text("\n".join(header + lines + summary) + "\n")


if __name__ == "__main__":
    sys.exit(main())
