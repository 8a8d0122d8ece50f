"""--from: members start from a base model's, heads of shared targets carry over, the file
records its base, an incompatible base is refused before any work."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.data.read import smiles_chunk
from scoremol.errors import ScoremolError
from scoremol.inference.predict import predict_part
from scoremol.models.checkpoint import load_model, save_model
from scoremol.spec import TrainingSpec
from scoremol.training.base import start_state
from scoremol.training.setup import fit_spec, prepare_training

TINY = {"arch": "gcn", "hidden": 16, "epochs": 3, "ensemble": 2, "descriptors": False, "blend_catboost": 0.0}


def test_start_state_keeps_shared_heads_and_takes_new_rows_from_a_fresh_member():
    base = {
        "encoder.w": torch.ones(2, 2),
        "head.lins.0.weight": torch.ones(4, 3),
        "head.lins.1.weight": torch.arange(6.0).reshape(2, 3),
        "head.lins.1.bias": torch.tensor([7.0, 8.0]),
    }
    fresh = {k: torch.zeros_like(v) for k, v in base.items()}
    fresh["head.lins.1.weight"], fresh["head.lins.1.bias"] = torch.full((3, 3), -1.0), torch.full((3,), -1.0)
    state = start_state(base, [1, None, 0], fresh)
    assert torch.equal(state["encoder.w"], base["encoder.w"])
    assert state["head.lins.1.weight"].tolist() == [[3, 4, 5], [-1, -1, -1], [0, 1, 2]]
    assert state["head.lins.1.bias"].tolist() == [8, -1, 7]


@pytest.fixture(scope="module")
def base_file(tmp_path_factory, esol_path):
    folder = tmp_path_factory.mktemp("base")
    esol = pd.read_csv(esol_path).head(300)
    frame = pd.DataFrame({"smiles": esol.smiles, "logS": esol["measured log solubility in mols per litre"]})
    frame["mw"] = esol["Molecular Weight"]
    frame.to_csv(folder / "base.csv", index=False)
    job = prepare_training(str(folder / "base.csv"), TrainingSpec(**TINY, calibrate=False), ["logS", "mw"])
    save_model(fit_spec(job.data, job.targets, job.spec, units=job.units), folder / "base.pt")
    return folder


def test_fine_tuning_starts_where_the_base_ends(base_file, tmp_path):
    frame = pd.read_csv(base_file / "base.csv").head(120)
    frame["rings"] = frame.smiles.str.count("1")  # a target the base never learned
    frame[["smiles", "logS", "rings"]].to_csv(tmp_path / "mine.csv", index=False)
    base = str(base_file / "base.pt")
    spec = TrainingSpec(**{**TINY, "epochs": 1}, lr=1e-12, calibrate=False, base=base)  # a step too small to move
    job = prepare_training(str(tmp_path / "mine.csv"), spec, ["logS", "rings"])
    model = fit_spec(job.data, job.targets, job.spec, units=job.units)
    assert model.metrics["base"]["reused"] == ["logS", None] and len(model.metrics["base"]["sha256"]) == 64
    chunk = smiles_chunk(["CCO", "c1ccccc1", "CCCCCCCCO"])
    mine, theirs = predict_part(model, chunk).mean, predict_part(load_model(base), chunk).mean
    assert np.allclose(mine[:, 0], theirs[:, 0], atol=1e-4)  # the reused head answers as the base did
    save_model(model, tmp_path / "mine.pt")
    assert load_model(tmp_path / "mine.pt").metrics["base"]["name"] == base


def test_staged_unfreezing_trains_only_the_heads_while_frozen(base_file, tmp_path):
    pd.read_csv(base_file / "base.csv").head(120)[["smiles", "logS"]].to_csv(tmp_path / "mine.csv", index=False)
    base = load_model(base_file / "base.pt")

    def tuned(freeze: int):
        spec = TrainingSpec(
            **{**TINY, "epochs": 2}, calibrate=False, base=str(base_file / "base.pt"), base_freeze=freeze
        )
        job = prepare_training(str(tmp_path / "mine.csv"), spec, ["logS"])
        return fit_spec(job.data, job.targets, job.spec, units=job.units)

    for freeze, encoder_kept in ((2, True), (1, False)):
        after, before = tuned(freeze).members[0].state_dict, base.members[0].state_dict
        body = [k for k in before if not k.startswith("head.")]
        assert body and all(torch.equal(after[k], before[k]) for k in body) == encoder_kept
        assert not torch.equal(after["head.lins.0.weight"], before["head.lins.0.weight"])


def test_an_incompatible_base_is_refused_before_featurizing(base_file, tmp_path):
    spec = TrainingSpec(**{**TINY, "hidden": 32}, base=str(base_file / "base.pt"))
    with pytest.raises(ScoremolError, match="hidden 16 \\(not 32\\)"):
        prepare_training("no-such-file.csv", spec, ["logS"])
    with pytest.raises(ScoremolError, match="no such model file or bundled model"):
        prepare_training("no-such-file.csv", TrainingSpec(**TINY, base="nope.pt"), ["logS"])
    assert TrainingSpec(base="multitask").resolved().epochs == 30  # fine-tuning's own schedule


@pytest.mark.slow
def test_cv_fine_tunes_each_fold_from_the_base(base_file):
    """The mechanism only: the base saw every molecule, so this is no accuracy figure."""
    from scoremol.training.cv import cross_validate

    rmse = {}
    for base in (None, str(base_file / "base.pt")):
        spec = TrainingSpec(**{**TINY, "epochs": 1, "ensemble": 1}, calibrate=False, base=base)
        job = prepare_training(str(base_file / "base.csv"), spec, ["logS"])
        run = cross_validate(job.data, "logS", job.spec, folds=2, tasks=job.tasks, units=job.units)
        rmse[base is None] = run.summary["rmse"]["mean"]
    assert rmse[False] < rmse[True] - 0.1, rmse  # one epoch from the base beats one epoch from scratch
