"""The one check that a training set has enough labelled molecules (train, cv and the tree)."""

from __future__ import annotations

from scoremol.errors import ScoremolError

#: Fewer labelled molecules than this cannot be scaled, split or fitted.
MIN_LABELLED = 2


def require_labelled(count: int) -> None:
    """A one-line error when a training set has too few molecules with a target."""
    if count < MIN_LABELLED:
        raise ScoremolError(f"need at least {MIN_LABELLED} molecules with a numeric target, found {count}")
