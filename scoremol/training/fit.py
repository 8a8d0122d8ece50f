"""Train a model: plan the ensemble's members, fit them, blend a tree, calibrate.

The per-member fit loop is :mod:`scoremol.training.member`; running members side by side
is :mod:`scoremol.training.members`; calibration on held-out folds is
:mod:`scoremol.training.holdout`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence

import numpy as np
import torch

from scoremol.data.collate import Graph
from scoremol.data.scaling import DescriptorScaler, TargetScaler
from scoremol.data.tasks import CLASSIFICATION, REGRESSION, TaskDecision
from scoremol.device import resolve_device
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.models.catboost import TreeBlend
from scoremol.models.trained import Member, TrainedModel
from scoremol.nn import ModelConfig, build_model, count_parameters
from scoremol.training.base import BaseStart
from scoremol.training.config import EpochCallback, TrainConfig
from scoremol.training.labels import require_labelled
from scoremol.training.member import MemberJob, fit_member
from scoremol.training.members import member_plan, train_members

__all__ = [
    "EpochCallback",
    "TrainConfig",
    "build_graphs",
    "calibrate_members",
    "calibration_folds",
    "fit_blend",
    "plan_members",
    "train_model",
]


def build_graphs(
    data: FeaturizedDataset, y: np.ndarray, rows: np.ndarray, descriptor_scaler: DescriptorScaler | None
) -> list[Graph]:
    """Graph objects for ``rows`` (graph indices) with targets and scaled descriptors."""
    graphs = []
    scaled = None
    if descriptor_scaler is not None:
        if data.descriptors is None:
            raise ScoremolError("the model fuses descriptors but the data have none; featurize with descriptors")
        scaled = torch.from_numpy(descriptor_scaler.transform(data.descriptors[rows]))
    for k, i in enumerate(rows):
        g = Graph(*data.graph_tensors(int(i)))
        g.y = torch.as_tensor(y[k : k + 1], dtype=torch.float32)
        if scaled is not None:
            g.descriptors = scaled[k : k + 1]
        graphs.append(g)
    return graphs


def calibration_folds(
    n: int, config: TrainConfig, eligible: np.ndarray | None = None, smiles: Sequence[str] | None = None
) -> tuple[np.ndarray | None, bool]:
    """The members' held-out folds of ``n`` training molecules (None when they calibrate
    nothing), and whether only the ``eligible`` ones (bool ``[n]``) were held out. Too few
    eligible molecules fall back to a fold of all of them (see
    :func:`~scoremol.training.holdout.holdout_folds`). ``smiles`` ``[n]``: the molecules,
    for ``config.holdout == "scaffold"``."""
    if not config.calibrate:
        return None, False
    from scoremol.training.holdout import holdout_folds

    if eligible is not None:
        folds = holdout_folds(n, config.ensemble, config.val_fraction, config.seed, eligible)
        if folds is not None:
            return folds, True
    groups = smiles if config.holdout == "scaffold" else None
    return holdout_folds(n, config.ensemble, config.val_fraction, config.seed, smiles=groups), False


def plan_members(
    graphs: list[Graph],
    model_config: ModelConfig,
    config: TrainConfig,
    target_scaler: TargetScaler,
    folds: np.ndarray | None = None,
    classify: tuple[bool, ...] = (),
) -> list[MemberJob]:
    """One job per member: member ``k`` has seed ``seed + k`` and holds out fold ``k`` of
    ``folds`` (validating on it when it early-stops), else a seeded validation split, else
    nothing."""
    jobs = []
    n_val = int(round(config.val_fraction * len(graphs)))
    for k in range(config.ensemble):
        seed = config.seed + k
        if folds is not None:  # member k holds out fold k (and validates on it, if it early-stops)
            held = folds == k % (int(folds.max()) + 1)
            train_idx = np.flatnonzero(~held)
            val_idx = np.flatnonzero(held) if config.val_fraction > 0 else np.arange(0)
        elif config.val_fraction > 0 and n_val >= 1 and len(graphs) - n_val >= 1:
            from sklearn.model_selection import train_test_split  # only when there is a split

            train_idx, val_idx = train_test_split(np.arange(len(graphs)), test_size=n_val, random_state=seed)
        else:
            train_idx, val_idx = np.arange(len(graphs)), np.arange(0)
        job = MemberJob(
            graphs,
            np.sort(train_idx),
            np.sort(val_idx),
            model_config,
            config,
            target_scaler,
            seed,
            k,
            folds is not None,
            classify,
        )
        jobs.append(job)
    return jobs


def fit_blend(
    full: FeaturizedDataset,
    target_names: list[str],
    rows: np.ndarray,
    config: TrainConfig,
    trees: tuple[int, float] | None = None,
    weights: list[float] | None = None,
    classify: tuple[bool, ...] = (),
) -> TreeBlend:
    """The blended trees on every training molecule, a fixed number of trees: in the ESOL
    study this beat early stopping on a held-out tenth (0.515 vs 0.521 blended).
    ``trees``: (iterations, learning rate) instead of the defaults; ``weights``: one per
    target as calibration chose them (default: ``config.catboost_weight`` for all)."""
    from scoremol.models.catboost import fit_tree_blend

    weight = config.catboost_weight if weights is None else weights
    return fit_tree_blend(full, target_names, rows, weight, seed=config.seed, trees=trees, classify=classify)


def calibrate_members(
    full: FeaturizedDataset,
    target_names: list[str],
    rows: np.ndarray,
    y: np.ndarray,
    folds: np.ndarray,
    members: list[Member],
    target_scaler: TargetScaler,
    config: TrainConfig,
    classify: tuple[bool, ...] = (),
):
    """Calibration per target and the domain from the members' held-out folds (a blended
    model refits its trees without each fold, and those held-out predictions choose each
    target's blend weight, returned last); the domain also keeps the training molecules
    (beside their labels), for reports' nearest neighbours. Drops the members' outputs."""
    from scoremol.models.catboost import CALIBRATION_TREES
    from scoremol.training.holdout import calibrate

    fit_tree = None
    if config.catboost_weight > 0:

        def fit_tree(positions: np.ndarray):
            return fit_blend(full, target_names, rows[positions], config, CALIBRATION_TREES, classify=classify)

    calibration, domain, held_out, weights = calibrate(
        full,
        rows,
        y,
        folds,
        [m.outputs for m in members],
        target_scaler,
        fit_tree,
        config.catboost_weight,
        config.neighbours,
        config.domain_dims,
        classify,
    )
    for m in members:
        m.outputs = None  # not part of the model
    return calibration, domain, held_out, weights


def train_model(
    data: FeaturizedDataset,
    target_names: list[str],
    model_config: ModelConfig,
    config: TrainConfig,
    rows: np.ndarray | None = None,
    target_units: list[str] | None = None,
    on_epoch: EpochCallback | None = None,
    gnn_descriptors: tuple[str, ...] | None = None,
    on_phase: Callable[[str], None] | None = None,
    measured: np.ndarray | None = None,
    calibrate_on: np.ndarray | None = None,
    tasks: list[TaskDecision] | None = None,
    base: BaseStart | None = None,
) -> TrainedModel:
    """Train a (possibly ensembled) model on graphs ``rows`` of ``data`` (default: all):
    plan the members (:func:`plan_members`), fit them side by side, calibrate on their
    held-out folds (:func:`calibrate_members`, which chooses the blend weights), then fit
    the blended trees that have weight (:func:`fit_blend`).

    ``gnn_descriptors`` names the descriptors the GNN fuses when the data carry more (a
    blended tree uses all of them); None means every descriptor column of the data.
    ``measured`` (bool ``[G, T]`` per graph of ``data``, default: every label) marks the
    labels that were measured: a student's teacher labels (:mod:`scoremol.training.teacher`)
    train the networks and the tree but never calibrate. ``calibrate_on`` (bool ``[G]``
    per graph of ``data``): only these molecules may be held out to calibrate (a student's
    measured molecules that its teacher never saw); the rest always train. ``tasks``: each
    target's kind (default: every one a regression); a yes/no target's networks and tree
    give a logit, its calibration a probability. ``base``: fine-tune, every member starting
    from one of the base's (:mod:`scoremol.training.base`).
    """
    config.validate()
    if config.catboost_weight > 0 and data.descriptors is None:
        raise ScoremolError("blend_catboost > 0 needs featurized descriptors")
    full, columns = data, None  # the tree uses every descriptor column, the network its own
    if gnn_descriptors is not None and data.descriptors is not None:
        have = list(data.settings.descriptor_names)
        if list(gnn_descriptors) != have:
            data = data.select_descriptors(tuple(gnn_descriptors))
            columns = [have.index(n) for n in gnn_descriptors]
    rows = np.arange(data.num_graphs) if rows is None else np.asarray(rows)
    y_all = np.stack([data.column_values(t) for t in target_names], axis=1)[rows]
    labelled = np.isfinite(y_all).any(axis=1)
    require_labelled(int(labelled.sum()))
    rows, y_all = rows[labelled], y_all[labelled]
    kinds = [t.kind for t in tasks] if tasks else [REGRESSION] * len(target_names)
    classify = tuple(k == CLASSIFICATION for k in kinds)
    target_scaler = TargetScaler.fit(y_all, keep=np.asarray(classify))
    if base is not None:
        from scoremol.training.base import start_scaler

        target_scaler = start_scaler(base, target_scaler)
    descriptor_scaler = None
    if model_config.use_descriptors:
        if data.descriptors is None:
            raise ScoremolError("use_descriptors=True needs featurized descriptors")
        descriptor_scaler = DescriptorScaler.fit(data.descriptors[rows])
        if base is not None:  # the networks learned on the base's scaling
            descriptor_scaler = base.model.descriptor_scaler
    graphs = build_graphs(data, target_scaler.transform(y_all), rows, descriptor_scaler)
    eligible = None if calibrate_on is None else np.asarray(calibrate_on, dtype=bool)[rows]
    smiles = data.graph_smiles(rows) if config.holdout == "scaffold" else None
    folds, only_eligible = calibration_folds(len(graphs), config, eligible, smiles)
    if folds is not None:  # before any training: every target needs held-out labels to calibrate on
        held = folds < min(config.ensemble, int(folds.max()) + 1)
        known = np.isfinite(y_all) if measured is None else np.isfinite(y_all) & np.asarray(measured, bool)[rows]
        counts = (known & held[:, None]).sum(axis=0)
        if counts.min() < 2:
            t = int(counts.argmin())
            raise ScoremolError(
                f"target {target_names[t]!r}: {int(counts[t])} of its measured molecules are held out to calibrate, "
                "fewer than 2: give it more labelled molecules, or train with --no-calibrate"
            )
    jobs = plan_members(graphs, model_config, config, target_scaler, folds, classify)
    if base is not None:
        starts = [m.state_dict for m in base.model.members]
        jobs = [
            dataclasses.replace(
                job,
                start=starts[k % len(starts)],
                head_map=tuple(base.head_map),
                pull=float(config.base_pull),
                freeze=int(config.base_freeze),
            )
            for k, job in enumerate(jobs)
        ]
    plan = member_plan(config.ensemble, resolve_device(config.device), config.workers)
    start = time.perf_counter()
    members = train_members(fit_member, jobs, plan, on_epoch)
    network_seconds = time.perf_counter() - start  # wall time: members may train side by side
    calibration = domain = weights = None
    calibration_seconds, held_out = 0.0, 0
    if folds is not None:
        if on_phase is not None:
            on_phase("Calibration")
        start = time.perf_counter()
        y_measured = y_all if measured is None else np.where(measured[rows], y_all, np.nan)
        calibration, domain, held_out, weights = calibrate_members(
            full, target_names, rows, y_measured, folds, members, target_scaler, config, classify
        )
        calibration_seconds = time.perf_counter() - start
    tree, tree_seconds = None, 0.0
    if config.catboost_weight > 0:  # after calibration: a target whose weight is 0 gets no tree
        if on_phase is not None:
            on_phase("CatBoost")
        start = time.perf_counter()
        tree = fit_blend(full, target_names, rows, config, weights=weights, classify=classify)
        tree_seconds = time.perf_counter() - start
    featurizer = full.settings  # what prediction must compute: the tree's and the network's descriptors
    if tree is not None and all(b is None for b in tree.blobs):  # every weight 0: no tree, no tree descriptors
        tree, featurizer, columns = None, data.settings, None
    best = [m.best_val_rmse for m in members]
    metrics = {
        "n_train_molecules": int(len(graphs)),
        "labels": {t: int(np.isfinite(y_all[:, k]).sum()) for k, t in enumerate(target_names)},
        "best_val_rmse_mean": float(np.nanmean(best)) if np.isfinite(best).any() else None,
        "best_val_rmse": [None if math.isnan(b) else b for b in best],
        "best_epochs": [m.best_epoch for m in members],
        "seconds": network_seconds + tree_seconds + calibration_seconds,
        "calibration_seconds": calibration_seconds,
        "held_out_molecules": held_out,
        "parameters": count_parameters(build_model(model_config)),
    }
    if base is not None:
        metrics["base"] = base.record()
    if measured is not None:
        taught = np.isfinite(y_all) & ~measured[rows]
        metrics["teacher_labels"] = {t: int(taught[:, k].sum()) for k, t in enumerate(target_names)}
        # whether the held-out molecules were unseen by the teacher (else its labels elsewhere
        # carry theirs, and the intervals come out too narrow)
        metrics["calibrated_unseen_by_teacher"] = None if folds is None else only_eligible
    return TrainedModel(
        model_config=model_config,
        featurizer=featurizer,
        target_names=list(target_names),
        target_units=list(target_units or [""] * len(target_names)),
        target_scaler=target_scaler,
        descriptor_scaler=descriptor_scaler,
        members=members,
        train_config=config.to_dict(),
        metrics=metrics,
        descriptor_columns=columns,
        tree=tree,
        calibration=calibration,
        domain=domain,
        target_kinds=kinds,
        target_classes=[list(t.classes) if t.classes else None for t in tasks or ()] or [None] * len(target_names),
    )
