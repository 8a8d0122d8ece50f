"""Distillation: a teacher labels what the training data lack; the student calibrates on
measured labels only and its domain holds only measured molecules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoremol.api import ScoreRegressor
from scoremol.errors import ScoremolError
from scoremol.models.checkpoint import load_model, save_model
from scoremol.spec import TrainingSpec
from scoremol.training.setup import fit_spec, prepare_training
from scoremol.training.teacher import teacher_predictions, with_teacher_labels
from tests.conftest import run_cli

TINY = {"arch": "gcn", "hidden": 16, "epochs": 2, "ensemble": 1, "descriptors": False, "blend_catboost": 0.0}


@pytest.fixture(scope="module")
def esol(esol_path) -> pd.DataFrame:
    frame = pd.read_csv(esol_path)
    return pd.DataFrame(
        {
            "smiles": frame.smiles.str.strip(),
            "logS": frame["measured log solubility in mols per litre"],
            "mw": frame["Molecular Weight"] / 100,
        }
    )


@pytest.fixture(scope="module")
def teacher_path(esol, tmp_path_factory) -> str:
    """A two-target teacher (logS, mw) on ESOL molecules 0-299."""
    model = ScoreRegressor(**TINY).fit(esol.smiles[:300], esol[["logS", "mw"]][:300]).model_
    path = tmp_path_factory.mktemp("teacher") / "teacher.pt"
    save_model(model, path)
    return str(path)


def test_teacher_fills_only_missing_labels(esol, teacher_path, tmp_path):
    teacher = load_model(teacher_path)
    part = esol[200:400].copy()
    part.loc[part.index[:100], "mw"] = np.nan  # 100 rows lack mw
    part.loc[part.index[150:], ["logS", "mw"]] = np.nan  # 50 rows lack both
    part.to_csv(tmp_path / "part.csv", index=False)
    job = prepare_training(str(tmp_path / "part.csv"), TrainingSpec(**TINY), ["logS", "mw"])
    filled, measured = with_teacher_labels(job.data, ["logS", "mw"], teacher)
    assert measured.shape == (200, 2)
    assert measured[:, 0].sum() == 150 and measured[:, 1].sum() == 50
    before = np.stack([job.data.column_values(t) for t in ("logS", "mw")], axis=1)
    after = np.stack([filled.column_values(t) for t in ("logS", "mw")], axis=1)
    assert np.isfinite(after).all()
    assert np.array_equal(after[measured], before[measured])  # measured labels stay
    expected = teacher_predictions(job.data, ["logS", "mw"], teacher)
    assert np.allclose(after[~measured], expected[~measured])
    # the teacher reads only the molecules that lack a label
    lacking = np.flatnonzero(~measured.all(axis=1))
    some = teacher_predictions(job.data, ["logS", "mw"], teacher, ids=lacking)
    assert np.allclose(some[lacking], expected[lacking], rtol=1e-5) and np.isnan(np.delete(some, lacking, axis=0)).all()


def test_teacher_must_predict_every_target(esol, teacher_path, tmp_path):
    esol[:50].rename(columns={"logS": "other"}).to_csv(tmp_path / "x.csv", index=False)
    job = prepare_training(str(tmp_path / "x.csv"), TrainingSpec(**TINY), ["other"])
    with pytest.raises(ScoremolError, match="predicts logS, mw; it has no other"):
        teacher_predictions(job.data, ["other"], load_model(teacher_path))


def test_student_calibrates_on_measured_labels_and_keeps_measured_molecules(esol, teacher_path, tmp_path):
    esol[300:700][["smiles", "logS"]].to_csv(tmp_path / "labelled.csv", index=False)
    esol[700:1000][["smiles"]].to_csv(tmp_path / "extra.smi", index=False, header=False)
    spec = TrainingSpec(**TINY, teacher=teacher_path)
    job = prepare_training(str(tmp_path / "labelled.csv"), spec, ["logS"], unlabelled=str(tmp_path / "extra.smi"))
    measured = int(np.isfinite(job.data.column_values("logS")).sum())
    extra = job.data.num_graphs - measured  # ESOL repeats a few molecules: the merge keeps one row
    assert measured >= 395 and extra >= 290
    student = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors)
    assert student.metrics["teacher_labels"] == {"logS": extra}
    assert student.metrics["labels"] == {"logS": measured + extra}
    # the domain (and the report's neighbours) hold the measured molecules only
    assert len(student.domain.smiles) == len(student.domain.reference) == measured
    assert set(student.domain.smiles) <= set(esol.smiles[300:700])
    # held-out molecules calibrate only where measured: one member holds out a tenth
    assert 0 < student.metrics["held_out_molecules"] <= measured // 10 + 1


def test_cli_distills_a_student_and_cv_refuses_a_teacher(esol, teacher_path, tmp_path):
    esol[300:500][["smiles", "logS", "mw"]].to_csv(tmp_path / "labelled.csv", index=False)
    esol[500:600][["smiles"]].to_csv(tmp_path / "extra.smi", index=False, header=False)
    out = tmp_path / "student.pt"
    args = ["--arch", "gcn", "--hidden", "16", "--epochs", "2", "--ensemble", "1", "--no-descriptors"]
    _, err, code = run_cli(
        "train", str(tmp_path / "labelled.csv"), "-t", "logS", "-t", "mw", *args,
        "--teacher", teacher_path, "--unlabelled", str(tmp_path / "extra.smi"), "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "measured + 100 by the teacher" in err
    student = load_model(out)
    assert student.metrics["teacher_labels"] == {"logS": 100, "mw": 100}
    assert student.train_config["spec"]["teacher"] == teacher_path
    _, err, code = run_cli("train", str(tmp_path / "labelled.csv"), "--unlabelled", str(tmp_path / "extra.smi"))
    assert code != 0 and "need a --teacher" in err
    _, err, code = run_cli("cv", str(tmp_path / "labelled.csv"), "-t", "logS", *args, "--teacher", teacher_path)
    assert code != 0 and "cannot distill" in err and len(err.strip().splitlines()) == 1


def test_score_regressor_distills_rows_without_labels(esol, teacher_path):
    y = esol.logS[300:500].to_numpy().copy()
    y[150:] = np.nan  # 50 molecules for the teacher alone
    student = ScoreRegressor(**TINY, teacher=teacher_path).fit(esol.smiles[300:500], y, target="logS")
    assert student.model_.metrics["teacher_labels"] == {"logS": 50}
    assert np.isfinite(student.predict(["CCO"])).all()
