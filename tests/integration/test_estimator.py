"""``ScoreRegressor``: the command line's model as a scikit-learn style estimator."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from scoremol import ScoreRegressor, TrainingSpec
from scoremol.errors import ScoremolError
from scoremol.models.checkpoint import load_model
from scoremol.spec import DEFAULTS
from scoremol.training.metrics import regression_metrics
from tests.conftest import ESOL_TARGET, PRED, run_cli


@pytest.fixture(scope="module")
def esol100(esol_path):
    frame = pd.read_csv(esol_path)
    return frame["smiles"].head(100).tolist(), frame[ESOL_TARGET].head(100), frame.iloc[100:140]


@pytest.fixture(scope="module")
def fitted(esol100):
    smiles, y, _ = esol100
    return ScoreRegressor(preset="fast", epochs=3).fit(smiles, y)


def test_defaults_are_the_command_lines():
    assert ScoreRegressor().spec == TrainingSpec()
    assert ScoreRegressor().spec.resolved() == DEFAULTS
    assert repr(ScoreRegressor()) == "ScoreRegressor()"
    assert repr(ScoreRegressor(preset="fast", epochs=3)) == "ScoreRegressor(preset='fast', epochs=3)"


def test_fit_trains_what_the_spec_describes(fitted, esol100):
    smiles, _, _ = esol100
    assert fitted.n_failed_ == 0
    model = fitted.model_
    fast = TrainingSpec(preset="fast", epochs=3).resolved()
    assert model.target_names == [ESOL_TARGET]  # named after the Series
    assert len(model.members) == fast.ensemble == 1 and model.tree is None
    assert model.model_config.hidden == fast.hidden and not model.model_config.use_descriptors
    assert model.members[0].epochs_run == 3 and model.metrics["n_train_molecules"] == 100
    assert model.train_config["spec"] == fast.to_dict()


def test_predict_score_and_invalid_smiles(fitted, esol100):
    _, _, held_out = esol100
    smiles = held_out["smiles"].tolist()
    pred = fitted.predict(smiles)
    assert pred.shape == (40,) and np.isfinite(pred).all()
    mixed = fitted.predict(["CCO", "not a smiles", "", smiles[0]])
    assert np.isnan(mixed[1]) and np.isnan(mixed[2]) and np.isfinite(mixed[[0, 3]]).all()
    assert mixed[3] == pytest.approx(pred[0])  # a molecule's prediction does not depend on its batch
    mean, std = fitted.predict(smiles, return_std=True)
    assert np.array_equal(mean, pred) and std.shape == (40,) and (std == 0).all()  # one member: no spread
    truth = held_out[ESOL_TARGET].to_numpy()
    r2 = fitted.score(smiles, truth)
    assert r2 == pytest.approx(regression_metrics(truth, pred)["r2"])
    # invalid molecules are left out of the score, not counted as errors
    assert fitted.score([*smiles, "not a smiles"], [*truth, 0.0]) == pytest.approx(r2)


def test_save_load_and_the_command_line_serves_the_file(fitted, esol100, tmp_path):
    _, _, held_out = esol100
    smiles = held_out["smiles"].tolist()
    path = tmp_path / "regressor.pt"
    fitted.save(path)
    loaded = ScoreRegressor.load(path)
    assert loaded.spec == fitted.spec.resolved()
    assert np.array_equal(loaded.predict(smiles), fitted.predict(smiles))
    assert load_model(path).model_config == fitted.model_.model_config
    stdout, err, code = run_cli("predict", "-", "--model", str(path), stdin="smiles\n" + "\n".join(smiles) + "\n")
    assert code == 0, err
    served = pd.read_csv(io.StringIO(stdout))[PRED].to_numpy()
    assert np.allclose(served, fitted.predict(smiles), atol=1e-5)


def test_get_and_set_params():
    regressor = ScoreRegressor(preset="fast", hidden=32)
    params = regressor.get_params()
    assert params == TrainingSpec(preset="fast", hidden=32).to_dict()
    assert ScoreRegressor(**params).spec == regressor.spec  # the estimator rebuilt from its parameters
    assert regressor.set_params(epochs=5, arch="gcn") is regressor
    assert (regressor.spec.epochs, regressor.spec.arch, regressor.spec.hidden) == (5, "gcn", 32)
    with pytest.raises(TypeError, match="unknown training option.*hiden"):
        regressor.set_params(hiden=16)
    with pytest.raises(TypeError, match="unknown training option"):
        ScoreRegressor(catboost_weight=0.2)
    with pytest.raises(ValueError, match="unknown preset 'quick'"):
        ScoreRegressor(preset="quick")
    assert regressor.spec.epochs == 5  # a failed set_params changes nothing


def test_scikit_learn_can_clone_it():
    from sklearn.base import clone

    regressor = ScoreRegressor(preset="fast", epochs=3, seed=4)
    copy = clone(regressor)
    assert copy is not regressor and copy.spec == regressor.spec and not hasattr(copy, "model_")


def test_scikit_learns_tools_take_it(esol100):
    """cross_val_score, Pipeline and check_is_fitted read the estimator's tags (scikit-learn
    1.6 and later): a bare class without them failed in every one."""
    from sklearn.base import is_regressor
    from sklearn.exceptions import NotFittedError
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer
    from sklearn.utils.validation import check_is_fitted

    smiles, y, held_out = esol100
    regressor = ScoreRegressor(preset="fast", epochs=1)
    assert is_regressor(regressor)
    with pytest.raises(NotFittedError):
        check_is_fitted(regressor)
    scores = cross_val_score(regressor, smiles[:60], y[:60], cv=2)
    assert scores.shape == (2,) and np.isfinite(scores).all()
    column = np.array(smiles[:60], dtype=object)[:, None]  # what a ColumnTransformer hands on
    pipeline = make_pipeline(FunctionTransformer(lambda x: x), ScoreRegressor(preset="fast", epochs=1))
    pipeline.fit(column, y[:60])
    check_is_fitted(pipeline[-1])
    pred = pipeline.predict(np.array(held_out["smiles"].head(5), dtype=object)[:, None])
    assert pred.shape == (5,) and np.isfinite(pred).all()


def test_x_may_be_one_column_and_nothing_wider(fitted, esol100):
    _, _, held_out = esol100
    smiles = held_out["smiles"].head(4).tolist()
    expected = fitted.predict(smiles)
    assert np.allclose(fitted.predict(held_out[["smiles"]].head(4)), expected)
    assert np.allclose(fitted.predict(np.array(smiles, dtype=object)[:, None]), expected)
    assert np.allclose(fitted.predict([s.encode() for s in smiles]), expected)
    with pytest.raises(ValueError, match="one column of SMILES, not a table of 2 columns"):
        fitted.predict(held_out[["smiles", ESOL_TARGET]])
    with pytest.raises(ValueError, match=r"not an array of shape \(2, 2\)"):
        fitted.predict(np.array([smiles[:2], smiles[2:]]))


def test_interval_score_and_y_misuse_are_clear_errors(esol100):
    smiles, y, held_out = esol100
    calibrated = ScoreRegressor(preset="fast", epochs=1, ensemble=2).fit(smiles, y)  # 2 x 10 held out
    assert calibrated.model_.calibration is not None
    for coverage in (0, 1, 1.5):
        with pytest.raises(ValueError, match="coverage must lie strictly between 0 and 1"):
            calibrated.predict_interval(smiles[:2], coverage=coverage)
    with pytest.raises(ValueError, match="target 1 is not one of this model's targets 0-0"):
        calibrated.predict_interval(smiles[:2], target=1)
    with pytest.raises(ValueError, match="differ in shape"):
        calibrated.score(smiles[:10], y[:5])
    with pytest.raises(ValueError, match=r"not of shape \(3, 0\)"):
        ScoreRegressor(preset="fast").fit(smiles[:3], np.zeros((3, 0)))
    both = pd.DataFrame({"a": y[:40].to_numpy(), "b": np.full(40, np.nan)})
    with pytest.raises(ValueError, match="no usable value for the target b"):
        ScoreRegressor(preset="fast").fit(smiles[:40], both)
    twice = pd.DataFrame(np.c_[y[:40], y[:40]], columns=["a", "a"])
    with pytest.raises(ValueError, match="names the target a more than once"):
        ScoreRegressor(preset="fast").fit(smiles[:40], twice)


def test_misuse_is_a_clear_error(esol100):
    with pytest.raises(ScoremolError, match="not fitted yet"):
        ScoreRegressor().predict(["CCO"])
    with pytest.raises(ScoremolError, match="not fitted yet"):
        ScoreRegressor().save("never.pt")
    with pytest.raises(TypeError, match="not one string"):
        ScoreRegressor(preset="fast").fit("CCO", [1.0])
    with pytest.raises(ValueError, match=r"differ in length \(2 vs 1\)"):
        ScoreRegressor(preset="fast").fit(["CCO", "CCN"], [1.0])


def test_unparsable_training_smiles_are_left_out(esol100):
    smiles, y, _ = esol100
    regressor = ScoreRegressor(preset="fast", epochs=1).fit(
        [*smiles[:30], "not a smiles"], [*y[:30], 1.0], target="logS"
    )
    assert regressor.n_failed_ == 1 and regressor.model_.metrics["n_train_molecules"] == 30
    assert regressor.model_.target_names == ["logS"]


@pytest.mark.parametrize(
    "options",
    [
        ["--preset", "fast", "--epochs", "3"],
        ["--hidden", "16", "--epochs", "2", "--ensemble", "2", "--blend-catboost", "0.3"],
    ],
)
def test_the_command_line_and_the_python_api_build_the_same_model(esol100, tmp_path, options):
    """One spec, two skins: `scoremol train` and ScoreRegressor give identical predictions."""
    smiles, y, held_out = esol100
    csv = tmp_path / "train.csv"
    pd.DataFrame({"smiles": smiles, "logS": y}).to_csv(csv, index=False)
    _, err, code = run_cli("train", str(csv), "-t", "logS", *options, "-o", str(tmp_path / "cli.pt"))
    assert code == 0, err
    kwargs = {
        k.lstrip("-").replace("-", "_"): float(v) if "." in v else (int(v) if v.isdigit() else v)
        for k, v in zip(options[::2], options[1::2])
    }
    python = ScoreRegressor(**kwargs).fit(smiles, y.to_numpy(), target="logS")
    cli = ScoreRegressor.load(tmp_path / "cli.pt")
    test = held_out["smiles"].tolist()
    assert np.array_equal(cli.predict(test), python.predict(test))
    assert cli.model_.train_config["spec"] == python.model_.train_config["spec"]
