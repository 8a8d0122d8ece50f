"""Depth: the four modes, the SCORE integrators, learnable dt, step norm, validation."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from scoremol.nn import INTEGRATORS, MODES, Depth, count_parameters
from scoremol.nn.depth import initial_alpha

HIDDEN = 3


class LinearBlock(nn.Module):
    """``y = h W^T + b`` with given weights; ignores the context like a dense block."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None) -> None:
        super().__init__()
        self.lin = nn.Linear(weight.size(1), weight.size(0), bias=bias is not None, dtype=weight.dtype)
        with torch.no_grad():
            self.lin.weight.copy_(weight)
            if bias is not None:
                self.lin.bias.copy_(bias)

    def forward(self, h: torch.Tensor, ctx=None) -> torch.Tensor:
        return self.lin(h)


W = torch.tensor([[0.5, -1.0, 0.25], [0.8, 0.1, -0.3], [-0.2, 0.6, 0.9]])
B = torch.tensor([0.1, -0.2, 0.05])
H = torch.tensor([[1.0, -0.5, 0.3], [0.2, 0.4, -1.2], [0.0, 0.7, 0.1], [-0.6, 0.2, 0.9]])


def fixed_block() -> nn.Module:
    return LinearBlock(W, B)


def hand_F(h: torch.Tensor) -> torch.Tensor:
    return torch.tanh(h @ W.T + B)


def hand_v(h: torch.Tensor) -> torch.Tensor:
    return hand_F(h) - h


def hand_step(h: torch.Tensor, dt: float, integrator: str) -> torch.Tensor:
    """One step of each integrator, written out from SCORE.md."""
    v = hand_v
    if integrator == "euler":
        return h + dt * v(h)
    if integrator == "heun":
        k1 = v(h)
        k2 = v(h + dt * k1)
        return h + dt / 2 * (k1 + k2)
    if integrator == "midpoint":
        k1 = v(h)
        return h + dt * v(h + dt / 2 * k1)
    k1 = v(h)
    k2 = v(h + dt / 2 * k1)
    k3 = v(h + dt / 2 * k2)
    k4 = v(h + dt * k3)
    return h + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def depth(mode: str, make_block=fixed_block, **kw) -> Depth:
    kw.setdefault("activation", "tanh")
    return Depth(make_block, mode, hidden=HIDDEN, **kw)


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("steps", [1, 3])
def test_integrator_matches_hand_computed_steps(integrator: str, steps: int) -> None:
    d = depth("score", steps=steps, dt=0.4, integrator=integrator)
    expected = H
    for _ in range(steps):
        expected = hand_step(expected, 0.4, integrator)
    torch.testing.assert_close(d(H), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("integrator,order", [("euler", 1), ("heun", 2), ("midpoint", 2), ("rk4", 4)])
def test_integrator_order_on_linear_field(integrator: str, order: int) -> None:
    # With F(h) = h A^T (identity activation), v(h) = h M, M = (A - I)^T, and one step of
    # an order-p Runge-Kutta method is exactly h * sum_{j<=p} (dt M)^j / j!.
    A = torch.tensor([[0.3, -0.7, 0.2], [0.5, 0.1, 0.4], [-0.6, 0.2, 0.8]], dtype=torch.float64)
    h = H.double()
    dt = 0.7
    d = Depth(
        lambda: LinearBlock(A), "score", steps=1, dt=dt, integrator=integrator, hidden=HIDDEN, activation="identity"
    ).double()
    M = (A - torch.eye(3, dtype=torch.float64)).T
    poly = torch.zeros(3, 3, dtype=torch.float64)
    term = torch.eye(3, dtype=torch.float64)
    for j in range(order + 1):
        poly = poly + term / math.factorial(j)
        term = term @ (dt * M)
    torch.testing.assert_close(d(h), h @ poly, rtol=1e-12, atol=1e-12)


def test_scalar_rk4_value() -> None:
    # F(h) = 2h, h = 1, dt = 0.5: v = h, so rk4 gives 1 + 1/2 + 1/8 + 1/48 + 1/384.
    d = Depth(
        lambda: LinearBlock(torch.tensor([[2.0]])),
        "score",
        steps=1,
        dt=0.5,
        integrator="rk4",
        hidden=1,
        activation="identity",
    )
    assert d(torch.ones(1, 1)).item() == pytest.approx(1 + 1 / 2 + 1 / 8 + 1 / 48 + 1 / 384)


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_score_dt_zero_leaves_state_unchanged(integrator: str) -> None:
    d = depth("score", steps=4, dt=0.0, integrator=integrator)
    assert torch.equal(d(H), H)


def test_skip_dt_zero_leaves_state_unchanged() -> None:
    assert torch.equal(depth("skip", steps=3, dt=0.0)(H), H)


@pytest.mark.parametrize("steps", [1, 2, 5])
def test_score_dt_one_euler_is_F_applied_k_times(steps: int) -> None:
    d = depth("score", steps=steps, dt=1.0)
    expected = H
    for _ in range(steps):
        expected = hand_F(expected)
    torch.testing.assert_close(d(H), expected, rtol=1e-6, atol=1e-6)


def test_score_euler_half_step_is_average_of_state_and_F() -> None:
    d = depth("score", steps=1, dt=0.5)
    torch.testing.assert_close(d(H), 0.5 * H + 0.5 * hand_F(H))


def _known_blocks(k: int) -> tuple[list[torch.Tensor], callable]:
    gen = torch.Generator().manual_seed(0)
    weights = [torch.randn(HIDDEN, HIDDEN, generator=gen) for _ in range(k)]
    it = iter(weights)
    return weights, lambda: LinearBlock(next(it))


@pytest.mark.parametrize("mode", ["base", "classic", "skip"])
def test_stacked_modes_follow_their_update_rule(mode: str) -> None:
    weights, make = _known_blocks(3)
    d = Depth(make, mode, steps=3, dt=0.3, hidden=HIDDEN, activation="tanh")
    h = H
    for w in weights:  # each layer has its own weights, in order
        y = h @ w.T
        if mode == "base":
            h = torch.tanh(y)
        elif mode == "classic":
            h = torch.tanh(F.layer_norm(h + y, (HIDDEN,)))
        else:
            h = h + 0.3 * (torch.tanh(y) - h)
    torch.testing.assert_close(d(H), h, rtol=1e-6, atol=1e-6)


def test_score_calls_one_shared_block() -> None:
    made = []

    def make() -> nn.Module:
        made.append(fixed_block())
        return made[-1]

    d = Depth(make, "score", steps=6, hidden=HIDDEN)
    assert len(made) == 1 and len(d.blocks) == 1


def _block_params() -> int:
    return count_parameters(fixed_block())


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("step_norm", [False, True])
def test_score_parameter_count_independent_of_k(integrator: str, step_norm: bool) -> None:
    counts = {count_parameters(depth("score", steps=k, integrator=integrator, step_norm=step_norm)) for k in (1, 4, 9)}
    assert counts == {_block_params() + (2 * HIDDEN if step_norm else 0)}


@pytest.mark.parametrize("mode", ["base", "classic", "skip"])
def test_stacked_parameter_count_grows_with_k(mode: str) -> None:
    per_layer = _block_params() + (2 * HIDDEN if mode == "classic" else 0)
    for k in (1, 2, 5):
        assert count_parameters(depth(mode, steps=k)) == k * per_layer


@pytest.mark.parametrize("mode", ["skip", "score"])
@pytest.mark.parametrize("dt", [0.15, 0.3, 0.45])
def test_learnable_dt_starts_at_requested_value(mode: str, dt: float) -> None:
    d = depth(mode, steps=4, dt=dt, learnable_dt=True)
    torch.testing.assert_close(d.step_sizes(), torch.full((4,), dt))
    # K extra scalars, one per step
    assert count_parameters(d) == count_parameters(depth(mode, steps=4, dt=dt)) + 4


@pytest.mark.parametrize("dt,start", [(0.5, 0.48), (1.0, 0.48), (0.1, 0.12), (0.0, 0.12)])
def test_learnable_dt_outside_open_range_starts_clipped(dt: float, start: float) -> None:
    d = depth("score", steps=2, dt=dt, learnable_dt=True)
    torch.testing.assert_close(d.step_sizes(), torch.full((2,), start))
    assert math.isfinite(initial_alpha(dt))


def test_learnable_dt_stays_in_range_and_is_used_and_trained() -> None:
    d = depth("score", steps=2, dt=0.3, learnable_dt=True)
    with torch.no_grad():
        d.alpha.copy_(torch.tensor([-1e4, 1e4]))
    torch.testing.assert_close(d.step_sizes(), torch.tensor([0.1, 0.5]))
    with torch.no_grad():  # sigmoid = 1/4 and 3/4 -> dt = 0.2 and 0.4
        d.alpha.copy_(torch.tensor([math.log(1 / 3), math.log(3)]))
    torch.testing.assert_close(d.step_sizes(), torch.tensor([0.2, 0.4]))
    out = d(H)
    torch.testing.assert_close(out, hand_step(hand_step(H, 0.2, "euler"), 0.4, "euler"))
    out.sum().backward()
    assert d.alpha.grad is not None and bool((d.alpha.grad != 0).all())


def test_fixed_dt_is_not_a_parameter() -> None:
    d = depth("score", dt=0.3)
    assert d.alpha is None
    assert count_parameters(d) == _block_params()
    torch.testing.assert_close(d.step_sizes(), torch.full((4,), 0.3))


@pytest.mark.parametrize("mode", ["base", "skip", "score"])
def test_step_norm_normalises_each_step(mode: str) -> None:
    d = depth(mode, steps=3, dt=0.5, step_norm=True)
    out = d(H * 10)
    torch.testing.assert_close(out.mean(-1), torch.zeros(len(H)), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.var(-1, unbiased=False), torch.ones(len(H)), atol=1e-3, rtol=0)
    assert len(d.norms) == (1 if mode == "score" else 3)


@pytest.mark.parametrize("mode", MODES)
def test_empty_state_is_fine(mode: str) -> None:
    # DMPNN runs Depth on edge states, and a batch of single atoms has zero edges.
    out = depth(mode, steps=2)(torch.zeros(0, HIDDEN))
    assert out.shape == (0, HIDDEN)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"mode": "deep"}, "mode"),
        ({"mode": None}, "mode"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.0}, "steps"),
        ({"steps": True}, "steps"),
        ({"dt": -0.1}, "dt"),
        ({"dt": 1.5}, "dt"),
        ({"dt": float("nan")}, "dt"),
        ({"dt": "0.5"}, "dt"),
        ({"integrator": "rk45"}, "integrator"),
        ({"mode": "skip", "integrator": "rk4"}, "integrator"),
        ({"mode": "base", "learnable_dt": True}, "learnable_dt"),
        ({"mode": "classic", "step_norm": True}, "step_norm"),
        ({"learnable_dt": 1}, "learnable_dt"),
        ({"hidden": 0}, "hidden"),
        ({"activation": "swishy"}, "activation"),
    ],
)
def test_invalid_arguments_raise_value_error(kwargs: dict, match: str) -> None:
    args = {"mode": "score", "steps": 2, "dt": 0.5, "hidden": HIDDEN}
    args.update(kwargs)
    mode = args.pop("mode")
    with pytest.raises(ValueError, match=match):
        Depth(fixed_block, mode, **args)


def test_gradients_flow_through_all_steps() -> None:
    torch.manual_seed(0)
    d = Depth(
        lambda: LinearBlock(torch.randn(HIDDEN, HIDDEN), torch.randn(HIDDEN)),
        "score",
        steps=3,
        integrator="rk4",
        learnable_dt=True,
        dt=0.3,
        hidden=HIDDEN,
    )
    h = torch.randn(5, HIDDEN, requires_grad=True)
    d(h).square().sum().backward()
    assert h.grad is not None and bool(torch.isfinite(h.grad).all())
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in d.parameters())
