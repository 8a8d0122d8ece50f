"""Device selection, kept apart from training so ``predict`` does not import its stack."""

from __future__ import annotations

import torch

from scoremol.errors import ScoremolError


def resolve_device(device: str) -> str:
    """``auto`` picks CUDA when available; asking for CUDA without it is a clear error."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ScoremolError(f"device {device!r} requested but no CUDA device is available")
    if device != "cpu" and not device.startswith("cuda"):
        raise ScoremolError(f"unknown device {device!r}; use cpu, cuda or auto")
    return device
