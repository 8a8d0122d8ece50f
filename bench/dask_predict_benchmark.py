"""Throughput and per-worker memory of `scoremol predict`: the local process pool against a
Dask LocalCluster with the same number of worker processes, in the same sitting.

Run: SCOREMOL_DATA=data python bench/dask_predict_benchmark.py --rows 1000000 [--repeats 3]
     [--workers 2] [--model fast] [--shard-size 100000] [--out bench/results/dask_predict.md]

The input repeats the SMILES of ESOL, FreeSolv and Lipophilicity (as `predict_throughput.py`
builds it). Each repeat runs the real command line in a fresh process, the two paths
alternating (pool, then Dask) so both see the same machine; the wall time includes start-up
(importing torch, starting the cluster) and writing the CSV output to a file. The ratio is
the median over back-to-back pairs. Timed runs are not sampled for memory (reading PSS
takes CPU from the command); one more run of each path samples every process of the tree
every 0.2 s: the peak RSS and PSS of the largest worker process (a pool worker, or a Dask
worker) and the peak summed PSS of the tree.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from measure import run_measured  # noqa: E402
from predict_throughput import make_input  # noqa: E402


def run_sampled(cmd: list[str]) -> tuple[float, float, float, float]:
    """Wall seconds; peak RSS and PSS (MiB) of the largest child process; peak tree PSS (MiB)."""
    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(proc.pid)
    worker_rss = worker_pss = tree_pss = 0
    while proc.poll() is None:
        total = 0
        try:
            children = root.children(recursive=True)
        except psutil.Error:
            children = []
        for p in [root, *children]:
            try:
                info = p.memory_full_info()
            except psutil.Error:
                continue
            pss = getattr(info, "pss", info.rss)
            total += pss
            if p.pid != root.pid:
                worker_rss, worker_pss = max(worker_rss, info.rss), max(worker_pss, pss)
        tree_pss = max(tree_pss, total)
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    return seconds, worker_rss / 2**20, worker_pss / 2**20, tree_pss / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", default="fast")
    parser.add_argument("--shard-size", default=None, help="--shard-size of the Dask runs (default: scoremol's)")
    parser.add_argument("--out", default=None, help="table file (default: bench/results/dask_predict_<rows>_<date>.md)")
    args = parser.parse_args()
    out = Path(args.out or Path(__file__).parent / "results" / f"dask_predict_{args.rows}_{date.today()}.md")
    with tempfile.TemporaryDirectory() as tmp:
        path = make_input(args.rows, Path(tmp))
        base = [sys.executable, "-m", "scoremol", "-q", "predict", str(path), "--model", args.model]
        shard = ["--shard-size", args.shard_size] if args.shard_size else []
        commands = {
            "local pool": [*base, "--workers", str(args.workers), "-o", str(Path(tmp) / "pool.csv")],
            "Dask LocalCluster": [
                *base,
                "--scheduler",
                "local",
                "--workers",
                str(args.workers),
                *shard,
                "-o",
                str(Path(tmp) / "dask.csv"),
            ],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for repeat in range(args.repeats):  # alternate, so that both see the same machine
            for name, cmd in commands.items():
                seconds = run_measured(cmd, sample_memory=False)[0]
                times[name].append(seconds)
                print(f"repeat {repeat + 1}: {name}: {seconds:.1f} s", file=sys.stderr, flush=True)
        same = (Path(tmp) / "pool.csv").read_bytes() == (Path(tmp) / "dask.csv").read_bytes()
        memory = {name: run_sampled(cmd)[1:] for name, cmd in commands.items()}
    pool, dask = times["local pool"], times["Dask LocalCluster"]
    ratio = statistics.median(p / d for p, d in zip(pool, dask))  # Dask throughput / pool throughput
    lines = [
        f"# `scoremol predict --model {args.model}`: local pool vs Dask LocalCluster, {args.rows:,} SMILES",
        "",
        f"{date.today()}, {platform.node() or 'this machine'}, {os.cpu_count()} CPUs, {args.workers} worker processes "
        f"each, {args.repeats} alternating repeats (median); wall time of the whole command, start-up and CSV "
        "output to a file included. Memory: one more sampled run per path.",
        "",
        "| path | median s | molecules/s | peak RSS per worker MiB | peak PSS per worker MiB | peak tree PSS MiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in commands:
        t = statistics.median(times[name])
        rss, pss, tree = memory[name]
        lines.append(f"| {name} | {t:.1f} | {args.rows / t:,.0f} | {rss:,.0f} | {pss:,.0f} | {tree:,.0f} |")
    lines += [
        "",
        f"Dask / pool throughput (median of back-to-back pairs): **{ratio:.2f}x**. "
        f"Runs (pool s / Dask s): {', '.join(f'{p:.1f}/{d:.1f}' for p, d in zip(pool, dask))}. "
        "Outputs byte-identical: "
        + ("yes." if same else "no (float32 rounding: a few rows differ in a last printed digit, see the README)."),
    ]
    table = "\n".join(lines) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table)
    print(table)
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
