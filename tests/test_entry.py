"""The console entry point's exit: statuses kept, exit handlers run, output flushed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scoremol.entry import exit_code


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
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert proc.stdout == "x" * 100000 + "handler ran\n"


def test_real_entry_point_keeps_statuses():
    """A usage error keeps status 2, ``--version`` prints and exits 0 (rows: test_predict)."""
    from tests.conftest import run_cli

    _, err, rc = run_cli("predict", "--no-such-option")
    assert rc == 2 and "No such option" in err
    out, err, rc = run_cli("--version")
    assert rc == 0 and out.startswith("scoremol ")
