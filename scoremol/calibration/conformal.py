"""Normalized split-conformal intervals and threshold probabilities.

Each held-out residual ``r`` is divided by a difficulty ``sigma(s)``, the expected absolute
error at the molecule's similarity ``s`` to the training data (a decreasing curve fitted on
the same held-out rows, coarse enough not to overfit them). For a new molecule,
``mean +/- q * sigma(s)`` covers the truth with probability ``coverage`` when ``q`` is the
conformal quantile of ``|r| / sigma``: molecules unlike the training data get wider
intervals. The same signed scores give ``P(y < T)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: at most this many similarity bins in the difficulty curve ...
DIFFICULTY_BINS = 10
#: ... and at least this many held-out molecules in each, so each bin's mean |error| is
#: stable (90 held-out ESOL molecules make 2 bins, 3,900 AqSolDB ones 10)
MOLECULES_PER_BIN = 40


@dataclass
class Calibration:
    """Held-out normalized residuals and the difficulty curve of one target.

    ``scores``: sorted signed residuals ``(y - prediction) / sigma``, ``[n]``.
    ``knots_s`` / ``knots_sigma``: the difficulty curve, increasing similarity, ``[k]``.
    """

    scores: np.ndarray
    knots_s: np.ndarray
    knots_sigma: np.ndarray

    @classmethod
    def fit(cls, residuals: np.ndarray, similarity: np.ndarray) -> Calibration:
        """From held-out residuals ``[n]`` (target units) and similarities ``[n]``."""
        from sklearn.isotonic import IsotonicRegression

        keep = np.isfinite(residuals) & np.isfinite(similarity)
        r, s = np.asarray(residuals, np.float64)[keep], np.asarray(similarity, np.float64)[keep]
        if len(r) < 2:
            raise ValueError("need at least 2 held-out residuals to calibrate")
        bins = int(np.clip(len(r) // MOLECULES_PER_BIN, 1, DIFFICULTY_BINS))
        edges = np.unique(np.quantile(s, np.linspace(0, 1, bins + 1)))
        which = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, max(len(edges) - 2, 0))
        centers, levels, counts = [], [], []
        for b in np.unique(which):
            inside = which == b
            centers.append(float(np.mean(s[inside])))
            levels.append(float(np.mean(np.abs(r[inside]))))
            counts.append(int(inside.sum()))
        iso = IsotonicRegression(increasing=False).fit(centers, levels, sample_weight=counts)
        knots_sigma = np.asarray(iso.predict(centers), dtype=np.float64)
        floor = max(0.1 * float(np.mean(np.abs(r))), 1e-6)  # never divide by a vanishing error
        knots_sigma = np.maximum(knots_sigma, floor)
        calibration = cls(np.zeros(0), np.asarray(centers, np.float64), knots_sigma)
        calibration.scores = np.sort(r / calibration.sigma(s))
        return calibration

    @property
    def size(self) -> int:
        return len(self.scores)

    def sigma(self, similarity: np.ndarray) -> np.ndarray:
        """Expected absolute error ``[n]`` at each similarity (flat beyond the end knots)."""
        s = np.nan_to_num(np.asarray(similarity, np.float64), nan=float(self.knots_s[0]))
        return np.interp(s, self.knots_s, self.knots_sigma)

    def quantile(self, coverage: float) -> float:
        """The conformal multiplier ``q`` for ``coverage`` (inf when too few residuals)."""
        if not 0.0 < coverage < 1.0:
            raise ValueError(f"coverage must be between 0 and 1, got {coverage}")
        magnitudes = np.sort(np.abs(self.scores))
        rank = math.ceil((self.size + 1) * coverage)
        return float(magnitudes[rank - 1]) if rank <= self.size else math.inf

    def interval(self, mean: np.ndarray, similarity: np.ndarray, coverage: float) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds ``[n]`` that cover the truth with probability ``coverage``."""
        half = self.quantile(coverage) * self.sigma(similarity)
        return mean - half, mean + half

    def p_below(self, mean: np.ndarray, similarity: np.ndarray, threshold: float) -> np.ndarray:
        """``P(y < threshold)`` ``[n]`` from the held-out residual distribution (never exactly
        0 or 1: it cannot be surer than its held-out molecules allow)."""
        z = (threshold - np.asarray(mean, np.float64)) / self.sigma(similarity)
        below = np.searchsorted(self.scores, z, side="left")
        return (below + 0.5) / (self.size + 1)

    def to_dict(self) -> dict:
        return {
            "scores": self.scores.astype(float).tolist(),
            "knots_s": self.knots_s.tolist(),
            "knots_sigma": self.knots_sigma.tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        return cls(
            np.sort(np.asarray(d["scores"], np.float64)),
            np.asarray(d["knots_s"], np.float64),
            np.asarray(d["knots_sigma"], np.float64),
        )
