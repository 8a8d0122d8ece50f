"""Scalers fitted on training data and stored in every model as plain lists (JSON).

``TargetScaler`` standardizes each target, ignoring missing values. ``DescriptorScaler``
makes RDKit descriptors safe to feed a network: heavy-tailed columns (e.g. Ipc, whose
values reach 1e30) are compressed with a signed log, missing values are imputed with the
training median, columns are standardized and finally clipped, so an out-of-range
molecule at prediction time cannot produce huge activations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_HEAVY_TAIL = 1e3  # columns whose training |max| exceeds this get a signed log first
_CLIP = 6.0


@dataclass
class TargetScaler:
    """Per-target mean and standard deviation (NaN-aware)."""

    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, y: np.ndarray, keep: np.ndarray | None = None) -> TargetScaler:
        """``keep`` (bool ``[T]``): targets left as they are (a yes/no target's network
        output is its logit, read against 0/1 labels)."""
        y = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        with np.errstate(all="ignore"):
            mean = np.nan_to_num(np.nanmean(y, axis=0)) if len(y) else np.zeros(y.shape[1])
            std = np.nanstd(y, axis=0) if len(y) else np.ones(y.shape[1])
        std = np.where(np.isfinite(std) & (std > 1e-12), std, 1.0)
        if keep is not None:
            keep = np.asarray(keep, bool)
            mean, std = np.where(keep, 0.0, mean), np.where(keep, 1.0, std)
        return cls(mean, std)

    def transform(self, y: np.ndarray) -> np.ndarray:
        return (np.asarray(y, dtype=np.float64) - self.mean) / self.std

    def inverse(self, z: np.ndarray) -> np.ndarray:
        return np.asarray(z, dtype=np.float64) * self.std + self.mean

    def inverse_one(self, z, t: int):
        """Target ``t``'s scaled values back in its units; any array type (a torch tensor
        stays differentiable, as explanations need)."""
        return z * float(self.std[t]) + float(self.mean[t])

    def to_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "std": self.std.tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> TargetScaler:
        mean, std = np.asarray(d["mean"], dtype=np.float64), np.asarray(d["std"], dtype=np.float64)
        if mean.shape != std.shape or not (np.isfinite(mean).all() and np.isfinite(std).all() and (std > 0).all()):
            raise ValueError("target scaler needs finite means and positive spreads, one per target")
        return cls(mean, std)


def _signed_log(x, xp=np):
    return xp.sign(x) * xp.log1p(xp.abs(x))


def scale_descriptors(xp, x, log_columns, median, mean, std):
    """The descriptor scaling in the array library ``xp``: numpy for prediction, torch for
    an exported graph (:mod:`scoremol.models.onnx`), so both run one definition."""
    x = xp.where(xp.isfinite(x), x, xp.nan)
    z = xp.where(log_columns, _signed_log(x, xp), x)
    z = xp.where(xp.isnan(z), median, z)
    return xp.clip((z - mean) / std, -_CLIP, _CLIP)


@dataclass
class DescriptorScaler:
    """Signed-log for heavy tails, median imputation, standardization, clipping."""

    log_columns: np.ndarray  # bool [D]
    median: np.ndarray
    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray) -> DescriptorScaler:
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(all="ignore"):
            finite = np.where(np.isfinite(x), x, np.nan)
            absmax = np.nanmax(np.abs(finite), axis=0) if len(x) else np.zeros(x.shape[1])
        absmax = np.nan_to_num(absmax)
        log_columns = absmax > _HEAVY_TAIL
        z = np.where(log_columns, _signed_log(finite), finite)
        with np.errstate(all="ignore"):
            median = np.nan_to_num(np.nanmedian(z, axis=0)) if len(x) else np.zeros(x.shape[1])
        z = np.where(np.isnan(z), median, z)
        mean = z.mean(axis=0) if len(x) else np.zeros(x.shape[1])
        std = z.std(axis=0) if len(x) else np.ones(x.shape[1])
        std = np.where(std > 1e-12, std, 1.0)
        return cls(log_columns, median, mean, std)

    def transform(self, x: np.ndarray) -> np.ndarray:
        """Scaled float32 matrix, always finite."""
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(all="ignore"):
            z = scale_descriptors(np, x, self.log_columns, self.median, self.mean, self.std)
        return z.astype(np.float32)

    def to_dict(self) -> dict:
        return {
            "log_columns": self.log_columns.astype(int).tolist(),
            "median": self.median.tolist(),
            "mean": self.mean.tolist(),
            "std": self.std.tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> DescriptorScaler:
        return cls(
            np.asarray(d["log_columns"], dtype=bool),
            np.asarray(d["median"], dtype=np.float64),
            np.asarray(d["mean"], dtype=np.float64),
            np.asarray(d["std"], dtype=np.float64),
        )
