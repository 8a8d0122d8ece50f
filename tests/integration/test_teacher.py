"""Distillation: a teacher labels what the training data lack; the student calibrates on
measured labels only and its domain holds only measured molecules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoremol.api import ScoreRegressor
from scoremol.errors import ScoremolError
from scoremol.featurizers.merge import molecule_key
from scoremol.models.checkpoint import load_model, save_model
from scoremol.spec import TrainingSpec
from scoremol.training.setup import fit_spec, prepare_training
from scoremol.training.teacher import teacher_predictions, unseen_by_teacher, with_teacher_labels
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
    # the teacher never saw these measured molecules: the one member holds out a tenth of
    # the training rows, all of them measured
    assert student.metrics["held_out_molecules"] == job.data.num_graphs // 10
    assert student.metrics["calibrated_unseen_by_teacher"] is True


def test_student_holds_out_only_molecules_its_teacher_never_saw(esol, teacher_path, tmp_path):
    # ESOL 200-329: the teacher (0-299) saw all but the last 30
    esol[200:330][["smiles", "logS"]].to_csv(tmp_path / "labelled.csv", index=False)
    esol[700:1000][["smiles"]].to_csv(tmp_path / "extra.smi", index=False, header=False)
    spec = TrainingSpec(**TINY, teacher=teacher_path)
    job = prepare_training(str(tmp_path / "labelled.csv"), spec, ["logS"], unlabelled=str(tmp_path / "extra.smi"))
    teacher = load_model(teacher_path)
    unseen = unseen_by_teacher(job.data, teacher)
    smiles = job.data.graph_smiles(np.arange(job.data.num_graphs))
    seen = {molecule_key(s, teacher.featurizer.standardize) for s in esol.smiles[:300]}
    assert [molecule_key(s, teacher.featurizer.standardize) not in seen for s in smiles] == unseen.tolist()
    measured_unseen = unseen & np.isfinite(job.data.column_values("logS"))
    assert 28 <= measured_unseen.sum() <= 30
    student = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors)
    # a tenth of the ~430 rows is more than the unseen measured molecules: all of them, no
    # more (a random tenth would hold out about 13 measured ones)
    assert job.data.num_graphs // 10 > measured_unseen.sum()
    assert student.metrics["held_out_molecules"] == measured_unseen.sum()
    assert student.metrics["calibrated_unseen_by_teacher"] is True
    # a teacher that saw every measured molecule: a random tenth, and the model says so
    esol[:200][["smiles", "logS"]].to_csv(tmp_path / "seen.csv", index=False)
    job = prepare_training(str(tmp_path / "seen.csv"), spec, ["logS"], unlabelled=str(tmp_path / "extra.smi"))
    assert not (unseen_by_teacher(job.data, teacher) & np.isfinite(job.data.column_values("logS"))).any()
    student = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors)
    assert student.metrics["calibrated_unseen_by_teacher"] is False
    assert student.metrics["held_out_molecules"] > 0


def test_exclude_leaves_molecules_out_of_training(esol, tmp_path):
    esol[:300][["smiles", "logS"]].to_csv(tmp_path / "train.csv", index=False)
    esol[:300:6][["smiles"]].to_csv(tmp_path / "exclude.smi", index=False, header=False)  # 50 molecules
    job = prepare_training(
        str(tmp_path / "train.csv"), TrainingSpec(**TINY), ["logS"], exclude=str(tmp_path / "exclude.smi")
    )
    kept = set(job.data.graph_smiles(job.rows))
    listed = set(esol.smiles[:300:6])
    assert job.left_out == job.data.num_graphs - len(job.rows) >= 50
    assert not kept & listed and len(kept) >= 300 - 50 - 5
    model = fit_spec(job.data, job.targets, job.spec, rows=job.rows)
    assert not set(model.domain.smiles) & listed
    assert model.metrics["n_train_molecules"] == len(job.rows)
    with pytest.raises(ScoremolError, match="--exclude"):
        prepare_training(str(tmp_path / "train.csv"), TrainingSpec(**TINY), ["logS"], exclude="-")


def test_cli_distills_a_student_and_cv_refuses_a_teacher(esol, teacher_path, tmp_path):
    esol[300:500][["smiles", "logS", "mw"]].to_csv(tmp_path / "labelled.csv", index=False)
    esol[500:600][["smiles"]].to_csv(tmp_path / "extra.smi", index=False, header=False)
    out = tmp_path / "student.pt"
    args = [
        "--arch",
        "gcn",
        "--hidden",
        "16",
        "--epochs",
        "2",
        "--ensemble",
        "1",
        "--no-descriptors",
        "--blend-catboost",
        "0",
    ]
    _, err, code = run_cli(
        "train", str(tmp_path / "labelled.csv"), "-t", "logS", "-t", "mw", *args,
        "--teacher", teacher_path, "--unlabelled", str(tmp_path / "extra.smi"), "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "measured + 100 by the teacher" in err
    student = load_model(out)
    assert student.metrics["teacher_labels"] == {"logS": 100, "mw": 100}
    assert student.train_config["spec"]["teacher"] == teacher_path
    assert "may be too narrow" not in err  # the teacher never saw ESOL 300-499
    # a teacher trained with --exclude never saw those molecules
    esol[:100][["smiles", "logS", "mw"]].to_csv(tmp_path / "seen.csv", index=False)
    esol[:100:2][["smiles"]].to_csv(tmp_path / "keep_out.smi", index=False, header=False)
    _, err, code = run_cli(
        "train", str(tmp_path / "seen.csv"), "-t", "logS", "-t", "mw", *args,
        "--exclude", str(tmp_path / "keep_out.smi"), "-o", str(tmp_path / "partial.pt"),
    )  # fmt: skip
    assert code == 0, err
    assert "listed in" in err and "are left out" in err
    _, err, code = run_cli(
        "train", str(tmp_path / "seen.csv"), "-t", "logS", "-t", "mw", *args, "--ensemble", "1",
        "--teacher", teacher_path, "--unlabelled", str(tmp_path / "extra.smi"), "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "may be too narrow" in err  # the teacher saw ESOL 0-99
    _, err, code = run_cli("train", str(tmp_path / "labelled.csv"), "--unlabelled", str(tmp_path / "extra.smi"))
    assert code != 0 and "need a --teacher" in err
    missing = tmp_path / "no_teacher.pt"
    _, err, code = run_cli("train", str(tmp_path / "labelled.csv"), "-t", "logS", *args, "--teacher", str(missing))
    assert code == 1 and "no such model file or bundled model" in err
    # checked before any input is read: a missing input too is not what it reports
    _, err, code = run_cli("train", str(tmp_path / "absent.csv"), "-t", "logS", *args, "--teacher", str(missing))
    assert code == 1 and "no such model file or bundled model" in err
    _, err, code = run_cli("cv", str(tmp_path / "labelled.csv"), "-t", "logS", *args, "--teacher", teacher_path)
    assert code != 0 and "cannot distill" in err and len(err.strip().splitlines()) == 1


def test_score_regressor_distills_rows_without_labels(esol, teacher_path):
    y = esol.logS[300:500].to_numpy().copy()
    y[150:] = np.nan  # 50 molecules for the teacher alone
    student = ScoreRegressor(**TINY, teacher=teacher_path).fit(esol.smiles[300:500], y, target="logS")
    assert student.model_.metrics["teacher_labels"] == {"logS": 50}
    assert np.isfinite(student.predict(["CCO"])).all()
