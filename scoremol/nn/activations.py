"""Activation functions by name, so a model config can name one and stay JSON-friendly."""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

#: name -> factory of a stateless activation module.
ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU,
    "elu": nn.ELU,
    "leaky_relu": nn.LeakyReLU,
    "gelu": nn.GELU,
    "silu": nn.SiLU,
    "tanh": nn.Tanh,
    # Identity makes F linear, which the tests use to check integrators analytically.
    "identity": nn.Identity,
}

ActivationSpec = str | Callable[[], nn.Module]


def make_activation(spec: ActivationSpec) -> nn.Module:
    """Build an activation module from a registered name or a zero-argument factory."""
    if isinstance(spec, str):
        if spec not in ACTIVATIONS:
            raise ValueError(f"unknown activation {spec!r}; choose one of {sorted(ACTIVATIONS)}")
        return ACTIVATIONS[spec]()
    if callable(spec):
        module = spec()
        if not isinstance(module, nn.Module):
            raise ValueError("an activation factory must return an nn.Module")
        return module
    raise ValueError(f"activation must be a name or a factory, got {type(spec).__name__}")
