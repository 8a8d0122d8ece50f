"""One writer per output: the OS lock beside an output, its message, and its release."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scoremol.data.lock import lock_path, output_lock
from scoremol.errors import ScoremolError


def test_a_second_writer_is_refused_with_the_holder_named(tmp_path):
    out = tmp_path / "out.csv"
    with output_lock(out):
        assert lock_path(out).is_file()
        with pytest.raises(ScoremolError, match=r"out.csv is being written by another scoremol run \(pid \d+ on "):
            with output_lock(out):
                pass
    assert not lock_path(out).exists()  # a finished run leaves nothing behind
    with output_lock(out):  # and the next run takes it
        pass


def test_a_killed_writer_leaves_no_lock_that_blocks(tmp_path):
    out = tmp_path / "out.csv"
    code = (
        "import sys, time\nfrom scoremol.data.lock import output_lock\n"
        "with output_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ScoremolError, match="being written by another scoremol run"):
            with output_lock(out):
                pass
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert lock_path(out).exists()  # the killed run could not clean up ...
    with output_lock(out):  # ... but the OS released its lock
        pass


def test_an_interrupt_that_exits_at_once_removes_the_lock_but_a_forked_child_does_not(tmp_path):
    """Ctrl-C during an import exits on the spot (no ``finally``); the lock file goes too.
    A forked child (the head start) that exits so leaves its parent's lock alone."""
    out = tmp_path / "out.csv"
    code = (
        "import os, sys\nfrom scoremol.data.lock import lock_path, output_lock\n"
        "from scoremol.process import exit_interrupted\n"
        "with output_lock(sys.argv[1]):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n        exit_interrupted('child', 130)\n"
        "    os.waitpid(pid, 0)\n"
        "    print(lock_path(sys.argv[1]).exists(), flush=True)\n"
        "    exit_interrupted('scoremol: interrupted', 130)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and done.stdout.strip() == "True"
    assert not lock_path(out).exists()


def test_standard_output_and_devices_take_no_lock(tmp_path):
    with output_lock(None):
        pass
    with output_lock("/dev/null"):
        with output_lock("/dev/null"):
            pass


def test_cli_predict_refuses_a_busy_output_at_once(tmp_path):
    from tests.conftest import run_cli

    out = tmp_path / "out.csv"
    out.write_text("earlier,output\n")
    with output_lock(out):
        _, err, code = run_cli("predict", "CCO", "--model", "esol-fast", "-o", str(out))
    assert code == 1 and "is being written by another scoremol run" in err and len(err.strip().splitlines()) == 1
    assert out.read_text() == "earlier,output\n"  # untouched
