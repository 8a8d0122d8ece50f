"""The training options of `train` and `cv` are generated from TrainingSpec: every field is
an option and every training option a field; a misspelled choice fails at parse time."""

from __future__ import annotations

import dataclasses

import pytest
import typer.main

from scoremol.cli.app import app
from scoremol.spec import TrainingSpec
from tests.conftest import run_cli

#: the command's own parameters, not spec fields
OWN = {
    "train": {"input", "target", "task_type", "smiles_col", "fmt", "output", "unlabelled", "exclude"},
    "cv": {
        "input",
        "target",
        "task_type",
        "smiles_col",
        "fmt",
        "folds",
        "folds_file",
        "split",
        "repeats",
        "output_dir",
        "json",
    },
}


@pytest.mark.parametrize("command", ["train", "cv"])
def test_every_spec_field_is_an_option_and_every_option_a_field(command):
    click_app = typer.main.get_command(app)
    params = {p.name for p in click_app.commands[command].params} - {"help"}
    fields = {f.name for f in dataclasses.fields(TrainingSpec)}
    assert params - OWN[command] == fields, (
        f"options without a field: {sorted(params - OWN[command] - fields)}; "
        f"fields without an option: {sorted(fields - params)}"
    )
    flags = {opt for p in click_app.commands[command].params for opt in p.opts}
    assert {"--task-balance", "--blend-catboost", "--learnable-dt", "--no-standardize", "--no-calibrate"} <= flags | {
        o for p in click_app.commands[command].params for o in p.secondary_opts
    }


@pytest.mark.parametrize(
    ("option", "value", "choices"),
    [
        ("--mode", "scor", "'base', 'classic', 'skip', 'score'"),
        ("--integrator", "rk5", "'euler', 'heun', 'midpoint', 'rk4'"),
        ("--readout", "max", "'molattfp', 'sum', 'mean'"),
        ("--preset", "quick", "'default', 'accurate', 'fast'"),
    ],
)
def test_a_misspelled_choice_fails_at_parse_time_listing_the_choices(option, value, choices):
    _, err, code = run_cli("train", "esol", option, value, "-o", "never.pt")
    assert code == 2 and f"is not one of {choices}" in " ".join(err.split()), err


def test_predict_options_are_the_fields_of_its_requests():
    from scoremol.inference.distributed.request import DistributedRequest
    from scoremol.inference.request import PredictRequest

    click_app = typer.main.get_command(app)
    params = {p.name for p in click_app.commands["predict"].params} - {"help", "inputs"}
    fields = {f.name for cls in (PredictRequest, DistributedRequest) for f in dataclasses.fields(cls) if f.metadata}
    assert params == fields, (
        f"options without a field: {sorted(params - fields)}; fields without: {sorted(fields - params)}"
    )
    # DistributedRequest.workers is not an option of its own: --workers sizes the local pool or cluster
    assert "workers" not in {f.name for f in dataclasses.fields(DistributedRequest) if f.metadata}


def test_predict_request_defaults_are_the_command_defaults():
    from scoremol.inference.request import PredictRequest

    click_app = typer.main.get_command(app)
    defaults = {p.name: p.default for p in click_app.commands["predict"].params}
    for f in dataclasses.fields(PredictRequest):
        assert defaults[f.name] == f.default, f.name
