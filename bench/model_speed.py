"""Prediction speed of every bundled model: the figures ``scoremol models`` shows.

Run (on a quiet machine): python bench/model_speed.py [--rows 20000] [--repeats 3]
Each model predicts the same 20,000 SMILES (bench/predict_throughput.py's input) through
the real command line, whole command (start-up, intervals and domain included), median of
the repeats; then one more run samples peak memory (summed PSS of the process tree). Rows
go to bench/results/model_speed.csv (one sitting per date; scripts/render_figures.py reads
the latest sitting).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from datetime import date
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from measure import run_measured  # noqa: E402
from predict_throughput import make_input  # noqa: E402

from scoremol.pretrained import MODELS  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "model_speed.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = make_input(args.rows, Path(tmp))
        for name in args.models:
            cmd = [sys.executable, "-m", "scoremol", "-q", "predict", str(path), "--model", name, "-o", os.devnull]
            seconds = [run_measured(cmd, sample_memory=False)[0] for _ in range(args.repeats)]
            _, pss = run_measured(cmd)
            t = statistics.median(seconds)
            rows.append(
                {
                    "date": str(date.today()),
                    "model": name,
                    "rows": args.rows,
                    "seconds": round(t, 2),
                    "molecules_per_s": round(args.rows / t),
                    "peak_pss_mib": round(pss),
                    "runs": " ".join(f"{s:.1f}" for s in seconds),
                    "cpus": os.cpu_count(),
                }
            )
            print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    if RESULTS.exists():
        frame = pd.concat([pd.read_csv(RESULTS), frame], ignore_index=True)
    frame.to_csv(RESULTS, index=False)


if __name__ == "__main__":
    main()
