"""The one depth mechanism of scoremol: stacked layers or SCORE recurrent depth.

Every architecture provides a state-to-state block ``block(h, ctx) -> y`` (``y`` has the
shape of ``h`` and is pre-activation; the full contract is in :mod:`scoremol.nn.blocks`)
and hands a factory of it to :class:`Depth`, which alone decides how depth is built:

========  ==================  ================================================
mode      weights             update per layer / step
========  ==================  ================================================
base      K separate blocks   h = act(y)
classic   K separate blocks   h = act(LayerNorm(h + y))
skip      K separate blocks   h = h + dt * (act(y) - h)
score     ONE shared block    h = h + dt * v(h), v(h) = act(block(h)) - h, K times
========  ==================  ================================================

``score`` can use a higher-order integrator on the same velocity field ``v``. Keeping this
logic in one class is what makes "architecture x depth" orthogonal: no architecture
re-implements residuals, step sizes or integrators.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from scoremol.nn.activations import ActivationSpec, make_activation

MODES: tuple[str, ...] = ("base", "classic", "skip", "score")
STACKED_MODES: tuple[str, ...] = ("base", "classic", "skip")
INTEGRATORS: tuple[str, ...] = ("euler", "heun", "midpoint", "rk4")

#: Learnable steps live in [DT_MIN, DT_MIN + DT_SPAN] = [0.1, 0.5] (the author's range).
DT_MIN = 0.1
DT_SPAN = 0.4
#: The initial sigmoid value is clipped to [P_CLIP, 1 - P_CLIP]: a requested dt at or
#: beyond the ends of (0.1, 0.5) (e.g. the default 0.5) starts at 0.12 / 0.48, where the
#: sigmoid still has a usable gradient instead of an infinite logit.
P_CLIP = 0.05


#: the most steps (layers) a network may take: far past any useful depth, and a bound on
#: what a model file can make one molecule cost
MAX_STEPS = 64


def validate_depth_args(
    mode: str,
    steps: int,
    dt: float,
    integrator: str = "euler",
    learnable_dt: bool = False,
    step_norm: bool = False,
) -> None:
    """Raise ``ValueError`` for any depth setting that is invalid or meaningless.

    Shared by :class:`Depth` and the model config so both reject the same things.
    """
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"unknown depth mode {mode!r}; choose one of {list(MODES)}")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be an integer in [1, {MAX_STEPS}], got {steps!r}")
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt):
        raise ValueError(f"dt must be a finite number, got {dt!r}")
    if not 0.0 <= dt <= 1.0:
        raise ValueError(f"dt must lie in [0, 1] (a convex blend of old and new state), got {dt}")
    if not isinstance(integrator, str) or integrator not in INTEGRATORS:
        raise ValueError(f"unknown integrator {integrator!r}; choose one of {list(INTEGRATORS)}")
    if integrator != "euler" and mode != "score":
        raise ValueError(
            f"integrator {integrator!r} only applies to mode 'score' (mode {mode!r} has no velocity field to integrate)"
        )
    if not isinstance(learnable_dt, bool):
        raise ValueError(f"learnable_dt must be a bool, got {learnable_dt!r}")
    if learnable_dt and mode not in ("skip", "score"):
        raise ValueError(f"learnable_dt only applies to modes 'skip' and 'score', not {mode!r}")
    if not isinstance(step_norm, bool):
        raise ValueError(f"step_norm must be a bool, got {step_norm!r}")
    if step_norm and mode == "classic":
        raise ValueError("step_norm is redundant with mode 'classic', which already applies a LayerNorm at every layer")


def initial_alpha(dt: float) -> float:
    """Logit ``alpha`` such that ``0.1 + 0.4 * sigmoid(alpha)`` equals ``dt`` (clipped)."""
    p = min(max((dt - DT_MIN) / DT_SPAN, P_CLIP), 1.0 - P_CLIP)
    return math.log(p / (1.0 - p))


class Depth(nn.Module):
    """Apply a state-to-state block K times, stacked (``base``/``classic``/``skip``) or
    recurrently with shared weights (``score``).

    Args:
        make_block: zero-argument factory of a block ``block(h, ctx) -> y``; called K times
            for stacked modes and once for ``score`` (so its parameter count is independent
            of K).
        mode: one of :data:`MODES`.
        steps: K, the number of layers / recurrent steps.
        dt: step size for ``skip`` and ``score`` (in [0, 1]); ignored by base/classic.
        integrator: ``score`` only: euler, heun, midpoint or rk4 on ``v(h) = F(h) - h``.
        learnable_dt: ``skip``/``score``: one step per iteration,
            ``dt_t = 0.1 + 0.4 * sigmoid(alpha_t)``, initialised at ``dt`` (clipped to
            [0.12, 0.48], see :data:`P_CLIP`). Adds K scalars to the parameter count.
        step_norm: LayerNorm after every step (one shared norm in ``score``, one per layer
            in stacked modes); not allowed with ``classic``.
        hidden: width of the state, needed for the LayerNorms.
        activation: name from ``ACTIVATIONS`` or a factory of an activation module.

    Shapes:
        - **input:** state ``h`` ``[N, hidden]`` (rows: atoms, directed bonds or
          molecules) and the blocks' context ``ctx`` (passed unchanged to every step)
        - **output:** final state ``[N, hidden]``
    """

    def __init__(
        self,
        make_block: Callable[[], nn.Module],
        mode: str,
        steps: int = 4,
        dt: float = 0.5,
        integrator: str = "euler",
        learnable_dt: bool = False,
        step_norm: bool = False,
        *,
        hidden: int,
        activation: ActivationSpec = "relu",
    ) -> None:
        super().__init__()
        validate_depth_args(mode, steps, dt, integrator, learnable_dt, step_norm)
        if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
            raise ValueError(f"hidden must be an integer >= 1, got {hidden!r}")
        self.mode = mode
        self.steps = steps
        self.dt = float(dt)
        self.integrator = integrator
        self.learnable_dt = learnable_dt
        self.step_norm = step_norm
        self.hidden = hidden
        self.act = make_activation(activation)

        n_blocks = 1 if mode == "score" else steps
        self.blocks = nn.ModuleList(make_block() for _ in range(n_blocks))
        # classic: the residual norm of each layer; step_norm: the between-step norm.
        n_norms = steps if mode == "classic" else (0 if not step_norm else n_blocks)
        self.norms = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(n_norms))
        if learnable_dt:
            self.alpha = nn.Parameter(torch.full((steps,), initial_alpha(self.dt)))
        else:
            self.register_parameter("alpha", None)

    def step_sizes(self) -> Tensor:
        """The K step sizes actually used (learnable ones included), shape ``[K]``."""
        if self.alpha is not None:
            return DT_MIN + DT_SPAN * torch.sigmoid(self.alpha)
        return torch.full((self.steps,), self.dt)

    def _dt(self, t: int) -> Tensor | float:
        if self.alpha is not None:
            return DT_MIN + DT_SPAN * torch.sigmoid(self.alpha[t])
        return self.dt

    def forward(self, h: Tensor, ctx=None) -> Tensor:
        """Run all K layers / steps on state ``h`` and return the final state."""
        if self.mode == "score":
            return self._score(h, ctx)
        for t, block in enumerate(self.blocks):
            y = block(h, ctx)
            if self.mode == "base":
                h = self.act(y)
            elif self.mode == "classic":
                h = self.act(self.norms[t](h + y))
            else:  # skip: h + dt * (act(y) - h), as one lerp (one pass over h instead of three)
                h = torch.lerp(h, self.act(y), self._dt(t))
            if self.step_norm:
                h = self.norms[t](h)
        return h

    def _score(self, h: Tensor, ctx) -> Tensor:
        block = self.blocks[0]

        def v(state: Tensor) -> Tensor:
            return self.act(block(state, ctx)) - state

        for t in range(self.steps):
            dt = self._dt(t)
            if self.integrator == "euler":  # h + dt * (F(h) - h), as one lerp
                h = torch.lerp(h, self.act(block(h, ctx)), dt)
            elif self.integrator == "heun":
                k1 = v(h)
                k2 = v(h + dt * k1)
                h = h + dt / 2 * (k1 + k2)
            elif self.integrator == "midpoint":
                k1 = v(h)
                h = h + dt * v(h + dt / 2 * k1)
            else:  # rk4
                k1 = v(h)
                k2 = v(h + dt / 2 * k1)
                k3 = v(h + dt / 2 * k2)
                k4 = v(h + dt * k3)
                h = h + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            if self.step_norm:
                h = self.norms[0](h)
        return h

    def extra_repr(self) -> str:
        parts = [f"mode={self.mode}", f"steps={self.steps}"]
        if self.mode in ("skip", "score"):
            parts.append(f"dt={self.dt}" + (" (learnable)" if self.learnable_dt else ""))
        if self.mode == "score":
            parts.append(f"integrator={self.integrator}")
        if self.step_norm:
            parts.append("step_norm=True")
        return ", ".join(parts)
