"""TrainingSpec: presets, explicit options, architecture rules, and the configs built from it."""

from __future__ import annotations

import dataclasses

import pytest

from scoremol.errors import ScoremolError
from scoremol.featurizers.descriptors import (
    ALL_DESCRIPTORS,
    FAST_DESCRIPTORS,
    TREE_DESCRIPTORS,
    union,
)
from scoremol.spec import (
    BASELINE_ARCHITECTURES,
    DEFAULT_PRESET,
    DEFAULTS,
    DENSE_ARCHITECTURES,
    GRAPH_ARCHITECTURES,
    PRESETS,
    TrainingSpec,
)
from scoremol.training.setup import feature_plan

#: The fields a preset decides: None until resolved.
PRESET_FIELDS = (
    "hidden",
    "dropout",
    "descriptors",
    "epochs",
    "val_fraction",
    "ensemble",
    "blend_catboost",
    "domain_dims",
)


def test_presets_decide_the_same_fields():
    assert DEFAULT_PRESET == "default" and set(PRESETS) == {"default", "accurate", "fast"}
    for values in PRESETS.values():
        assert set(values) == set(PRESET_FIELDS)
    unresolved = TrainingSpec()
    assert all(getattr(unresolved, name) is None for name in (*PRESET_FIELDS, "descriptor_set"))


@pytest.mark.parametrize("preset", ["default", "accurate", "fast"])
def test_resolution_fills_every_preset_field(preset):
    spec = TrainingSpec(preset=preset).resolved()
    for name, value in PRESETS[preset].items():
        assert getattr(spec, name) == value, name
    assert spec.descriptor_set == "fast"  # graph networks fuse the 17 cheap descriptors
    assert spec.resolved() == spec  # idempotent
    optional = {"teacher", "base"}  # no teacher or base unless one is named
    assert all(value is not None for name, value in spec.to_dict().items() if name not in optional)


def test_defaults_are_the_resolved_default_preset():
    assert DEFAULTS == TrainingSpec(preset="default").resolved()
    assert (DEFAULTS.arch, DEFAULTS.mode, DEFAULTS.readout) == ("dmpnn", "score", "molattfp")
    assert (DEFAULTS.hidden, DEFAULTS.dropout, DEFAULTS.epochs, DEFAULTS.val_fraction) == (128, 0.2, 60, 0.0)
    assert (DEFAULTS.ensemble, DEFAULTS.blend_catboost, DEFAULTS.descriptors) == (4, 0.4, True)
    accurate = TrainingSpec(preset="accurate").resolved()  # the previous default, unchanged
    assert (accurate.epochs, accurate.val_fraction, accurate.ensemble) == (150, 0.1, 5)


def test_explicit_options_win_over_the_preset():
    spec = TrainingSpec(preset="fast", hidden=32, descriptors=True, ensemble=2, epochs=1).resolved()
    assert (spec.hidden, spec.descriptors, spec.ensemble, spec.epochs) == (32, True, 2, 1)
    assert (spec.dropout, spec.val_fraction, spec.blend_catboost) == (0.0, 0.0, 0.0)  # still the preset's
    # "explicit" includes falsy values: 0 and False are given, not missing
    spec = TrainingSpec(descriptors=False, blend_catboost=0.0, val_fraction=0.0, dropout=0.0).resolved()
    assert (spec.descriptors, spec.blend_catboost, spec.val_fraction, spec.dropout) == (False, 0.0, 0.0, 0.0)
    assert TrainingSpec(descriptor_set="all").resolved().descriptor_set == "all"


def test_catboost_is_one_tree_on_descriptors():
    spec = TrainingSpec(arch="catboost").resolved()
    assert spec.is_catboost and not spec.is_dense
    assert (spec.ensemble, spec.blend_catboost, spec.descriptors) == (1, 0.0, True)
    assert spec.val_fraction == 0.0 and spec.descriptor_set == "tree"  # a fixed number of trees on every row
    # a validation split can still be asked for; options that make no sense are overruled
    spec = TrainingSpec(arch="catboost", val_fraction=0.2, ensemble=3, blend_catboost=0.3, descriptors=False)
    resolved = spec.resolved()
    assert resolved.val_fraction == 0.2
    assert (resolved.ensemble, resolved.blend_catboost, resolved.descriptors) == (1, 0.0, True)


@pytest.mark.parametrize("arch", DENSE_ARCHITECTURES)
def test_dense_architectures_read_every_descriptor(arch):
    spec = TrainingSpec(arch=arch, preset="fast").resolved()  # fast turns descriptors off for graphs
    assert spec.is_dense and spec.descriptors is True and spec.descriptor_set == "all"
    assert TrainingSpec(arch=arch, descriptor_set="fast").resolved().descriptor_set == "fast"


def test_from_options_treats_none_as_not_given_and_names_unknown_options():
    assert TrainingSpec.from_options(hidden=None, epochs=3) == TrainingSpec(epochs=3)
    with pytest.raises(TypeError, match="unknown training option.*: catboost_weight, hiden"):
        TrainingSpec.from_options(hiden=64, catboost_weight=0.1)
    with pytest.raises(TypeError):
        TrainingSpec(hiden=64)


def test_unknown_presets_and_architectures_are_value_errors():
    with pytest.raises(ValueError, match="unknown preset 'quick'; choose one of default, accurate, fast"):
        TrainingSpec(preset="quick")
    with pytest.raises(ValueError, match="unknown arch 'resnet'; choose one of gcn,.*score-mlp, catboost"):
        TrainingSpec(arch="resnet")
    with pytest.raises(ValueError, match="unknown preset"):
        TrainingSpec.from_options(preset="slow")


def test_every_architecture_is_accepted():
    for arch in GRAPH_ARCHITECTURES + DENSE_ARCHITECTURES + BASELINE_ARCHITECTURES:
        assert TrainingSpec(arch=arch).resolved().arch == arch


def test_specs_are_frozen_and_round_trip_through_dicts():
    spec = TrainingSpec(preset="fast", epochs=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.epochs = 4
    assert TrainingSpec(**spec.to_dict()) == spec
    assert TrainingSpec(**DEFAULTS.to_dict()) == DEFAULTS


def test_model_and_train_config_defaults_are_the_default_preset():
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import TrainConfig

    model, train = ModelConfig(), TrainConfig()
    default = PRESETS["default"]
    assert (model.hidden, model.dropout) == (default["hidden"], default["dropout"]) == (128, 0.2)
    assert (
        (train.epochs, train.val_fraction, train.ensemble)
        == (default["epochs"], default["val_fraction"], default["ensemble"])
        == (60, 0.0, 4)
    )
    assert train.catboost_weight == default["blend_catboost"] == 0.4
    for name in ("arch", "mode", "dt", "steps", "integrator", "learnable_dt", "readout", "heads"):
        assert getattr(model, name) == getattr(DEFAULTS, name), name
    for name in ("batch_size", "lr", "weight_decay", "patience", "seed", "device"):
        assert getattr(train, name) == getattr(DEFAULTS, name), name


def test_train_config_errors_name_parameters():
    from scoremol.training.fit import TrainConfig

    cases = [
        (dict(epochs=0), "epochs must be at least 1, got 0"),
        (dict(ensemble=0), "ensemble must be at least 1"),
        (dict(val_fraction=1.0), r"val_fraction must be in \[0, 1\), got 1.0"),
        (dict(lr=0.0), "lr must be positive"),
        (dict(catboost_weight=2.0), r"blend_catboost must be in \[0, 1\), got 2.0"),
    ]
    for options, message in cases:
        with pytest.raises(ScoremolError, match=message) as error:
            TrainConfig(**options).validate()
        assert "--" not in str(error.value)  # library errors name parameters, not flags
    TrainConfig().validate()


def test_feature_plans():
    default = feature_plan(TrainingSpec())  # the network fuses its 17; the tree reads the rest
    assert default.network_descriptors == FAST_DESCRIPTORS
    assert default.settings.descriptors and default.settings.descriptor_names == union(
        TREE_DESCRIPTORS, FAST_DESCRIPTORS
    )
    fast = feature_plan(TrainingSpec(preset="fast"))  # no RDKit descriptors at all
    assert not fast.settings.descriptors and fast.network_descriptors is None
    tree = feature_plan(TrainingSpec(arch="catboost"))
    assert tree.settings.descriptor_names == TREE_DESCRIPTORS and tree.network_descriptors is None
    dense = feature_plan(TrainingSpec(arch="mlp", blend_catboost=0.0))
    assert dense.settings.descriptor_names == ALL_DESCRIPTORS and dense.network_descriptors is None
    assert not feature_plan(TrainingSpec(standardize=False)).settings.standardize
    with pytest.raises(ScoremolError, match="descriptor_set: .*NoSuchDescriptor"):
        feature_plan(TrainingSpec(descriptor_set="MolLogP,NoSuchDescriptor"))


def test_device_errors_name_the_device():
    import torch

    from scoremol.device import resolve_device

    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ScoremolError, match="unknown device 'tpu'; use cpu, cuda or auto"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ScoremolError, match="device 'cuda' requested but no CUDA device is available"):
            resolve_device("cuda")


def test_every_training_option_of_the_spec_reaches_the_train_config():
    import dataclasses

    from scoremol.training.config import TrainConfig
    from scoremol.training.setup import _TRAIN_FIELDS

    config_fields = {f.name for f in dataclasses.fields(TrainConfig)}
    assert set(_TRAIN_FIELDS) <= config_fields and "holdout" in _TRAIN_FIELDS
    assert TrainConfig().holdout == DEFAULTS.holdout == "random"
    with pytest.raises(ValueError, match="choose random or scaffold"):
        TrainingSpec(holdout="by-weight")
