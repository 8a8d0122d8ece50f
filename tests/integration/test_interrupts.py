"""Ctrl-C and SIGTERM: `-o` never leaves a partial file, and the exit is one line and a status.

Signals need a real process: these tests run ``python -m scoremol`` as a child. None of them
may pass without having exercised what it claims: a command that ends before the signal
reaches it, or a worker pool that never shows up, is a failure (or, for featurization,
a retry on a larger input), never a skip.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _default_signals() -> None:
    # A background job inherits SIGINT as ignored (and Python then keeps it ignored);
    # restore the default so the child behaves as under an interactive terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args, cwd: Path, own_group: bool = False) -> subprocess.Popen:
    """Run ``python -m scoremol args``; ``own_group`` makes it lead a process group that
    :func:`_kill_group` can end with its workers."""
    return subprocess.Popen(
        [sys.executable, "-m", "scoremol", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        preexec_fn=_default_signals,
        start_new_session=own_group,
    )


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill ``proc`` and every process it started (the workers hold its pipes open)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc/<pid>/stat, which every Linux has;
    /proc/<pid>/task/<pid>/children needs a kernel option)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _finish(proc: subprocess.Popen) -> str:
    """Wait for ``proc`` (killing it if it hangs) and return its standard error."""
    try:
        return proc.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[1] + "\n(killed: no exit within 120 s of the signal)"


def _cpu_ticks(pids: list[int]) -> int:
    """User plus system CPU time the processes ``pids`` have used so far, in clock ticks."""
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def _wait_for_workers(proc: subprocess.Popen, timeout: float = 120.0) -> list[int]:
    """Wait until ``proc`` has child processes (its featurization pool is running) and return
    their ids; fail if it exits first or none appear in time."""
    if not Path("/proc/self/stat").exists():
        pytest.fail("these tests need Linux's /proc to see the worker pool")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = _finish(proc)
            pytest.fail(f"the command exited ({proc.returncode}) before its worker pool started:\n{err}")
        workers = _children(proc.pid)
        if workers and _cpu_ticks(workers) > 0:  # the pool has taken its first chunks
            return workers
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no worker processes within {timeout:.0f} s:\n{_finish(proc)}")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # renamed or removed meanwhile
        return 0


def _interrupt_when_writing(proc: subprocess.Popen, directory: Path, timeout: float = 120.0) -> None:
    """Send SIGINT (as Ctrl-C does) once rows are in the temporary output file."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = _finish(proc)
            pytest.fail(f"the command exited ({proc.returncode}) before it started writing its output:\n{err}")
        if any(p.name.endswith(".part") and _size(p) > 0 for p in directory.iterdir()):
            proc.send_signal(signal.SIGINT)  # rows are being written
            return
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"the command never started writing its output:\n{_finish(proc)}")


def _smi(path: Path, rows: int) -> Path:
    path.write_text("".join(f"{'C' * (i % 9 + 1)}O m{i}\n" for i in range(rows)))
    return path


@pytest.mark.slow
def test_ctrl_c_during_predict_leaves_no_output(tiny_model, tmp_path):
    _, model_path = tiny_model
    # the tiny model computes every RDKit descriptor: 60,000 rows take minutes, not 0.3 s
    src = _smi(tmp_path / "big.smi", 60_000)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _start(
        ["predict", str(src), "--model", str(model_path), "-o", str(out_dir / "pred.csv"), "--chunk-size", "500"],
        tmp_path,
    )
    _interrupt_when_writing(proc, out_dir)
    err = _finish(proc)
    assert proc.returncode != 0, f"prediction finished before the signal arrived:\n{err}"
    assert proc.returncode == 130, err
    assert list(out_dir.iterdir()) == []  # neither pred.csv nor a .part file
    assert "Traceback" not in err and err.strip().splitlines() == ["scoremol: interrupted"]


@pytest.mark.slow
def test_ctrl_c_while_predict_starts_leaves_no_helper_behind(tmp_path):
    """predict forks a featurizing helper before it imports torch. Ctrl-C as soon as the
    helper works (torch is then usually still importing) exits 130, and the helper goes too."""
    src = _smi(tmp_path / "big.smi", 40_000)
    proc = _start(["predict", str(src), "--model", "fast", "-o", str(tmp_path / "p.csv")], tmp_path, True)
    try:
        helpers = _wait_for_workers(proc)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=120)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in helpers) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in helpers if Path(f"/proc/{pid}").exists()]
    finally:  # a helper left behind holds the pipes open: end the whole group before reading them
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        err = proc.communicate()[1]
    assert not left, "helper processes left behind"
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "scoremol: interrupted" and "Traceback" not in err
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_signals_during_featurize_leave_no_output(sig, code, tmp_path):
    """The signal goes out as soon as the pool runs. 40,000 molecules keep two workers busy
    for seconds; should a run still finish first (a much faster machine), it is repeated on
    four times as many, and only then is it a failure."""
    for rows in (40_000, 160_000):
        src = _smi(tmp_path / f"big{rows}.smi", rows)
        out_dir = tmp_path / f"out{rows}"
        out_dir.mkdir()
        proc = _start(
            [
                "featurize",
                str(src),
                "-o",
                str(out_dir / "f.pt"),
                "--report",
                str(out_dir / "r.csv"),
                "--no-cache",
                "--workers",
                "2",
            ],
            tmp_path,
        )
        workers = _wait_for_workers(proc)
        proc.send_signal(sig)
        err = _finish(proc)
        if proc.returncode != 0:
            break
    else:
        pytest.fail(f"featurization of {rows:,} molecules finished before the signal arrived")
    assert proc.returncode == code, err
    assert list(out_dir.iterdir()) == [] and "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("scoremol: interrupted" if sig == signal.SIGINT else "scoremol: terminated")
    deadline = time.monotonic() + 10  # the pool is shut down before the command exits
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()], "worker processes left behind"


def _startup_seconds(tmp_path: Path) -> float:
    """Seconds from launch until ``featurize`` starts its worker pool on this machine (the
    quicker of two launches: the first may read a cold disk), so that the start-up test
    interrupts inside start-up however fast or slow the machine is."""
    src = _smi(tmp_path / "probe.smi", 40_000)
    times = []
    for _ in range(2):
        began = time.monotonic()
        proc = _start(["featurize", str(src), "-o", str(tmp_path / "probe.pt"), "--no-cache"], tmp_path, True)
        try:
            while not _children(proc.pid) and proc.poll() is None and time.monotonic() - began < 120:
                time.sleep(0.01)
            times.append(time.monotonic() - began)
            assert _children(proc.pid), f"featurize started no worker pool:\n{_finish(proc)}"
        finally:
            _kill_group(proc)
    return min(times)


@pytest.fixture(scope="module")
def startup_seconds(tmp_path_factory) -> float:
    return _startup_seconds(tmp_path_factory.mktemp("startup"))


@pytest.mark.parametrize("fraction", [0.2, 0.4, 0.6])
def test_ctrl_c_while_starting_up_exits_130_without_traceback(fraction, startup_seconds, tmp_path):
    # Within the first seconds the command is importing torch and PyTorch Geometric. CPython
    # can then mark the interrupt as unhandled and die by SIGINT (-2) after our message.
    src = _smi(tmp_path / "big.smi", 40_000)
    proc = _start(["featurize", str(src), "-o", str(tmp_path / "f.pt"), "--no-cache"], tmp_path, True)
    try:
        time.sleep(fraction * startup_seconds)  # a point inside start-up, measured on this machine
        assert proc.poll() is None, "the command ended before the signal was sent"
        assert not _children(proc.pid) and not (tmp_path / "f.pt").exists(), "start-up was over (a pool runs)"
        proc.send_signal(signal.SIGINT)
        err = _finish(proc)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["scoremol: interrupted"]
    assert not (tmp_path / "f.pt").exists()
