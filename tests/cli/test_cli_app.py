"""The command line as a whole: commands, help, version, global options."""

from __future__ import annotations

import re

import pytest

from scoremol import __version__
from scoremol.spec import PRESETS
from tests.conftest import run_cli

COMMANDS = ("featurize", "train", "cv", "predict")


def test_help_lists_all_commands():
    for flag in ("--help", "-h"):
        out, _, code = run_cli(flag)
        assert code == 0
        for command in COMMANDS:
            assert re.search(rf"\b{command}\b", out), (flag, command)
    out, err, code = run_cli()  # no arguments: the help, not an error
    assert COMMANDS[0] in out + err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag):
    out, err, code = run_cli(flag)
    assert code == 0 and out == f"scoremol {__version__}\n" and err == ""
    out, _, code = run_cli(flag, "predict", "--no-such-option")  # eager: nothing else runs
    assert code == 0 and out.startswith("scoremol ")


def test_train_help_at_80_columns_has_panels_and_no_bool_placeholders():
    out, err, code = run_cli("train", "--help", env={"COLUMNS": "80"})
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    titles = [m.group(1) for line in lines if (m := re.match(r"╭─ (\w+) ─", line))]
    assert {"Model", "Training", "Input", "Output"} <= set(titles), titles
    assert "<bool>" not in out
    # flags and the options presets decide, with both presets' values
    for flag in ("--preset", "--arch", "--epochs", "--ensemble", "--blend-catboost", "--descriptors"):
        assert flag in out, flag
    words = " ".join(out.replace("│", " ").split())  # descriptions wrap inside their column
    hidden = "Hidden width. [" + "; ".join(f"{name}: {p['hidden']}" for name, p in PRESETS.items()) + "]"
    assert hidden in words


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    out, err, code = run_cli(command, "-h", env={"COLUMNS": "80"})
    assert code == 0 and f" {command} [OPTIONS]" in out and "<bool>" not in out, err


def test_quiet_silences_messages_but_not_data():
    out, err, code = run_cli("-q", "predict", "CCO", "--model", "fast")
    assert code == 0 and err == ""
    tasks = ("logS", "logSol_pH6.8", "logD")
    bounds = ",".join(f"{t}_lo,{t}_hi" for t in tasks)
    expected = f"smiles,name,{','.join(t + '_pred' for t in tasks)},{bounds},similarity,domain,status,reason"
    assert out.splitlines()[0] == expected
    out, err, code = run_cli("predict", "CCO", "--model", "fast")  # -q does not stick
    assert code == 0 and "predicted 1/1 rows" in err


def test_usage_errors_exit_2():
    _, err, code = run_cli("predict", "--no-such-option")
    assert code == 2 and "No such option: --no-such-option" in err
    _, err, code = run_cli("frobnicate")
    assert code == 2 and "No such command 'frobnicate'" in err
    _, err, code = run_cli("predict", "CCO", "--workers", "0")
    assert code == 2 and "--workers" in err


def test_models_lists_every_bundled_model_with_its_card():
    from scoremol.pretrained import MODELS

    stdout, err, code = run_cli("models", env={"COLUMNS": "400"})  # wide enough that no cell wraps
    assert code == 0, err
    for model in MODELS.values():
        assert model.name in stdout and model.training_data in stdout and model.benchmark in stdout
    assert "(default)" in stdout and " MB" in stdout
