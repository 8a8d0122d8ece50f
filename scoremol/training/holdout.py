"""Calibration at training time: every member leaves out one fold of the training molecules.

Member ``k`` trains on all training molecules but fold ``k`` (of ``round(1 / val_fraction)``
folds, or :data:`HOLDOUT_FOLDS` when there is no validation split), so each molecule of the
first ``ensemble`` folds has a prediction from a model that never saw it. For a blended
model, a tree is fitted on the same molecules as each member; those held-out predictions
choose each target's blend weight and are blended like the final model's. The held-out
residuals calibrate the intervals
(:class:`~scoremol.calibration.Calibration`) and the held-out similarities choose the
domain threshold (:class:`~scoremol.calibration.Domain`); ``predict`` needs nothing else.
With several targets, each target's interval reads similarity to the training molecules
measured for it (drug-like benchmark, logD: Spearman of held-out error with that
similarity 0.197 against 0.138 for similarity to every training molecule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from scoremol.calibration import Calibration, Domain
from scoremol.calibration.conformal import difficulty_inputs
from scoremol.calibration.domain import NEIGHBOURS, to_similarity
from scoremol.calibration.neighbours import neighbour_distances, principal_basis
from scoremol.calibration.probability import ClassCalibration, sigmoid
from scoremol.data.scaling import TargetScaler
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.models.catboost import TreeBlend, choose_weights

#: folds when no validation split sets their number: each member trains on 90 %
HOLDOUT_FOLDS = 10
#: fewer held-out molecules than this give no useful quantiles: train on everything instead
MIN_HELD_OUT = 20


def holdout_folds(
    n: int,
    ensemble: int,
    val_fraction: float,
    seed: int,
    eligible: np.ndarray | None = None,
    smiles: Sequence[str] | None = None,
) -> np.ndarray | None:
    """A fold for each of ``n`` training molecules, or None when the members would hold
    out fewer than :data:`MIN_HELD_OUT` molecules between them.

    ``smiles`` (``[n]``): hold out whole Bemis-Murcko scaffold groups instead of random
    molecules, so the held-out errors are those of new series, as a scaffold test's are.

    ``eligible`` (bool ``[n]``): only these molecules may be held out. Each member's fold is
    drawn from them (at most the usual ``n // k`` each, fewer when they run out) and every
    other molecule gets fold ``ensemble``, which no member holds out. A student calibrates
    this way on the measured molecules its teacher never saw
    (:func:`scoremol.training.teacher.unseen_by_teacher`).
    """
    k = max(2, round(1.0 / val_fraction)) if val_fraction > 0 else HOLDOUT_FOLDS
    if eligible is not None:
        chosen = np.random.default_rng(seed).permutation(np.flatnonzero(eligible))
        members = min(ensemble, k)
        chosen = chosen[: members * (n // k)]
        if len(chosen) < MIN_HELD_OUT:
            return None
        folds = np.full(n, ensemble, dtype=np.int64)
        folds[chosen] = np.arange(len(chosen)) % members
        return folds
    if min(ensemble, k) * (n // k) < MIN_HELD_OUT:
        return None
    if smiles is not None:
        from scoremol.data.splits import make_folds

        return make_folds(list(smiles), k, "scaffold", seed)
    folds = np.arange(n) % k
    return np.random.default_rng(seed).permutation(folds)


def calibrate(
    data: FeaturizedDataset,
    rows: np.ndarray,
    y: np.ndarray,
    folds: np.ndarray,
    outputs: list[tuple[np.ndarray, torch.Tensor]],
    target_scaler: TargetScaler,
    fit_tree: Callable[[np.ndarray], TreeBlend] | None = None,
    default_weight: float = 0.0,
    neighbours: int = 0,
    search_dims: int = 0,
    classify: Sequence[bool] = (),
) -> tuple[list[Calibration | ClassCalibration], Domain, int, list[float] | None]:
    """Calibration per target and the domain, from each member's outputs on every training
    molecule (``outputs[k]``: scaled predictions ``[n, T]`` and embeddings ``[n, d]``).

    ``rows``: the training graphs of ``data`` (``y`` ``[n, T]`` holds their targets; a
    molecule with none, such as one a student learned from its teacher only, trains but
    neither calibrates nor joins the domain).
    ``fit_tree(train_positions)`` returns the blended trees fitted on those molecules, for
    blended models. ``neighbours``: how many training molecules every similarity averages
    over (0: each chooses among :data:`NEIGHBOURS` the count that ranks its held-out
    errors best). ``search_dims``: find neighbours in that many principal components of
    each member's embeddings (0: all; see :class:`~scoremol.calibration.Domain`).
    ``classify``: per target, whether it is a yes/no target: its held-out logits fit its
    probability calibration and conformal sets (:class:`ClassCalibration`), and its errors,
    which rank the domain's neighbour counts, are ``label - probability``.
    Returns the calibrations, the domain (with its molecules' SMILES), the number of
    held-out molecules and, for a blended model, each target's blend weight
    (``default_weight`` where no held-out label can choose one).
    """
    classify = np.asarray(list(classify) or [False] * y.shape[1], bool)
    n_folds = int(folds.max()) + 1
    oof = np.full(y.shape, np.nan)
    blended = fit_tree is not None and data.descriptors is not None
    tree_oof = np.full(y.shape, np.nan)
    for k, (scaled, _) in enumerate(outputs[:n_folds]):  # one member per fold
        held = np.flatnonzero(folds == k)
        oof[held] = target_scaler.inverse(scaled[held])
        if blended:
            tree_oof[held] = fit_tree(np.flatnonzero(folds != k)).predict(data.descriptors[rows[held]])
    per_task = y.shape[1] > 1
    known = np.isfinite(y).any(axis=1)  # all but a student's teacher-labelled molecules
    subsets = [None if known.all() else known]
    subsets += [np.isfinite(y[:, t]) for t in range(y.shape[1])] if per_task else []
    counts = (int(neighbours),) if neighbours else NEIGHBOURS
    (distance, first_typical), *task_distances = held_out_distances(
        folds, [e for _, e in outputs], subsets, counts, search_dims
    )
    weights = None
    if blended:
        weights = choose_weights(oof, tree_oof, y, default_weight, classify)
        has = np.isfinite(tree_oof)
        w = np.broadcast_to(np.asarray(weights), y.shape)
        oof = np.where(has, (1 - w) * oof + w * tree_oof, oof)
    residual = y - np.where(classify, sigmoid(oof), oof)
    chosen = _best_ranked(distance, np.abs(residual[:, 0]))
    similarity = to_similarity(distance[chosen], 1.0)
    typical = first_typical[chosen]
    atoms = data.atom_ptr[rows + 1] - data.atom_ptr[rows]
    task_similarity, task_settings = [similarity] * y.shape[1], None
    if per_task:
        task_counts = [_best_ranked(d, np.abs(residual[:, t])) for t, (d, _) in enumerate(task_distances)]
        task_similarity = [to_similarity(d[k], 1.0) for k, (d, _) in zip(task_counts, task_distances, strict=True)]
        task_settings = [(k, typical_[k]) for k, (_, typical_) in zip(task_counts, task_distances, strict=True)]
    calibrations = [
        ClassCalibration.fit(oof[:, t], y[:, t])
        if classify[t]
        else Calibration.fit(residual[:, t], difficulty_inputs(oof[:, t], task_similarity[t], atoms))
        for t in range(y.shape[1])
    ]
    domain = Domain.fit(
        outputs[0][1][known],
        chosen,
        typical,
        similarity[known],
        data.x,
        data.atom_ptr,
        rows[known],
        y[known],
        task_settings,
        search_dims,
    )
    domain.smiles = data.graph_smiles(rows[known])  # beside the labels: the report's nearest neighbours
    return calibrations, domain, int(np.isfinite(residual).any(axis=1).sum()), weights


def held_out_distances(
    folds: np.ndarray,
    embeddings: list[torch.Tensor],
    subsets: Sequence[np.ndarray | None] = (None,),
    counts: Sequence[int] = NEIGHBOURS,
    search_dims: int = 0,
) -> list[tuple[dict[int, np.ndarray], dict[int, float]]]:
    """For each subset of the training molecules (a bool mask ``[n]``, None for all): per
    neighbour count of ``counts``, each held-out molecule's distance ``[n]`` to the
    molecules of the subset its member trained on, relative to that member's typical
    held-out distance; and the first member's typical distances (its space serves
    predictions). ``embeddings[k]``: member ``k``'s embeddings of every training molecule
    ``[n, d]``. One product per member serves every subset; with ``search_dims``, in that
    many principal components of the molecules the member trained on."""
    found = [({k: np.full(len(folds), np.nan) for k in counts}, {}) for _ in subsets]
    for k, embedding in enumerate(embeddings[: int(folds.max()) + 1]):  # one member per fold
        held = np.flatnonzero(folds == k)
        trained = np.flatnonzero(folds != k)
        searches = [
            (None if subset is None else np.flatnonzero(subset[trained]), count)
            for subset in subsets
            for count in counts
        ]
        reference = embedding[trained]
        basis = principal_basis(reference, search_dims)
        measured = iter(neighbour_distances(embedding[held], reference, searches, basis=basis))
        for distance, first_typical in found:
            for count in counts:
                d = next(measured)
                # each member's space has its own scale: distances relative to its typical one
                finite = d[np.isfinite(d)]
                typical = max(float(np.median(finite)), 1e-12) if len(finite) else 1.0
                distance[count][held] = d / typical
                if k == 0:
                    first_typical[count] = typical
    return found


def _best_ranked(distance: dict[int, np.ndarray], error: np.ndarray) -> int:
    """The neighbour count (a key of ``distance``) whose distances rank the held-out errors
    best (Spearman)."""
    from scipy.stats import spearmanr

    def rank_correlation(count: int) -> float:
        keep = np.isfinite(distance[count]) & np.isfinite(error)
        if keep.sum() < 3 or np.ptp(distance[count][keep]) == 0:
            return -np.inf
        return float(spearmanr(distance[count][keep], error[keep]).statistic)

    return max(distance, key=rank_correlation)
