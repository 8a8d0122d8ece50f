"""The fit loop: seeded validation split, early stopping, AdamW with warmup + cosine decay.

Targets are standardized on the training data and missing targets (NaN) are masked out of
the loss, so one file can carry several partially measured properties. Each ensemble
member gets its own seed and its own validation split; the best epoch (lowest validation
RMSE in target units) is kept.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from scoremol.data.collate import Graph, collate_graphs
from scoremol.data.scaling import DescriptorScaler, TargetScaler
from scoremol.device import resolve_device  # noqa: F401  (re-exported: scoremol.training.fit.resolve_device)
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.models.trained import Member, TrainedModel
from scoremol.nn import ModelConfig, build_model, count_parameters
from scoremol.spec import DEFAULTS
from scoremol.training.labels import require_labelled
from scoremol.training.members import member_plan, train_members

EpochCallback = Callable[[int, dict], None]  # (member index, epoch record)


@dataclass
class TrainConfig:
    """Optimisation settings (the model's own shape lives in ``ModelConfig``)."""

    epochs: int = DEFAULTS.epochs
    batch_size: int = DEFAULTS.batch_size
    lr: float = DEFAULTS.lr
    weight_decay: float = DEFAULTS.weight_decay
    warmup_epochs: int = 2
    patience: int = DEFAULTS.patience
    val_fraction: float = DEFAULTS.val_fraction
    grad_clip: float = 5.0
    seed: int = DEFAULTS.seed
    ensemble: int = DEFAULTS.ensemble
    device: str = DEFAULTS.device
    #: processes training members side by side (None: one per core, see training.members)
    workers: int | None = None
    #: weight of a CatBoost model on RDKit descriptors blended into the mean (0 = none)
    catboost_weight: float = DEFAULTS.blend_catboost
    #: members hold out a fold each to calibrate intervals and the domain (training.holdout)
    calibrate: bool = DEFAULTS.calibrate
    #: label weights ~ n_t ** -task_balance across targets (0: every label counts once)
    task_balance: float = DEFAULTS.task_balance

    def validate(self) -> None:
        for name in ("epochs", "batch_size", "ensemble"):
            if getattr(self, name) < 1:
                raise ScoremolError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.workers is not None and self.workers < 1:
            raise ScoremolError(f"workers must be at least 1, got {self.workers}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ScoremolError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        if self.lr <= 0:
            raise ScoremolError(f"lr must be positive, got {self.lr}")
        if not 0.0 <= self.catboost_weight < 1.0:
            raise ScoremolError(f"blend_catboost must be in [0, 1), got {self.catboost_weight}")

    def to_dict(self) -> dict:
        return asdict(self)


def _rmse_per_target(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    mask = np.isfinite(true)
    err = np.where(mask, pred - np.nan_to_num(true), 0.0)
    counts = np.maximum(mask.sum(axis=0), 1)
    return np.sqrt((err**2).sum(axis=0) / counts)


def _masked_mse(pred: torch.Tensor, target: torch.Tensor, weights: torch.Tensor | None = None) -> torch.Tensor:
    """Mean squared error over the labelled entries (NaN = missing), each target's labels
    weighted by ``weights`` ``[T]`` (None: all 1)."""
    mask = torch.isfinite(target)
    diff = torch.where(mask, pred - torch.nan_to_num(target), torch.zeros_like(pred))
    if weights is None:
        return (diff**2).sum() / mask.sum().clamp(min=1)
    w = mask * weights
    return (w * diff**2).sum() / w.sum().clamp(min=1e-12)


def task_weights(y: np.ndarray, balance: float) -> np.ndarray | None:
    """Label weights ``[T]`` for targets ``y`` ``[n, T]``: ``n_t ** -balance``, scaled so the
    labels' mean weight is 1 (None for one target or no balance: every label counts once)."""
    if y.shape[1] == 1 or balance == 0:
        return None
    counts = np.maximum(np.isfinite(y).sum(axis=0), 1).astype(np.float64)
    w = counts**-balance
    return w * counts.sum() / (w * counts).sum()


def _lr_lambda(warmup_steps: int, total_steps: int) -> Callable[[int], float]:
    """Linear warmup from 10% to 100%, then cosine decay to 5% of the peak."""

    def f(step: int) -> float:
        if step < warmup_steps:
            return 0.1 + 0.9 * step / max(1, warmup_steps)
        progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
        return 0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * progress))

    return f


@torch.no_grad()
def member_outputs(
    model: torch.nn.Module, graphs: list[Graph], device: str, batch_size: int = 256, embed: bool = True
) -> tuple[np.ndarray, torch.Tensor | None]:
    """One member's scaled predictions ``[n, T]`` of ``graphs`` (eval mode) and, with
    ``embed``, its embeddings ``[n, d]`` (else None)."""
    model.eval()
    preds, embeddings = [], []
    for start in range(0, len(graphs), batch_size):
        batch = collate_graphs(graphs[start : start + batch_size]).to(device)
        if embed:
            pred, hidden = model.predict_and_embed(batch)
            embeddings.append(hidden.float().cpu())
        else:
            pred = model(batch)
        preds.append(pred.float().cpu().numpy())
    if not preds:
        return np.zeros((0, 1)), None
    return np.concatenate(preds), torch.cat(embeddings) if embed else None


def fit_member(
    graphs: list[Graph],
    train_idx: np.ndarray,
    val_idx: np.ndarray,
    model_config: ModelConfig,
    config: TrainConfig,
    target_scaler: TargetScaler,
    seed: int,
    member_index: int = 0,
    outputs: bool = False,
    on_epoch: EpochCallback | None = None,
) -> Member:
    """Train one model on ``graphs[train_idx]``, early-stopping on ``graphs[val_idx]``.

    ``graphs`` carry standardized ``y`` ([1, T], NaN = missing) and, when the model fuses
    them, scaled ``descriptors``. ``outputs``: also the trained model's predictions and
    embeddings of every graph (:func:`member_outputs`), for calibration.
    """
    device = resolve_device(config.device)
    torch.manual_seed(seed)
    np.random.seed(seed % (2**32))
    model = build_model(model_config).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    steps_per_epoch = max(1, math.ceil(len(train_idx) / config.batch_size))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, _lr_lambda(config.warmup_epochs * steps_per_epoch, config.epochs * steps_per_epoch)
    )
    generator = np.random.default_rng(seed)
    train_graphs = [graphs[i] for i in train_idx]
    balance = task_weights(torch.cat([g.y for g in train_graphs]).numpy(), config.task_balance)
    weights = None if balance is None else torch.as_tensor(balance, dtype=torch.float32, device=device)
    val_graphs = [graphs[i] for i in val_idx]
    val_true = target_scaler.inverse(torch.cat([g.y for g in val_graphs]).numpy()) if val_graphs else np.zeros((0, 1))
    best_state, best_rmse, best_epoch, bad_epochs = None, math.inf, 0, 0
    history: list[dict] = []
    start_time = time.perf_counter()
    epoch = 0
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = generator.permutation(len(train_graphs))
        total, count = 0.0, 0
        for start in range(0, len(order), config.batch_size):
            idx = order[start : start + config.batch_size]
            if len(idx) < 2 and len(order) > 2:
                continue  # a batch of one breaks nothing but adds noise; skip the remainder
            batch = collate_graphs([train_graphs[i] for i in idx]).to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = _masked_mse(model(batch), batch.y, weights)
            loss.backward()
            if config.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            scheduler.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        record = {"epoch": epoch, "train_loss": total / max(count, 1), "lr": optimizer.param_groups[0]["lr"]}
        if val_graphs:
            pred = target_scaler.inverse(member_outputs(model, val_graphs, device, embed=False)[0])
            rmse = float(np.mean(_rmse_per_target(pred, val_true)))
            record["val_rmse"] = rmse
            if rmse < best_rmse - 1e-6:
                best_rmse, best_epoch, bad_epochs = rmse, epoch, 0
                best_state = copy.deepcopy({k: v.detach().cpu() for k, v in model.state_dict().items()})
            else:
                bad_epochs += 1
        record["best_val_rmse"] = best_rmse if val_graphs else math.nan
        record["seconds"] = time.perf_counter() - start_time
        stop = bool(val_graphs) and bad_epochs >= config.patience
        if stop:
            record["stopped_early_best_epoch"] = best_epoch  # shown by progress displays
        history.append(record)
        if on_epoch is not None:
            on_epoch(member_index, record)
        if stop:
            break
    if best_state is None:  # no validation split: keep the last epoch
        best_state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
        best_epoch = epoch
    held_out = None
    if outputs:
        model.load_state_dict(best_state)
        held_out = member_outputs(model, graphs, device)
    return Member(
        state_dict=best_state,
        seed=seed,
        best_epoch=best_epoch,
        best_val_rmse=best_rmse if val_graphs else math.nan,
        epochs_run=epoch,
        seconds=time.perf_counter() - start_time,
        history=history,
        outputs=held_out,
    )


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
) -> TrainedModel:
    """Train a (possibly ensembled) model on graphs ``rows`` of ``data`` (default: all).

    ``gnn_descriptors`` names the descriptors the GNN fuses when the data carry more (a
    blended tree uses all of them); None means every descriptor column of the data.
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
    target_scaler = TargetScaler.fit(y_all)
    descriptor_scaler = None
    if model_config.use_descriptors:
        if data.descriptors is None:
            raise ScoremolError("use_descriptors=True needs featurized descriptors")
        descriptor_scaler = DescriptorScaler.fit(data.descriptors[rows])
    graphs = build_graphs(data, target_scaler.transform(y_all), rows, descriptor_scaler)
    folds = None
    if config.calibrate:
        from scoremol.training.holdout import holdout_folds

        folds = holdout_folds(len(graphs), config.ensemble, config.val_fraction, config.seed)
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
        jobs.append(
            (
                graphs,
                np.sort(train_idx),
                np.sort(val_idx),
                model_config,
                config,
                target_scaler,
                seed,
                k,
                folds is not None,
            )
        )
    plan = member_plan(config.ensemble, resolve_device(config.device), config.workers)
    start = time.perf_counter()
    members = train_members(fit_member, jobs, plan, on_epoch)
    network_seconds = time.perf_counter() - start  # wall time: members may train side by side
    tree = None
    if config.catboost_weight > 0:
        from scoremol.models.catboost import fit_tree_blend

        if on_phase is not None:
            on_phase("CatBoost")
        start = time.perf_counter()
        # every training molecule, a fixed number of trees: in the ESOL study this beat early
        # stopping on a held-out tenth (0.515 vs 0.521 blended)
        tree = fit_tree_blend(full, target_names, rows, config.catboost_weight, seed=config.seed)
        tree_seconds = time.perf_counter() - start
    calibration = domain = None
    calibration_seconds, held_out = 0.0, 0
    if folds is not None:
        from scoremol.training.holdout import calibrate

        if on_phase is not None:
            on_phase("Calibration")
        start = time.perf_counter()
        fit_tree = None
        if tree is not None:
            from scoremol.models.catboost import fit_tree_blend

            def fit_tree(positions: np.ndarray):
                return fit_tree_blend(full, target_names, rows[positions], config.catboost_weight, seed=config.seed)

        calibration, domain, held_out = calibrate(
            full, rows, y_all, folds, [m.outputs for m in members], target_scaler, fit_tree
        )
        # the training molecules and their labels ride along, for reports' nearest neighbours
        smiles = full.table[full.smiles_col].astype(str).to_numpy()[full.graph_row[rows]]
        domain = replace(domain, smiles=smiles.tolist(), labels=y_all.astype(np.float32))
        for m in members:
            m.outputs = None  # not part of the model
        calibration_seconds = time.perf_counter() - start
    best = [m.best_val_rmse for m in members]
    metrics = {
        "n_train_molecules": int(len(graphs)),
        "labels": {t: int(np.isfinite(y_all[:, k]).sum()) for k, t in enumerate(target_names)},
        "best_val_rmse_mean": float(np.nanmean(best)) if np.isfinite(best).any() else None,
        "best_val_rmse": [None if math.isnan(b) else b for b in best],
        "best_epochs": [m.best_epoch for m in members],
        "seconds": network_seconds + (tree_seconds if tree is not None else 0.0) + calibration_seconds,
        "calibration_seconds": calibration_seconds,
        "held_out_molecules": held_out,
        "parameters": count_parameters(build_model(model_config)),
    }
    return TrainedModel(
        model_config=model_config,
        featurizer=full.settings,  # what prediction must compute: the tree's and the network's descriptors
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
    )
