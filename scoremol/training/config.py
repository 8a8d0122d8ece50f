"""Optimisation settings of a fit: the one place ``training`` takes them from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from scoremol.errors import ScoremolError
from scoremol.spec import DEFAULTS

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
    #: yes/no targets: positive labels weighed by negatives / positives in the loss
    class_weights: bool = DEFAULTS.class_weights
    #: fine-tuning (``--from``): the pull toward the base's weights (L2-SP strength)
    base_pull: float = DEFAULTS.base_pull
    #: fine-tuning: epochs that train only the heads before every layer trains
    base_freeze: int = DEFAULTS.base_freeze
    #: weight of a CatBoost model on RDKit descriptors blended into the mean (0 = none)
    catboost_weight: float = DEFAULTS.blend_catboost
    #: members hold out a fold each to calibrate intervals and the domain (training.holdout)
    calibrate: bool = DEFAULTS.calibrate
    #: how members choose their held-out molecules: ``random`` or ``scaffold`` groups
    holdout: str = DEFAULTS.holdout
    #: label weights ~ n_t ** -task_balance across targets (0: every label counts once)
    task_balance: float = DEFAULTS.task_balance
    #: training molecules the domain's similarity averages over (0: chosen on held-out errors)
    neighbours: int = DEFAULTS.neighbours
    #: principal components the domain finds neighbours in (0: every dimension)
    domain_dims: int = DEFAULTS.domain_dims

    def validate(self) -> None:
        for name in ("epochs", "batch_size", "ensemble"):
            if getattr(self, name) < 1:
                raise ScoremolError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.workers is not None and self.workers < 1:
            raise ScoremolError(f"workers must be at least 1, got {self.workers}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ScoremolError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        if self.neighbours < 0:
            raise ScoremolError(f"neighbours must be 0 (chosen on held-out errors) or more, got {self.neighbours}")
        if self.domain_dims < 0:
            raise ScoremolError(f"domain_dims must be 0 (every dimension) or more, got {self.domain_dims}")
        if self.lr <= 0:
            raise ScoremolError(f"lr must be positive, got {self.lr}")
        if not 0.0 <= self.catboost_weight < 1.0:
            raise ScoremolError(f"blend_catboost must be in [0, 1), got {self.catboost_weight}")

    def to_dict(self) -> dict:
        return asdict(self)
