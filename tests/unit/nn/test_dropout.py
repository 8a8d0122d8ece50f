"""The byte-mask dropout: the same regularizer as ``F.dropout``, drawn more cheaply."""

import pytest
import torch

from scoremol.nn.dropout import dropout


def test_drops_the_requested_share_and_keeps_the_expectation() -> None:
    torch.manual_seed(0)
    x = torch.ones(400, 500)
    y = dropout(x, 0.2)
    dropped = (y == 0).float().mean().item()
    assert abs(dropped - 51 / 256) < 0.005  # p rounded to 1/256
    assert abs(y.mean().item() - 1.0) < 0.01  # kept values are scaled up
    assert torch.allclose(y[y != 0], torch.full_like(y[y != 0], 256 / 205))


def test_masks_are_independent_across_elements_and_bytes() -> None:
    torch.manual_seed(1)
    keep = (dropout(torch.ones(8, 100_000), 0.5) != 0).float()
    # each of the eight bytes of a draw decides one element: no byte may be biased
    per_byte = keep.view(-1, 8).mean(0)
    assert torch.all((per_byte - 0.5).abs() < 0.01), per_byte


def test_identity_out_of_training_and_at_zero() -> None:
    x = torch.randn(3, 4)
    assert dropout(x, 0.5, training=False) is x
    assert dropout(x, 0.0) is x
    assert torch.equal(dropout(x, 1.0), torch.zeros_like(x))


def test_same_seed_same_mask_and_gradient_through_kept_elements() -> None:
    x = torch.randn(7, 9, requires_grad=True)
    torch.manual_seed(5)
    a = dropout(x, 0.3)
    torch.manual_seed(5)
    b = dropout(x, 0.3)
    assert torch.equal(a, b)
    a.sum().backward()
    assert torch.equal(x.grad != 0, a != 0)


def test_bad_probability_is_refused() -> None:
    with pytest.raises(ValueError, match="dropout probability"):
        dropout(torch.ones(2), 1.5)
