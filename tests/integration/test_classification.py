"""Yes/no targets end to end: training, model files, predict's columns, cv, mixed models,
ScoreClassifier with scikit-learn's tools. A shared PharmaBench BBB sample, a fixed seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoremol import ScoreClassifier
from scoremol.data.read import smiles_chunk
from scoremol.data.registry import resolve
from scoremol.errors import ScoremolError
from scoremol.inference.columns import OutputOptions, chunk_output
from scoremol.inference.predict import predict_part
from scoremol.models.checkpoint import load_model, save_model
from scoremol.spec import TrainingSpec
from scoremol.training.setup import fit_spec, prepare_training

FAST = {"arch": "gcn", "hidden": 32, "epochs": 12, "ensemble": 2, "descriptors": False, "blend_catboost": 0.0}


@pytest.fixture(scope="module")
def bbb() -> pd.DataFrame:
    """600 training and 300 test molecules of the BBB scaffold split, labelled yes/no."""
    frame = pd.read_csv(resolve("pharmabench-bbb"))
    frame = pd.DataFrame(
        {"smiles": frame.Smiles_unify, "bbb": frame.value.map({1.0: "yes", 0.0: "no"}), "set": frame.iloc[:, 4]}
    )
    train = frame[frame.set == "train"].sample(600, random_state=0)
    test = frame[frame.set == "test"].sample(300, random_state=0)
    return pd.concat([train, test], ignore_index=True)


@pytest.fixture(scope="module")
def trained(bbb, tmp_path_factory):
    path = tmp_path_factory.mktemp("bbb") / "train.csv"
    bbb[bbb.set == "train"][["smiles", "bbb"]].to_csv(path, index=False)
    job = prepare_training(str(path), TrainingSpec(**FAST), ["bbb"])
    model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, tasks=job.tasks)
    return job, model


def test_yes_no_column_trains_a_classifier_that_ranks_and_is_calibrated(bbb, trained):
    job, model = trained
    assert job.tasks[0].kind == "classification" and model.target_classes == [["no", "yes"]]
    test = bbb[bbb.set == "test"]
    result = predict_part(model, smiles_chunk(test.smiles.tolist()))
    prob = model.calibration[0].probability(result.mean[:, 0])
    truth = (test.bbb.to_numpy()[result.graph_row] == "yes").astype(float)
    from scoremol.training.metrics import classification_metrics

    scores = classification_metrics(truth, prob)
    assert scores["auroc"] > 0.78, scores  # a tiny network on 600 molecules; a coin is 0.5
    assert scores["ece"] < 0.1 and scores["brier"] < 0.2, scores


def test_predict_writes_probability_class_and_set(trained, tmp_path):
    _, model = trained
    chunk = smiles_chunk(["CCO", "not a smiles", "CN1CCC[C@H]1c1cccnc1"])
    out = chunk_output(model, chunk, predict_part(model, chunk))
    assert [c for c in out.columns if c.startswith("bbb")] == ["bbb_prob", "bbb_class", "bbb_set"]
    assert "bbb_pred" not in out.columns and "bbb_lo" not in out.columns
    ok = out.status == "ok"
    assert out.bbb_prob[ok].between(0, 1).all() and np.isnan(out.bbb_prob[~ok]).all()
    assert set(out.bbb_class[ok]) <= {"yes", "no"} and out.bbb_class[~ok].tolist() == [""]
    assert set(out.bbb_set[ok]) <= {"{no}", "{yes}", "{no,yes}", "{}"}
    with pytest.raises(ScoremolError, match="no meaning for the yes/no target bbb"):
        OutputOptions(threshold=0.5).check(model)


def test_model_file_round_trip_keeps_classes_and_calibration(trained, tmp_path):
    _, model = trained
    save_model(model, tmp_path / "m.pt")
    again = load_model(tmp_path / "m.pt")
    assert again.target_kinds == ["classification"] and again.target_classes == [["no", "yes"]]
    chunk = smiles_chunk(["CCO", "c1ccccc1O"])
    a, b = (
        chunk_output(model, chunk, predict_part(model, chunk)),
        chunk_output(again, chunk, predict_part(again, chunk)),
    )
    assert np.allclose(a.bbb_prob, b.bbb_prob) and a.bbb_set.tolist() == b.bbb_set.tolist()

    from scoremol.models.metadata import read_metadata

    assert read_metadata(tmp_path / "m.pt")["format_version"] == 2  # older readers refuse it


@pytest.mark.slow
def test_mixed_model_masks_each_task_and_gives_each_its_columns(bbb, tmp_path, esol_path):
    water = pd.read_csv(esol_path).head(200)
    water = pd.DataFrame({"smiles": water.smiles, "logS": water["measured log solubility in mols per litre"]})
    water.to_csv(tmp_path / "water.csv", index=False)
    bbb[bbb.set == "train"].head(200)[["smiles", "bbb"]].to_csv(tmp_path / "bbb.csv", index=False)
    job = prepare_training(
        [str(tmp_path / "water.csv"), str(tmp_path / "bbb.csv")], TrainingSpec(**FAST), ["logS", "bbb"]
    )
    assert [t.kind for t in job.tasks] == ["regression", "classification"]
    model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, tasks=job.tasks)
    assert type(model.calibration[0]).__name__ == "Calibration" and model.classify == [False, True]
    chunk = smiles_chunk(water.smiles.tolist())
    out = chunk_output(model, chunk, predict_part(model, chunk))
    assert {"logS_pred", "logS_lo", "logS_hi", "bbb_prob", "bbb_class", "bbb_set"} <= set(out.columns)
    from scipy.stats import spearmanr

    assert spearmanr(out.logS_pred, water.logS).statistic > 0.5  # the water head learned water solubility


@pytest.mark.slow
def test_cv_reports_classification_metrics_per_fold(bbb, tmp_path):
    from scoremol.training.cv import cross_validate

    bbb[bbb.set == "train"].head(300)[["smiles", "bbb"]].to_csv(tmp_path / "b.csv", index=False)
    spec = TrainingSpec(**{**FAST, "hidden": 16, "epochs": 4, "ensemble": 1})
    job = prepare_training(str(tmp_path / "b.csv"), spec, ["bbb"])
    run = cross_validate(job.data, "bbb", job.spec, folds=3, tasks=job.tasks)
    row = run.results[0].row()
    assert {"auroc", "auprc", "balanced_accuracy", "brier", "ece"} <= set(row)
    assert 0.5 < run.summary["auroc"]["mean"] <= 1 and 0 < run.summary["brier"]["mean"] < 0.25


@pytest.mark.slow
def test_score_classifier_works_with_scikit_learn_tools(bbb):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import Pipeline

    train = bbb[bbb.set == "train"].head(240)  # 24 held out by the one member: enough to calibrate
    x, y = train.smiles.to_numpy(), train.bbb.to_numpy()
    options = {**FAST, "hidden": 16, "epochs": 2, "ensemble": 1}
    clf = ScoreClassifier(**options).fit(x, y)
    assert list(clf.classes_) == ["no", "yes"]
    proba = clf.predict_proba(["CCO", "bad smiles"])
    assert np.isclose(proba[0].sum(), 1) and np.isnan(proba[1]).all()
    assert clf.predict(["CCO", "bad smiles"])[1] is None and clf.predict_set(["CCO"]).shape == (1, 2)
    scores = cross_val_score(ScoreClassifier(**options), x, y, cv=KFold(2), scoring="roc_auc")
    assert len(scores) == 2 and np.all(np.isfinite(scores))
    pipe = Pipeline([("model", ScoreClassifier(**options))]).fit(x, y)
    assert pipe.predict(x[:3]).shape == (3,)
    calibrated = CalibratedClassifierCV(ScoreClassifier(**options), cv=2).fit(x, y)
    assert calibrated.predict_proba(x[:4]).shape == (4, 2)


def test_explain_attributes_the_positive_class_logit(trained):
    from scoremol.inference.explain import atom_contributions

    _, model = trained
    smiles = "CN1CCC[C@H]1c1cccnc1"
    (result,) = atom_contributions(model, [smiles])
    logit = predict_part(model, smiles_chunk([smiles])).mean[0, 0]
    assert result.ok and len(result.weights) == 12
    assert result.prediction == pytest.approx(logit, abs=1e-4)  # the logit, not a probability in [0, 1]


def test_a_blended_yes_no_target_gets_a_classifier_tree_blended_as_a_logit(bbb, tmp_path):
    """The tree of a yes/no target is a CatBoost classifier (log loss), and the model's
    logit is the blend of the networks' logit and the tree's raw (log-odds) output."""
    from scoremol.models.catboost import catboost_from_bytes

    bbb[bbb.set == "train"].head(80)[["smiles", "bbb"]].to_csv(tmp_path / "train.csv", index=False)
    spec = TrainingSpec(**{**FAST, "epochs": 2, "hidden": 16, "blend_catboost": 0.5}, calibrate=False)
    job = prepare_training(str(tmp_path / "train.csv"), spec, ["bbb"])
    model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors, tasks=job.tasks)
    booster = catboost_from_bytes(model.tree.blobs[0])
    assert booster.get_all_params()["loss_function"] == "Logloss"
    ids = np.arange(20)
    blended = model.predict(job.data, ids=ids, domain=False).mean[:, 0]
    networks = model.without_tree().predict(job.data, ids=ids, domain=False).mean[:, 0]
    from scoremol.models.catboost import catboost_features

    raw = booster.predict(catboost_features(job.data, morgan=False)[ids])
    assert np.allclose(blended, 0.5 * networks + 0.5 * raw, atol=1e-5)
    assert np.abs(raw).max() > 1.0  # log-odds, not a probability in [0, 1]
