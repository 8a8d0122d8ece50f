"""`-o` never leaves a partial file: not after an error, not after Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest


def _default_signals() -> None:
    # A background job inherits SIGINT as ignored (and Python then keeps it ignored);
    # restore the default so the child behaves as under an interactive terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args, tmp_path):
    return subprocess.Popen([sys.executable, "-m", "scoremol", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, preexec_fn=_default_signals)


def _wait_for_workers(proc, timeout: float = 120.0) -> None:
    """Wait until ``proc`` has child processes: its featurization pool is running."""
    children = f"/proc/{proc.pid}/task/{proc.pid}/children"
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(children) as handle:
                if handle.read().strip():
                    time.sleep(0.3)
                    return
        except OSError:
            pytest.skip("no /proc children list on this system")
        time.sleep(0.05)


def _interrupt_when_writing(proc, directory, timeout=120.0) -> None:
    """Send SIGINT (as Ctrl-C does) once the temporary output file exists."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if any(p.name.endswith(".part") for p in directory.iterdir()):
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
            return
        time.sleep(0.05)
    raise AssertionError("the command never started writing its output")


def test_ctrl_c_during_predict_leaves_no_output(tiny_model, tmp_path):
    _, model_path = tiny_model
    src = tmp_path / "big.smi"
    src.write_text("".join(f"{'C' * (i % 9 + 1)}O m{i}\n" for i in range(60_000)))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _start(["predict", str(src), "--model", str(model_path), "-o", str(out_dir / "pred.csv"),
                   "--chunk-size", "500"], tmp_path)
    _interrupt_when_writing(proc, out_dir)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert list(out_dir.iterdir()) == []  # neither pred.csv nor a .part file
    assert "Traceback" not in err and err.strip().splitlines() == ["scoremol: interrupted"]


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_signals_during_featurize_leave_no_output(sig, code, tmp_path):
    src = tmp_path / "big.smi"
    src.write_text("".join(f"{'C' * (i % 9 + 1)}O m{i}\n" for i in range(40_000)))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _start(["featurize", str(src), "-o", str(out_dir / "f.pt"), "--report", str(out_dir / "r.csv"),
                   "--no-cache"], tmp_path)
    _wait_for_workers(proc)  # 40,000 molecules: the pool runs for several seconds
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("featurization finished before the signal arrived")
    assert proc.returncode == code, err
    assert list(out_dir.iterdir()) == [] and "Traceback" not in err


@pytest.mark.parametrize("delay", [0.5, 1.0, 1.5])
def test_ctrl_c_while_starting_up_exits_130_without_traceback(delay, tmp_path):
    # Within the first seconds the command is importing torch and PyTorch Geometric. CPython
    # can then mark the interrupt as unhandled and die by SIGINT (-2) after our message.
    src = tmp_path / "big.smi"
    src.write_text("".join(f"{'C' * (i % 9 + 1)}O m{i}\n" for i in range(40_000)))
    proc = _start(["featurize", str(src), "-o", str(tmp_path / "f.pt"), "--no-cache"], tmp_path)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["scoremol: interrupted"]
    assert not (tmp_path / "f.pt").exists()


def test_failed_predict_keeps_the_previous_file(tiny_model, tmp_path):
    _, model_path = tiny_model
    out = tmp_path / "pred.csv"
    out.write_text("previous results\n")
    (tmp_path / "empty.csv").write_text("")
    proc = _start(["predict", str(tmp_path / "empty.csv"), "--model", str(model_path), "-o", str(out)], tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and out.read_text() == "previous results\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
