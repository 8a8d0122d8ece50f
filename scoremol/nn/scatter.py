"""Segment reductions over molecules/atoms in plain torch.

These are the few PyTorch Geometric utilities the DMPNN, its encoder, the readouts and the
head use, written with the same torch calls PyG makes on CPU (so results are bit for bit
the same). Keeping them here means prediction with a DMPNN model never imports PyTorch
Geometric, whose import (it pulls in ``torch._dynamo``) costs seconds per command.
"""

from __future__ import annotations

from torch import Tensor


def _column(values: Tensor, like: Tensor) -> Tensor:
    """``values`` [N] viewed as ``[N, 1, ...]`` to broadcast against ``like`` along dim 0."""
    return values.view([-1] + [1] * (like.dim() - 1))


def _expand(index: Tensor, like: Tensor) -> Tensor:
    """``index`` [N] broadcast to ``like``'s shape along dim 0."""
    return _column(index, like).expand_as(like)


def scatter_sum(src: Tensor, index: Tensor, dim_size: int) -> Tensor:
    """``out[i] = sum of src[j] with index[j] == i`` along dim 0, ``dim_size`` rows."""
    return src.new_zeros((dim_size, *src.shape[1:])).scatter_add_(0, _expand(index, src), src)


def scatter_mean(src: Tensor, index: Tensor, dim_size: int) -> Tensor:
    """Mean per segment along dim 0 (empty segments give zeros)."""
    count = src.new_zeros(dim_size).scatter_add_(0, index, src.new_ones(src.size(0))).clamp(min=1)
    return scatter_sum(src, index, dim_size) / _column(count, src)


def scatter_max(src: Tensor, index: Tensor, dim_size: int) -> Tensor:
    """Maximum per segment along dim 0 (empty segments give zeros)."""
    return src.new_zeros((dim_size, *src.shape[1:])).scatter_reduce_(
        0, _expand(index, src), src, reduce="amax", include_self=False
    )


def segment_softmax(src: Tensor, index: Tensor, num_segments: int) -> Tensor:
    """Softmax of ``src`` within each segment of ``index`` (numerically stabilized)."""
    shifted = src - scatter_max(src.detach(), index, num_segments).index_select(0, index)
    out = shifted.exp()
    total = scatter_sum(out, index, num_segments) + 1e-16
    return out / total.index_select(0, index)
