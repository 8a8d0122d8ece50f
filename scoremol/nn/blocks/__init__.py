"""Blocks: the state-to-state maps ``block(h, ctx) -> y`` that :class:`~scoremol.nn.depth.Depth`
repeats, one file per graph architecture.

The block contract
==================

**Constructor** ``Block(hidden, edge_dim, heads, dropout)``, positional, in this order, for
every block. ``edge_dim`` is the raw bond-feature width (blocks embed bond features
themselves); ``heads`` is the attention head count. A block accepts and ignores the
arguments it does not use, so one call builds any of them. Further parameters must have
defaults (encoders pass only the four). :func:`register_block` checks this signature.

**Forward** ``forward(h, ctx) -> y`` with

- ``h``: ``[N, hidden]``, the current state: one row per atom, except ``dmpnn``, whose rows
  are directed bonds (``N = E``);
- ``ctx``: :class:`~scoremol.nn.context.GraphContext`, read-only, the same object at every
  step (``ctx.edge_index`` ``[2, E]``, ``ctx.edge_attr`` ``[E, edge_dim]``, ``ctx.batch``
  ``[N]``);
- ``y``: ``[N, hidden]``, same dtype and device as ``h``.

Molecules are processed independently (no batch norm, no graph-wise norm), so a
molecule's ``y`` does not depend on what else is in the batch.

**Pre-activation output.** ``y`` is the value the architecture applies its nonlinearity
to. A block applies no output activation, no residual connection around itself, no norm
on its output and no step size: :class:`~scoremol.nn.depth.Depth` alone does, by mode
(``base``: ``h = act(y)``; ``classic``: ``act(LN(h + y))``; ``skip``/``score``:
``h + dt * (act(y) - h)``). Nonlinearities inside a block (GINE's MLP, attention
softmaxes, the transformer's feed-forward) belong to the block. For this reason the
transformer block is only the content of a transformer layer, ``FFN(LN(Attn(h)))``: the
residual connections and norms of a post-norm transformer layer are what Depth's modes
add (``classic`` is ``act(LN(h + y))``).

*One documented exception: attentivefp.* Its ``y = GRUCell(c, h)`` is a gated state, not a
fresh pre-activation: the GRU already blends ``h`` with a ``tanh`` candidate through a
learned gate ``z``, so in ``skip``/``score`` that gate and Depth's ``dt`` both act (the
state moves by about ``dt * (1 - z)`` of the way toward the candidate per step). It is
kept because PyTorch Geometric's ``AttentiveFP`` applies ReLU to exactly this GRU output
(``x = gru(c, x).relu()``): ``act(y)`` in mode ``base`` (with ``activation="relu"``) is
AttentiveFP's atom layer, and a block without the GRU would no longer be AttentiveFP.

**Dropout: once, on the block's input.** The first line of ``forward`` is
``x = dropout(h, self.dropout, self.training)`` (:func:`scoremol.nn.dropout.dropout`) and
everything after reads ``x`` and is
deterministic: no attention-coefficient dropout (PyG convs are built with
``dropout=0``), no dropout on hidden layers, residual branches or the output. So in
training mode a block computes its eval-mode function of ``dropout(h)``; the tests check
this for every block. *One documented exception: dmpnn* drops its message ``m(h)`` (the
sum of incoming edge states minus the reverse edge; weight-free and linear in ``h``), the
input of its only weight ``W_h``, instead of ``h``: the bundled DMPNN models were trained
with the dropout there, and moving it would make the default configuration train into a
different model. Outside the blocks dropout belongs to the model, not the depth: on the
D-MPNN atom states, on the atom states the MolAttFP readout attends over, before the head
and after each hidden layer of the head.

**Registration: one file.** A new architecture ``foo`` is the file ``blocks/foo.py``
defining one class decorated with ``@register_block("foo")`` (the name must equal the
module name), plus the name ``"foo"`` in :data:`scoremol.spec.GRAPH_ARCHITECTURES`, the
torch-free list the command line prints (a test fails when the block files and that list
disagree). :class:`~scoremol.nn.encoder.AtomEncoder` builds any atom-state block, so
nothing else changes; ``dmpnn``, the one edge-state block, has its own encoder.
Modules whose names start with ``_`` are not blocks.

Blocks are imported only when asked for (``BLOCKS["gat"]`` imports ``blocks/gat.py`` and
nothing else): the PyTorch Geometric ones import PyG, which costs seconds, and a DMPNN
model (pure torch) must not pay for it at prediction time.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

from torch import nn

#: The constructor every block shares, in order (see the contract above).
BLOCK_ARGS: tuple[str, ...] = ("hidden", "edge_dim", "heads", "dropout")

_REGISTRY: dict[str, type[nn.Module]] = {}

B = TypeVar("B", bound=type[nn.Module])


def _check_signature(cls: type[nn.Module]) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # drop self
    names = tuple(p.name for p in params[: len(BLOCK_ARGS)])
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if names != BLOCK_ARGS or any(p.kind not in positional for p in params[: len(BLOCK_ARGS)]):
        raise TypeError(f"{cls.__name__}.__init__ must start with the positional arguments {BLOCK_ARGS}, got {names}")
    required = [
        p.name
        for p in params[len(BLOCK_ARGS) :]
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]
    if required:
        raise TypeError(
            f"{cls.__name__}.__init__: arguments after {BLOCK_ARGS} need defaults "
            f"(encoders pass only those four), got required {required}"
        )


def register_block(name: str) -> Callable[[B], B]:
    """Class decorator: register a block as architecture ``name``.

    Must be used in ``scoremol/nn/blocks/<name>.py`` (the registry finds a block by its
    file name, without importing the others). Checks the constructor signature and sets
    ``cls.arch = name``.

    Args:
        name: the architecture name, equal to the defining module's name.
    """

    def decorate(cls: B) -> B:
        module = cls.__module__
        if module != f"{__name__}.{name}":
            raise ValueError(
                f"block {cls.__name__!r} registers as {name!r} but is defined in "
                f"{module!r}; a block must live in {__name__}.{name}"
            )
        if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
            raise TypeError(f"register_block({name!r}) needs an nn.Module subclass, got {cls!r}")
        other = _REGISTRY.get(name)
        if other is not None and other.__qualname__ != cls.__qualname__:
            raise ValueError(f"architecture {name!r} is registered twice: {other.__qualname__} and {cls.__qualname__}")
        _check_signature(cls)
        cls.arch = name
        _REGISTRY[name] = cls
        return cls

    return decorate


def block_names() -> tuple[str, ...]:
    """Architecture names of the block files in this package (sorted), without importing
    any of them."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and not m.ispkg))


def get_block(arch: str) -> type[nn.Module]:
    """The block class of ``arch``, importing ``blocks/<arch>.py`` (only) on first use.

    Raises ``KeyError`` for a name without a block file and ``LookupError`` (a bug in the
    block file) when the file does not register a block under its own name.
    """
    if arch not in _REGISTRY:
        if not isinstance(arch, str) or arch not in block_names():
            raise KeyError(f"no block for architecture {arch!r}; block files: {list(block_names())}")
        importlib.import_module(f"{__name__}.{arch}")
        if arch not in _REGISTRY:
            raise LookupError(
                f"{__name__}.{arch} defines no block registered as {arch!r} "
                f"(decorate its class with @register_block({arch!r}))"
            )
    return _REGISTRY[arch]


class _Blocks(Mapping):
    """Read-only ``arch -> block class`` mapping over the block files; importing a block
    happens on item access only (iteration, ``len`` and ``in`` import nothing)."""

    def __getitem__(self, arch: str) -> type[nn.Module]:
        return get_block(arch)

    def __contains__(self, arch: object) -> bool:
        return isinstance(arch, str) and arch in block_names()

    def __iter__(self) -> Iterator[str]:
        return iter(block_names())

    def __len__(self) -> int:
        return len(block_names())

    def __repr__(self) -> str:
        return f"BLOCKS({', '.join(block_names())})"


#: graph architecture name -> block class, imported lazily (see :func:`get_block`).
BLOCKS: Mapping[str, type[nn.Module]] = _Blocks()

__all__ = ["BLOCKS", "BLOCK_ARGS", "block_names", "get_block", "register_block"]
