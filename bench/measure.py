"""Shared by the bench scripts: run a command, measure wall time and peak memory."""

from __future__ import annotations

import subprocess
import time


def _tree_memory(root) -> tuple[int, int]:
    """Summed PSS and RSS (bytes) of ``root`` and its children.

    PSS (proportional set size) splits each shared page among the processes sharing it, so
    forked workers that share the parent's torch and RDKit pages count them once in total;
    RSS counts them once per process and overstates a process pool's memory.
    """
    import psutil

    pss = rss = 0
    for p in [root, *root.children(recursive=True)]:
        try:
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
        except psutil.Error:
            pass
    return pss, rss


def run_measured(cmd: list[str], env: dict | None = None, cwd=None, with_rss: bool = False, sample_memory: bool = True):
    """Wall seconds and peak memory (MiB, summed PSS of ``cmd`` and all its children,
    sampled every 0.2 s); ``with_rss=True`` adds the peak summed RSS as a third value.

    Reading PSS walks every memory mapping of every process (tens of ms for a torch
    process), which takes CPU from the command being timed; ``sample_memory=False`` times
    the command alone and reports 0 MiB.
    """
    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    root = psutil.Process(proc.pid)
    peak_pss = peak_rss = 0
    while proc.poll() is None:
        if not sample_memory:
            proc.wait()
            break
        try:
            pss, rss = _tree_memory(root)
            peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
        except psutil.Error:
            pass
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    if with_rss:
        return seconds, peak_pss / 2**20, peak_rss / 2**20
    return seconds, peak_pss / 2**20
