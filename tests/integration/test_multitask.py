"""Multi-task training from several inputs: molecules matched across data sets, missing
labels masked, one blended tree and one calibration per target, task-balanced loss weights."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import torch

from scoremol.calibration.domain import to_similarity
from scoremol.calibration.neighbours import neighbour_distance
from scoremol.data.read import MoleculeChunk
from scoremol.data.registry import REGISTRY, resolve_input
from scoremol.featurizers.merge import MergeSource, merge_sources, molecule_key
from scoremol.models.checkpoint import _load_tree, load_model, save_model
from scoremol.spec import TrainingSpec
from scoremol.training.member import _masked_loss, task_weights
from scoremol.training.setup import fit_spec, prepare_training
from tests.conftest import run_cli

TINY = {"arch": "gcn", "hidden": 16, "epochs": 2, "ensemble": 2, "descriptors": False}


def _chunk(frame: pd.DataFrame) -> MoleculeChunk:
    return MoleculeChunk(frame.astype(str), frame.smiles.astype(str).tolist(), 0)


def test_merge_matches_molecules_across_inputs_and_averages_repeats():
    water = pd.DataFrame(
        {"smiles": ["CCO", "c1ccccc1", "CC(=O)[O-].[Na+]", "CCO", "not a smiles"], "logS": [1.0, -2.0, 0.5, 2.0, 3.0]}
    )
    buffer = pd.DataFrame({"smiles": ["OCC", "CC(=O)O", "CCCC"], "sol": [1.5, 1.2, np.nan]})
    chunk, report = merge_sources(
        [MergeSource("w", _chunk(water), ["logS"]), MergeSource("b", _chunk(buffer), ["sol"])]
    )
    frame = chunk.frame
    assert list(frame.columns) == ["smiles", "logS", "sol"]
    # ethanol twice in water (averaged) and once in buffer as "OCC"; sodium acetate's parent
    # is acetic acid, as in buffer; the unparsable row keeps its own row; CCCC has no label
    assert len(frame) == 4 and "CCCC" not in set(frame.smiles)
    ethanol = frame[frame.smiles == "CCO"].iloc[0]
    assert float(ethanol.logS) == 1.5 and float(ethanol.sol) == 1.5
    acetate = frame[frame.smiles == "CC(=O)[O-].[Na+]"].iloc[0]
    assert float(acetate.logS) == 0.5 and float(acetate.sol) == 1.2
    assert frame[frame.smiles == "c1ccccc1"].iloc[0].sol == ""
    assert report.shared == 2 and report.averaged == 1 and report.labels == {"logS": 4, "sol": 2}
    assert molecule_key("OCC", True) == molecule_key("CCO", True)


def test_every_unparsable_row_stays_a_row_of_its_own():
    """Two rows with the same unreadable text are two failed rows (counted as such), not
    one row whose labels were averaged."""
    water = pd.DataFrame({"smiles": ["CCO", "not_a_smiles", "not_a_smiles"], "logS": [1.0, 2.0, 3.0]})
    buffer = pd.DataFrame({"smiles": ["not_a_smiles"], "sol": [4.0]})
    chunk, report = merge_sources(
        [MergeSource("w", _chunk(water), ["logS"]), MergeSource("b", _chunk(buffer), ["sol"])]
    )
    assert chunk.smiles == ["CCO", "not_a_smiles", "not_a_smiles", "not_a_smiles"]
    assert chunk.frame.logS.tolist() == ["1.0", "2.0", "3.0", ""] and report.averaged == 0


def test_task_weights_balance_tasks_and_leave_one_target_alone():
    y = np.full((100, 2), np.nan)
    y[:90, 0] = 1.0
    y[90:, 1] = 1.0
    assert task_weights(y[:, :1], 1.0) is None and task_weights(y, 0.0) is None
    w = task_weights(y, 1.0)
    counts = np.array([90, 10])
    assert np.allclose(w * counts, (w * counts)[0])  # each task weighs the same in total
    assert np.isclose((w * counts).sum(), counts.sum())  # labels' mean weight is 1
    pred = torch.zeros(4, 2)
    target = torch.tensor([[1.0, float("nan")], [1.0, float("nan")], [float("nan"), 3.0], [1.0, float("nan")]])
    plain = _masked_loss(pred, target)
    assert torch.isclose(plain, torch.tensor((1 + 1 + 9 + 1) / 4))
    balanced = _masked_loss(pred, target, torch.tensor([1.0, 3.0]))
    assert torch.isclose(balanced, torch.tensor((1 + 1 + 3 * 9 + 1) / 6))


def _two_inputs(tmp_path, esol_path):
    esol = pd.read_csv(esol_path)
    a = pd.DataFrame(
        {"smiles": esol.smiles.str.strip()[:120], "logS": esol["measured log solubility in mols per litre"][:120]}
    )
    b = pd.DataFrame({"SMILES": esol.smiles.str.strip()[80:200], "mw": esol["Molecular Weight"][80:200] / 100})
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    return str(tmp_path / "a.csv"), str(tmp_path / "b.csv")


@pytest.mark.slow
def test_two_inputs_train_one_blended_calibrated_model_per_target(tmp_path, esol_path):
    a, b = _two_inputs(tmp_path, esol_path)
    spec = TrainingSpec(**{**TINY, "descriptors": True}, blend_catboost=0.3)
    job = prepare_training([a, b], spec, ["logS", "mw"])
    assert job.targets == ["logS", "mw"] and job.data.num_graphs == 200  # 40 molecules in both
    model = fit_spec(job.data, job.targets, job.spec, job.plan.network_descriptors)
    assert model.metrics["labels"] == {"logS": 120, "mw": 120}
    assert len(model.tree.blobs) == 2 and all(model.tree.blobs) and len(model.calibration) == 2
    result = model.predict(job.data)
    own = job.data.select_descriptors(job.plan.network_descriptors)
    networks = model.without_tree().predict(own, domain=False).mean
    trees = model.tree.predict(job.data.descriptors)
    w = np.asarray(model.tree.weights)  # each target its own tree, and its own weight
    assert len(w) == 2 and np.allclose(result.mean, (1 - w) * networks + w * trees, atol=1e-5)
    path = tmp_path / "m.pt"
    save_model(model, path)
    back = load_model(path)
    assert back.tree.best_iterations == model.tree.best_iterations
    assert np.allclose(back.predict(job.data).mean, result.mean)
    # each target's interval reads similarity to the molecules measured for that target
    domain = model.domain
    assert domain.per_task and len(domain.task_neighbours) == 2
    embedding = model.predict(job.data, embed=True).embedding
    for t in range(2):
        rows = np.flatnonzero(np.isfinite(domain.labels[:, t]))
        distance = neighbour_distance(embedding, domain.reference[rows], domain.task_neighbours[t])
        expected = to_similarity(distance, domain.task_typical[t])
        assert np.allclose(result.task_similarity[:, t], expected, atol=1e-6)
        assert np.allclose(result.difficulty(t)[:, 0], expected, atol=1e-6)
    assert not np.allclose(result.task_similarity[:, 0], result.task_similarity[:, 1])
    assert np.allclose(back.predict(job.data).task_similarity, result.task_similarity)


def test_a_single_tree_file_of_the_earlier_format_loads():
    blob = torch.frombuffer(bytearray(b"cbm-bytes"), dtype=torch.uint8)
    tree = _load_tree({"kind": "catboost", "weight": 0.4, "best_iteration": 1999}, {"tree": blob})
    assert tree.blobs == [b"cbm-bytes"] and tree.weights == [0.4] and tree.best_iteration == 1999
    with pytest.raises(ValueError):
        _load_tree({"kind": "catboost", "weight": 0.4}, {})


def test_cli_trains_on_several_inputs_and_predicts_every_task(tmp_path, esol_path):
    a, b = _two_inputs(tmp_path, esol_path)
    model_path = tmp_path / "m.pt"
    _, err, code = run_cli(
        "train",
        a,
        b,
        "-t",
        "logS",
        "-t",
        "mw",
        "--arch",
        "gcn",
        "--hidden",
        "16",
        "--epochs",
        "2",
        "--ensemble",
        "1",
        "--blend-catboost",
        "0",
        "-o",
        str(model_path),
    )
    assert code == 0, err
    assert "labelled logS" in err and "labelled mw" in err
    out, err, code = run_cli("predict", "CCO", "c1ccccc1", "-m", str(model_path))
    assert code == 0, err
    header = out.splitlines()[0].split(",")
    assert {"logS_pred", "mw_pred", "logS_lo", "mw_hi"} <= set(header)


def test_several_inputs_errors_name_the_input(tmp_path, esol_path):
    a, b = _two_inputs(tmp_path, esol_path)
    _, err, code = run_cli("train", a, b, "-t", "nope", "-o", str(tmp_path / "m.pt"))
    assert code != 0 and "has none of the targets nope" in err and len(err.strip().splitlines()) == 1
    _, err, code = run_cli("train", a, b, "-o", str(tmp_path / "m.pt"))
    assert code != 0 and "--target" in err


def test_biogen_is_a_registry_name_with_its_solubility_target():
    path, entry = resolve_input("biogen")
    assert entry is REGISTRY["biogen"] and entry.target_col == "LOG SOLUBILITY PH 6.8 (ug/mL)"
    assert entry.units == "log10(ug/mL)" and path.endswith("biogen_adme.csv")


def test_cv_of_several_inputs_scores_every_target(tmp_path, esol_path):
    from scoremol.training.cv import cross_validate
    from scoremol.training.cv_files import write_outputs

    a, b = _two_inputs(tmp_path, esol_path)
    spec = TrainingSpec(**{**TINY, "ensemble": 1}, blend_catboost=0.0, calibrate=False)
    job = prepare_training([a, b], spec, ["logS", "mw"])
    run = cross_validate(job.data, job.targets, job.spec, folds=2)
    tasks = run.summary["tasks"]
    assert set(tasks) == {"logS", "mw"} and all(np.isfinite(tasks[t]["rmse"]["mean"]) for t in tasks)
    assert run.summary["rmse"]["mean"] == tasks["logS"]["rmse"]["mean"]  # the headline is the first target
    write_outputs(tmp_path / "cv", run, job.data, job.targets)
    oof = pd.read_csv(tmp_path / "cv" / "oof_predictions.csv")
    assert {"logS_pred", "mw_pred", "mw_true"} <= set(oof.columns) and len(oof) == 200
    assert oof.mw_true.notna().sum() == 120


def test_thresholds_per_target_and_solubility_in_ug_per_ml(tmp_path, esol_path):
    a, b = _two_inputs(tmp_path, esol_path)
    spec = TrainingSpec(**{**TINY, "ensemble": 1}, blend_catboost=0.0)
    job = prepare_training([a, b], spec, ["logS", "mw"])
    model = fit_spec(job.data, job.targets, job.spec)
    model.target_units = ["log10(mol/L)", ""]
    path = tmp_path / "m.pt"
    save_model(model, path)
    out, err, code = run_cli(
        "predict", "CCO", "OCC(O)CO", "-m", str(path), "--threshold", "-1", "--threshold", "mw=0.5", "--ugml"
    )
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert {"logS_p_below", "mw_p_below", "S_ugml", "S_ugml_lo", "S_ugml_hi"} <= set(frame.columns)
    assert "mw_ugml" not in frame.columns  # not a solubility
    mass = np.array([46.069, 92.094])  # ethanol, glycerol (g/mol)
    assert np.allclose(frame.S_ugml, 10**frame.logS_pred * mass * 1000, rtol=1e-3)
    assert (frame.S_ugml_lo <= frame.S_ugml).all() and (frame.S_ugml <= frame.S_ugml_hi).all()
    out, _, _ = run_cli("predict", "CCO", "-m", str(path), "--threshold", "-1")
    assert "logS_p_below" in out and "mw_p_below" not in out  # a bare number: the first target
    _, err, code = run_cli("predict", "CCO", "-m", str(path), "--threshold", "logX=1")
    assert code != 0 and "this model predicts logS, mw" in err


@pytest.mark.slow
def test_score_regressor_fits_a_two_column_y_with_gaps_and_blends_each_target(esol_path):
    from scoremol import ScoreRegressor

    esol = pd.read_csv(esol_path).head(160)
    y = pd.DataFrame({"logS": esol["measured log solubility in mols per litre"], "mw": esol["Molecular Weight"] / 100})
    y.loc[::3, "logS"] = np.nan  # a third of each column unmeasured
    y.loc[1::3, "mw"] = np.nan
    model = ScoreRegressor(**TINY, blend_catboost=0.3).fit(esol.smiles.str.strip(), y)
    assert model.model_.target_names == ["logS", "mw"] and len(model.model_.tree.blobs) == 2
    pred = model.predict(["CCO", "c1ccccc1", "not a smiles"])
    assert pred.shape == (3, 2) and np.isnan(pred[2]).all() and np.isfinite(pred[:2]).all()
    mean, lo, hi = model.predict_interval(["CCO", "c1ccccc1"], target=1)
    assert np.allclose(mean, pred[:2, 1]) and (lo < mean).all() and (mean < hi).all()
