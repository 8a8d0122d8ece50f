"""The console entry point's exit: statuses kept, exit handlers run, output flushed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scoremol.entry import exit_code
from tests.conftest import run_cli, run_cli_process


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (1, 1), (130, 130), (256 + 2, 2)])
def test_exit_code_matches_sys_exit(code, status):
    assert exit_code(code) == status


def test_exit_code_of_a_message_prints_it_and_fails(capsys):
    assert exit_code("scoremol: gone") == 1
    assert capsys.readouterr().err == "scoremol: gone\n"


def test_fast_exit_runs_exit_handlers_and_flushes_piped_output():
    """Skipping interpreter teardown must not skip ``atexit`` handlers or lose buffered output."""
    script = (
        "import atexit, sys\n"
        "from scoremol.entry import fast_exit\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "sys.stdout.write('x' * 100000)\n"  # more than one buffer, some of it still unflushed
        "fast_exit(3)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)  # exits
    assert proc.returncode == 3
    assert proc.stdout == "x" * 100000 + "handler ran\n"


def test_real_entry_point_keeps_statuses(tmp_path):
    """The console entry point (``python -m scoremol`` runs the same ``run``) keeps every
    status through its fast exit: usage error 2, user error 1 with one line, success 0."""
    _, err, rc = run_cli_process("predict", "--no-such-option")
    assert rc == 2 and "No such option" in err
    out, err, rc = run_cli_process("--version")
    assert rc == 0 and out.startswith("scoremol ") and err == ""
    out, err, rc = run_cli_process("predict", str(tmp_path / "missing.csv"))
    assert rc == 1 and out == "" and err == f"scoremol: error: input file not found: {tmp_path / 'missing.csv'}\n"
    out, err, rc = run_cli_process("-q", "predict", "CCO", "--model", "fast")
    assert (
        rc == 0
        and out.splitlines()[0].startswith("smiles,name,logS_pred,logSol_pH6.8_pred,logD_pred,logS_lo,logS_hi,")
        and out.splitlines()[0].endswith(",similarity,domain,status,reason")
        and err == ""
    )


@pytest.mark.slow
def test_the_in_process_runner_gives_what_the_entry_point_gives(tmp_path):
    """``run_cli`` (in this process) stands in for the entry point in most tests: same
    output streams and statuses for an error, a usage error and a traceback with -v."""
    for args in (["predict", str(tmp_path / "missing.csv")], ["--version"], ["predict", "-", "--model", "fast"]):
        assert run_cli(*args)[:2] == run_cli_process(*args)[:2], args
    # the usage line names the program as it was started ("python -m pytest..." here)
    out, err, rc = run_cli("predict", "--no-such-option")
    out_process, err_process, rc_process = run_cli_process("predict", "--no-such-option")
    assert (out, rc) == (out_process, rc_process) == ("", 2)
    assert err.splitlines()[-1] == err_process.splitlines()[-1] == "Error: No such option: --no-such-option"
    assert err.splitlines()[0].endswith(" predict [OPTIONS] {INPUT...}...")
    assert err_process.splitlines()[0] == "Usage: python -m scoremol predict [OPTIONS] {INPUT...}..."
    _, err, rc = run_cli("-v", "predict", str(tmp_path / "missing.csv"))
    _, err_process, rc_process = run_cli_process("-v", "predict", str(tmp_path / "missing.csv"))
    assert rc == rc_process == 1
    assert "Traceback" in err and "Traceback" in err_process
    assert err.strip().splitlines()[-1] == err_process.strip().splitlines()[-1]


def test_ctrl_c_while_importing_the_command_line_exits_without_raising_through_native_code(monkeypatch):
    """While the command line imports (torch's C++ extensions among it), SIGINT must exit at
    once rather than raise KeyboardInterrupt, which pybind11 turns into an abort; afterwards
    the usual handler is back for the command itself."""
    import signal
    import types

    import scoremol.entry as entry
    from scoremol.process import _exit_at_once

    seen = {}

    class FakeCli(types.ModuleType):
        def __getattr__(self, name):
            seen["handler"] = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
            return lambda: None

    monkeypatch.setitem(sys.modules, "scoremol.cli", FakeCli("scoremol.cli"))
    monkeypatch.setattr(entry, "fast_exit", lambda code: seen.setdefault("code", code))
    before = signal.getsignal(signal.SIGINT)
    entry.run()
    assert seen["handler"] == (_exit_at_once, _exit_at_once)
    assert signal.getsignal(signal.SIGINT) is before and seen["code"] == 0


@pytest.mark.parametrize(("sig", "code", "message"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_signal_inside_a_heavy_import_exits_at_once_with_one_line(sig, code, message):
    """Commands import torch inside :func:`scoremol.process.importing`: a signal there ends the
    process on the spot (nothing is written yet), not by an exception through native code."""
    script = (
        "import os, signal\n"
        "from scoremol.process import importing\n"
        "with importing():\n"
        f"    os.kill(os.getpid(), signal.{sig})\n"
        "    import time; time.sleep(5)\n"
        "print('not reached')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == code and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"scoremol: {message}"]
