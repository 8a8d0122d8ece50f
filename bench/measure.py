"""Shared by the bench scripts: run a command, measure wall time and peak memory."""

from __future__ import annotations

import subprocess
import time


def run_measured(cmd: list[str], env: dict | None = None, cwd=None) -> tuple[float, float]:
    """Wall seconds and peak memory (MiB) of ``cmd`` and all its child processes.

    Memory is the peak, over samples every 50 ms, of the summed RSS of the process tree;
    pages shared by forked workers count once per process, so it is an upper bound.
    """
    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    root = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    return seconds, peak / 2**20
