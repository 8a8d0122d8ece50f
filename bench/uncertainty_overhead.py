"""What intervals and the domain cost `scoremol predict`: the same model with and without them.

Run: python bench/uncertainty_overhead.py [--model fast] [--rows 200000] [--repeats 3]

The model file is copied without its calibration and domain (what `train --no-calibrate`
would give, with the same weights), and both are run back to back on the same SMILES file
(the shared sets' SMILES repeated, as bench/predict_throughput.py makes it), alternating so
that both see the same machine. Prints each run, the median wall times and their ratio, and
the median and quartiles of the ratios of back-to-back pairs.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from measure import run_measured  # noqa: E402
from predict_throughput import make_input  # noqa: E402

from scoremol.models.checkpoint import load_model, save_model  # noqa: E402
from scoremol.pretrained import resolve_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="fast")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    path, _ = resolve_model(Path(args.model))
    model = load_model(path)
    if model.calibration is None or model.domain is None:
        raise SystemExit(f"{path} has no calibration or domain to measure")
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.pt"
        save_model(dataclasses.replace(model, calibration=None, domain=None), plain)
        smiles = make_input(args.rows, Path(tmp))

        def command(model_path: Path) -> list[str]:
            return [
                sys.executable,
                "-m",
                "scoremol",
                "-q",
                "predict",
                str(smiles),
                "-m",
                str(model_path),
                "-o",
                os.devnull,
            ]

        times: dict[str, list[float]] = {"without": [], "with": []}
        for r in range(args.repeats):
            for name, model_path in (("without", plain), ("with", path)):
                seconds = run_measured(command(model_path), sample_memory=False)[0]
                times[name].append(seconds)
                print(
                    f"repeat {r} {name:7s} intervals+domain: {seconds:6.2f} s ({args.rows / seconds:,.0f} mol/s)",
                    flush=True,
                )
    without, with_ = statistics.median(times["without"]), statistics.median(times["with"])
    # each back-to-back pair saw the same machine: its ratio says how much the pair's noise moves
    pairs = sorted(100 * (b / a - 1) for a, b in zip(times["without"], times["with"], strict=True))
    quartiles = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else [pairs[0]] * 3
    print(
        f"median without {without:.2f} s, with {with_:.2f} s: {100 * (with_ / without - 1):+.1f} %"
        f" ({path.name}, {args.rows:,} rows); per pair: median {quartiles[1]:+.1f} %,"
        f" quartiles {quartiles[0]:+.1f} / {quartiles[2]:+.1f} %"
    )


if __name__ == "__main__":
    main()
