"""Device selection, kept apart from training so ``predict`` does not import its stack."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

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


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run torch with ``count`` threads inside the block. Many tiny forward passes (one
    molecule's variants in ``explain``) gain nothing from a second thread, and on a busy
    machine its spinning made them 80x slower (measured: 77 s vs 0.97 s for 22 molecules)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
