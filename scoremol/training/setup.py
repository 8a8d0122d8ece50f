"""From a :class:`~scoremol.spec.TrainingSpec` to training data, validated configs and a model.

Everything ``train`` and ``cv`` decide before the fit loop lives here, so the command line,
:class:`scoremol.ScoreRegressor` and scripts share one policy: which descriptors to compute
(the network's set, plus the blended tree's), which column is the target, which configs the
spec stands for. Errors name the spec's parameters, never a command-line flag.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from scoremol.data.tasks import TaskDecision
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.spec import TrainingSpec
from scoremol.training.inputs import (  # noqa: F401 (what callers import from here)
    MAX_TARGET_MAGNITUDE,
    ExcludedTargets,
    FeaturePlan,
    LabelledSources,
    TrainingJob,
    feature_plan,
    labelled_sources,
    load_training_data,
    merge_training_inputs,
    read_training_input,
    renames_target,
    rows_without,
)
from scoremol.training.labels import MIN_LABELLED, require_labelled

PhaseCallback = Callable[[str], None]  # called with the name of a phase as it starts

if TYPE_CHECKING:
    from scoremol.models.trained import TrainedModel
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import EpochCallback, TrainConfig


#: Spec fields that are ModelConfig / TrainConfig fields of the same name.
_MODEL_FIELDS = ("arch", "dt", "steps", "integrator", "learnable_dt", "readout", "hidden", "dropout", "heads")
_TRAIN_FIELDS = (
    "epochs",
    "batch_size",
    "lr",
    "weight_decay",
    "seed",
    "val_fraction",
    "patience",
    "ensemble",
    "device",
    "calibrate",
    "holdout",
    "task_balance",
    "neighbours",
    "domain_dims",
    "base_pull",
    "base_freeze",
    "class_weights",
)


def prepare_training(
    input: str | Sequence[str],
    spec: TrainingSpec,
    targets: list[str] | None = None,
    smiles_col: str | None = None,
    fmt: str | None = None,
    unlabelled: str | None = None,
    exclude: str | None = None,
    task_types: dict[str, str] | None = None,
) -> TrainingJob:
    """Resolve ``spec``, check its device, featurize the input and pick the targets (the data
    set's own when none are named): everything ``train`` and ``cv`` do before fitting.

    Several inputs train one multi-task model on their merged molecules
    (:func:`merge_training_inputs`); one input is read as it is. ``unlabelled`` molecules
    (for the spec's teacher to label) join the merge as an input without targets.
    ``exclude`` (a molecule file or data set name): its molecules are left out of the
    job's training rows, matched as merged inputs are. ``task_types`` (target -> regression
    or classification) overrides what each target's values say (:mod:`scoremol.data.tasks`).
    """
    from scoremol.device import resolve_device

    resolve_device(spec.device)
    spec = spec.resolved()
    inputs = [input] if isinstance(input, str) else list(input)
    if unlabelled is not None and spec.teacher is None:
        raise ScoremolError("--unlabelled molecules need a --teacher to label them")
    if spec.teacher is not None:  # found before the inputs are featurized, not after
        from scoremol.training.teacher import teacher_path

        teacher_path(spec.teacher)
    if spec.base is not None:  # found and checked before the inputs are featurized, not after
        from scoremol.training.base import check_spec

        check_spec(spec)
    repeated = sorted({t for t in targets or [] if targets.count(t) > 1})
    if repeated:  # two heads learning one column would give two columns that disagree
        raise ScoremolError(f"--target {', '.join(repeated)} is named more than once")
    if len(inputs) > 1 or unlabelled is not None or renames_target(inputs[0]):
        job = merge_training_inputs(inputs, spec, targets, smiles_col, fmt, unlabelled, task_types)
    else:
        job = read_training_input(inputs[0], spec, targets, smiles_col, fmt, task_types)
    if exclude is None:
        return job
    rows, left_out = rows_without(job.data, exclude, spec.standardize)
    return dataclasses.replace(job, rows=rows, left_out=left_out)


def make_configs(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
) -> tuple[ModelConfig, TrainConfig]:
    """Validated model and training configs for a network spec; a bad value is a one-line error."""
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import TrainConfig

    spec = spec.resolved()
    values = np.stack([data.column_values(t) for t in targets], axis=1)  # unknown column: clear error
    labelled = int(np.isfinite(values).any(axis=1).sum())
    require_labelled(labelled)
    counts = np.isfinite(values).sum(axis=0)
    if len(targets) > 1 and counts.min() < MIN_LABELLED:  # a head that learns nothing would predict noise
        t = int(counts.argmin())
        raise ScoremolError(
            f"target {targets[t]!r} has {int(counts[t])} usable label(s), fewer than {MIN_LABELLED}: give its values "
            "or leave it out"
        )
    if spec.descriptors and data.descriptors is None:
        raise ScoremolError(f"arch {spec.arch!r} with descriptors=True needs featurized descriptors")
    n_desc = 0
    if spec.descriptors:
        n_desc = len(network_descriptors) if network_descriptors is not None else data.descriptors.shape[1]
    shape = {name: getattr(spec, name) for name in _MODEL_FIELDS}
    try:
        model_config = ModelConfig(
            **shape,
            mode="score" if spec.arch == "score-mlp" else spec.mode,
            use_descriptors=bool(spec.descriptors),
            descriptor_dim=n_desc,
            n_targets=len(targets),
        )
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    train_config = TrainConfig(
        **{name: getattr(spec, name) for name in _TRAIN_FIELDS}, catboost_weight=spec.blend_catboost
    )
    train_config.validate()
    return model_config, train_config


def fit_spec(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
    rows: np.ndarray | None = None,
    units: list[str] | None = None,
    on_epoch: EpochCallback | None = None,
    on_phase: PhaseCallback | None = None,
    tasks: list[TaskDecision] | None = None,
) -> TrainedModel:
    """Train what ``spec`` describes on graphs ``rows`` of ``data``: networks (optionally
    blended with CatBoost) or, for ``arch="catboost"``, the tree alone. ``tasks``: each
    target's kind (:attr:`TrainingJob.tasks`; default: every target a regression)."""
    spec = spec.resolved()
    measured = calibrate_on = None
    if spec.teacher is not None:
        from scoremol.training.teacher import load_teacher, unseen_by_teacher, with_teacher_labels

        if on_phase is not None:
            on_phase("Teacher labels")
        teacher = load_teacher(spec.teacher)
        data, measured = with_teacher_labels(data, targets, teacher)
        unseen = unseen_by_teacher(data, teacher)
        calibrate_on = None if unseen is None else unseen & measured.any(axis=1)
    if spec.is_catboost:
        if spec.base is not None:
            raise ScoremolError("--from fine-tunes networks; the CatBoost baseline has none")
        return fit_catboost_model(data, targets, spec, rows, units, on_phase, tasks)
    from scoremol.training.fit import train_model

    model_config, train_config = make_configs(data, targets, spec, network_descriptors)
    from scoremol.training.base import base_for

    base = base_for(spec, targets, units, tasks, model_config, data, network_descriptors)
    model = train_model(
        data,
        targets,
        model_config,
        train_config,
        rows=rows,
        target_units=units,
        on_epoch=on_epoch,
        gnn_descriptors=network_descriptors,
        on_phase=on_phase,
        measured=measured,
        calibrate_on=calibrate_on,
        tasks=tasks,
        base=base,
    )
    model.train_config["spec"] = spec.to_dict()  # what to rebuild it from (ScoreRegressor.load)
    return model


def fit_catboost_model(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    rows: np.ndarray | None = None,
    units: list[str] | None = None,
    on_phase: PhaseCallback | None = None,
    tasks: list[TaskDecision] | None = None,
) -> TrainedModel:
    """The CatBoost baseline as a model file like any other: a tree of weight 1, no networks
    (a classifier's raw logit for a yes/no target)."""
    from scoremol.data.scaling import TargetScaler
    from scoremol.models.catboost import fit_tree_blend
    from scoremol.models.trained import TrainedModel
    from scoremol.nn import ModelConfig

    spec = spec.resolved()
    if len(targets) != 1:
        raise ScoremolError("the CatBoost baseline predicts one target; name a single target")
    if spec.morgan:
        raise ScoremolError("a saved CatBoost model reads descriptors only; morgan=True is for cross-validation")
    rows = np.arange(data.num_graphs) if rows is None else np.asarray(rows)
    y = data.column_values(targets[0])
    labelled = rows[np.isfinite(y[rows])]
    require_labelled(len(labelled))
    if on_phase is not None:
        on_phase("CatBoost")
    start = time.perf_counter()
    classify = tuple(t.classes is not None for t in tasks or ())
    tree = fit_tree_blend(
        data, targets, labelled, 1.0, seed=spec.seed, val_fraction=spec.val_fraction, classify=classify
    )
    return TrainedModel(
        model_config=ModelConfig(),  # unused: no networks
        featurizer=data.settings,
        target_names=list(targets),
        target_units=list(units or [""]),
        target_scaler=TargetScaler.fit(y[labelled][:, None], keep=np.asarray(classify or (False,))),
        descriptor_scaler=None,
        members=[],
        train_config={"spec": spec.to_dict()},
        metrics={
            "n_train_molecules": int(len(labelled)),
            "best_val_rmse_mean": None,
            "best_val_rmse": [],
            "best_epochs": [],
            "seconds": time.perf_counter() - start,
            "parameters": 0,
        },
        tree=tree,
        target_kinds=[t.kind for t in tasks] if tasks else [],
        target_classes=[list(t.classes) if t.classes else None for t in tasks] if tasks else [],
    )
