"""One ensemble member: what it is trained on (:class:`MemberJob`) and its fit loop.

Targets are standardized on the training data and missing targets (NaN) are masked out of
the loss, so one file can carry several partially measured properties. Each member gets its
own seed and its own validation split; the best epoch (lowest validation RMSE in target
units) is kept. AdamW with a warmup and a cosine decay.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from scoremol.data.collate import Graph, collate_graphs
from scoremol.data.scaling import TargetScaler
from scoremol.device import resolve_device
from scoremol.models.trained import Member
from scoremol.nn import ModelConfig, build_model
from scoremol.training.config import EpochCallback, TrainConfig


@dataclass(frozen=True)
class MemberJob:
    """What one member trains on: ``graphs`` carry standardized ``y`` ([1, T], NaN = missing)
    and, when the model fuses them, scaled ``descriptors``; it fits ``train_idx`` and
    early-stops on ``val_idx`` (empty: a fixed number of epochs). ``outputs``: also return
    the trained model's predictions and embeddings of every graph, for calibration."""

    graphs: list[Graph]
    train_idx: np.ndarray
    val_idx: np.ndarray
    model_config: ModelConfig
    config: TrainConfig
    target_scaler: TargetScaler
    seed: int
    index: int = 0
    outputs: bool = False
    #: per target, whether it is a yes/no target (its output a logit, its loss binary cross-entropy)
    classify: tuple[bool, ...] = ()
    #: fine-tuning: a base member's weights to start from, each new target's base head (or
    #: None: a new head) and the pull toward the starting weights (:mod:`scoremol.training.base`)
    start: dict[str, torch.Tensor] | None = None
    head_map: tuple[int | None, ...] = ()
    pull: float = 0.0
    #: fine-tuning: the first epochs train only the head (staged unfreezing)
    freeze: int = 0


def _rmse_per_target(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    mask = np.isfinite(true)
    err = np.where(mask, pred - np.nan_to_num(true), 0.0)
    counts = np.maximum(mask.sum(axis=0), 1)
    return np.sqrt((err**2).sum(axis=0) / counts)


def _masked_loss(
    pred: torch.Tensor,
    target: torch.Tensor,
    weights: torch.Tensor | None = None,
    classify: torch.Tensor | None = None,
    positive_weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """Mean loss over the labelled entries (NaN = missing): squared error of a regression
    target (standardized), binary cross-entropy of a yes/no target's logit (``classify``,
    bool ``[T]``; None: none), each target's labels weighted by ``weights`` ``[T]`` (None: all 1);
    ``positive_weight`` ``[T]``: a yes/no target's positive labels weigh this much (None: 1)."""
    mask = torch.isfinite(target)
    truth = torch.nan_to_num(target)
    loss = (pred - truth) ** 2
    if classify is not None:
        entropy = torch.nn.functional.binary_cross_entropy_with_logits(
            pred, truth.clamp(0, 1), reduction="none", pos_weight=positive_weight
        )
        loss = torch.where(classify, entropy, loss)
    loss = torch.where(mask, loss, torch.zeros_like(pred))
    if weights is None:
        return loss.sum() / mask.sum().clamp(min=1)
    w = mask * weights
    return (w * loss).sum() / w.sum().clamp(min=1e-12)


def validation_scale(pred: np.ndarray, classify: tuple[bool, ...]) -> np.ndarray:
    """Predictions in target units with each yes/no target's logit as a probability, so a
    validation RMSE reads the square root of its Brier score."""
    if not any(classify):
        return pred
    out = np.array(pred, dtype=np.float64, copy=True)
    cls = np.asarray(classify, bool)
    out[:, cls] = 1.0 / (1.0 + np.exp(-np.clip(out[:, cls], -60, 60)))
    return out


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


def fit_member(job: MemberJob, on_epoch: EpochCallback | None = None) -> Member:
    """Train one model on ``job.graphs[job.train_idx]``, early-stopping on ``job.val_idx``."""
    graphs, train_idx, val_idx = job.graphs, job.train_idx, job.val_idx
    model_config, config, target_scaler = job.model_config, job.config, job.target_scaler
    seed, member_index, outputs = job.seed, job.index, job.outputs
    device = resolve_device(config.device)
    torch.manual_seed(seed)
    np.random.seed(seed % (2**32))
    model = build_model(model_config)
    reference = None
    if job.start is not None:
        from scoremol.training.base import start_state

        model.load_state_dict(start_state(job.start, list(job.head_map), model.state_dict()))
        if job.pull > 0:
            reference = {k: v.detach().clone().to(device) for k, v in model.state_dict().items()}
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    steps_per_epoch = max(1, math.ceil(len(train_idx) / config.batch_size))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, _lr_lambda(config.warmup_epochs * steps_per_epoch, config.epochs * steps_per_epoch)
    )
    generator = np.random.default_rng(seed)
    train_graphs = [graphs[i] for i in train_idx]
    balance = task_weights(torch.cat([g.y for g in train_graphs]).numpy(), config.task_balance)
    weights = None if balance is None else torch.as_tensor(balance, dtype=torch.float32, device=device)
    classify = torch.as_tensor(job.classify, dtype=torch.bool, device=device) if any(job.classify) else None
    positive_weight = None
    if classify is not None and config.class_weights:
        labels = torch.cat([g.y for g in train_graphs])
        positives = (labels == 1).sum(0).clamp(min=1)
        negatives = (labels == 0).sum(0).clamp(min=1)
        positive_weight = torch.where(classify.cpu(), negatives / positives, torch.ones_like(positives.float()))
        positive_weight = positive_weight.float().to(device)
    val_graphs = [graphs[i] for i in val_idx]
    val_true = target_scaler.inverse(torch.cat([g.y for g in val_graphs]).numpy()) if val_graphs else np.zeros((0, 1))
    best_state, best_rmse, best_epoch, bad_epochs = None, math.inf, 0, 0
    history: list[dict] = []
    start_time = time.perf_counter()
    epoch = 0
    for epoch in range(1, config.epochs + 1):
        model.train()
        if job.freeze and epoch <= job.freeze + 1:  # staged unfreezing: the head alone first
            for name, param in model.named_parameters():
                param.requires_grad_(epoch > job.freeze or name.startswith("head."))
        order = generator.permutation(len(train_graphs))
        total, count = 0.0, 0
        for start in range(0, len(order), config.batch_size):
            idx = order[start : start + config.batch_size]
            if len(idx) < 2 and len(order) > 2:
                continue  # a batch of one breaks nothing but adds noise; skip the remainder
            batch = collate_graphs([train_graphs[i] for i in idx]).to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = _masked_loss(model(batch), batch.y, weights, classify, positive_weight)
            if reference is not None:
                from scoremol.training.base import pull_penalty

                loss = loss + pull_penalty(model, reference, job.pull)
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
            rmse = float(np.mean(_rmse_per_target(validation_scale(pred, job.classify), val_true)))
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
