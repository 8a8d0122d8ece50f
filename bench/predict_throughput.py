"""Prediction throughput and peak memory of `scoremol predict` on 20,000 and 200,000 SMILES.

Run: SCOREMOL_DATA=../shared/data python bench/predict_throughput.py [--sizes 20000 200000]
     [--repeats 3] [--model PATH]
Inputs are made by repeating the SMILES of the shared ESOL, FreeSolv and Lipophilicity sets.
Each size runs the real command line in a fresh process (median wall time of the repeats),
alternating with bare RDKit SMILES parsing of the same file; the ratio is the median over
back-to-back (parse, predict) pairs, so both sides of each pair see the same machine.
Timed runs are not sampled for memory: reading PSS walks every mapping of every process and
takes CPU from the command being timed (more from the multi-process predict than from the
parse). Memory comes from one more predict run per size: the peak summed PSS of the process
tree (shared pages of forked workers counted once) and, for comparison, the peak summed RSS
(shared pages counted once per process).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd

from scoremol.data.registry import resolve

sys.path.insert(0, str(Path(__file__).parent))
from measure import run_measured as run  # noqa: E402

PARSE_ONLY = (
    "import sys\nfrom rdkit import Chem, RDLogger\nRDLogger.DisableLog('rdApp.*')\n"
    "n=0\nfor line in open(sys.argv[1]):\n    parts=line.split()\n"
    "    if parts and Chem.MolFromSmiles(parts[0]) is not None: n+=1\nprint(n)\n"
)


def make_input(n: int, directory: Path) -> Path:
    smiles = []
    for name in ("esol", "freesolv", "lipophilicity"):
        smiles += pd.read_csv(resolve(name))["smiles"].astype(str).str.strip().tolist()
    path = directory / f"bench_{n}.smi"
    with open(path, "w") as handle:
        for i in range(n):
            handle.write(f"{smiles[i % len(smiles)]} mol{i}\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[20_000, 200_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model", default=None)
    parser.add_argument("--predict-args", default="", help="more predict options, e.g. '--network-only'")
    args = parser.parse_args()
    model = ["--model", args.model] if args.model else []
    print(
        f"{'rows':>9s} {'rdkit parse mol/s':>18s} {'predict mol/s':>14s} {'ratio':>6s} {'predict s':>10s} "
        f"{'peak PSS MiB':>13s} {'peak RSS MiB':>13s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            path = make_input(n, Path(tmp))
            cmd = [
                sys.executable,
                "-m",
                "scoremol",
                "-q",
                "predict",
                str(path),
                *model,
                *args.predict_args.split(),
                "-o",
                os.devnull,
            ]
            parse, runs = [], []
            for _ in range(args.repeats):  # alternate, so that both see the same machine
                parse.append(run([sys.executable, "-c", PARSE_ONLY, str(path)], sample_memory=False)[0])
                runs.append(run(cmd, sample_memory=False)[0])
            _, pss, rss = run(cmd, with_rss=True)
            p, t = statistics.median(parse), statistics.median(runs)
            ratio = statistics.median(a / b for a, b in zip(parse, runs))  # of back-to-back pairs
            print(f"{n:9d} {n / p:18.0f} {n / t:14.0f} {ratio:6.2f} {t:10.1f} {pss:13.0f} {rss:13.0f}", flush=True)
            print(
                f"{'':9s} runs (parse s / predict s): " + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(parse, runs)),
                flush=True,
            )


if __name__ == "__main__":
    main()
