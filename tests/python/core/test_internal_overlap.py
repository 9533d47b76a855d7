"""Writes into a tensor whose elements alias (expanded: stride 0 on a dim of size > 1) raise,
warn or proceed exactly as torch 1.13 does; ordinary views keep working."""

import warnings

import numpy as np
import pytest

import tensorcore as tc


def _expanded(lib):
    return lib.zeros(1, 3).expand(4, 3)


CASES = {
    "add_": lambda lib, x: x.add_(1),
    "mul_": lambda lib, x: x.mul_(2),
    "exp_": lambda lib, x: x.exp_(),
    "clamp_": lambda lib, x: x.clamp_(0, 1),
    "copy_": lambda lib, x: x.copy_(lib.ones(4, 3)),
    "iadd": lambda lib, x: x.__iadd__(1),
    "out=": lambda lib, x: lib.add(lib.ones(4, 3), 1, out=x),
    "setitem tensor": lambda lib, x: x.__setitem__(slice(None), lib.ones(4, 3)),
    "fill_": lambda lib, x: x.fill_(2),
    "zero_": lambda lib, x: x.zero_(),
    "setitem number": lambda lib, x: x.__setitem__(slice(None), 1.0),
    "masked_fill_": lambda lib, x: x.masked_fill_(lib.ones(4, 3, dtype=lib.bool), 1.0),
}


def _outcome(lib, fn):
    x = _expanded(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(lib, x)
        except RuntimeError as e:
            assert "more than one element of the written-to tensor" in str(e)
            return "raise"
    return (
        "warn"
        if any(
            "memory location" in str(w.message) or "deprecated" in str(w.message).lower()
            for w in caught
        )
        else "ok"
    )


@pytest.mark.parametrize("name", list(CASES))
def test_same_outcome_as_torch(torch_ref, name):
    assert _outcome(tc, CASES[name]) == _outcome(torch_ref, CASES[name])


@pytest.mark.parametrize("name", ["add_", "exp_", "copy_", "out=", "iadd"])
def test_raises_without_torch(name):
    assert _outcome(tc, CASES[name]) == "raise"


def test_non_overlapping_strided_targets_still_work():
    base = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    base.t().add_(1)
    base[:, ::2].mul_(2)
    expected = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    expected[:, ::2] *= 2
    assert np.array_equal(base.numpy(), expected)
    y = tc.zeros(4, 3)
    tc.add(tc.ones(4, 3), 1, out=y.t().t())
    assert float(y.sum()) == 24.0
    # A size-1 dim with stride 0 aliases nothing.
    z = tc.zeros(1, 3).expand(1, 3)
    z.add_(1)
    assert z.tolist() == [[1.0, 1.0, 1.0]]
