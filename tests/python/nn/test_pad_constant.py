"""Constant padding (one output, negative amounts crop) against torch and gradcheck."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

CASES = [[1, 2], [-1, 2], [2, -3, 1, 1], [0, 0], [-2, -2, 3, 0], [1, 1, 1, 1, 1, 1], [0, -5]]


@pytest.mark.parametrize("pad", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_matches_torch(torch_ref, pad, dtype):
    torch = torch_ref
    x = (tc.arange(2 * 3 * 5) % 7).reshape(2, 3, 5).to(getattr(tc, dtype))
    ours = F.pad(x, pad, value=3)
    ref = torch.nn.functional.pad(torch.from_numpy(x.numpy()), pad, value=3)
    assert ours.shape == tuple(ref.shape)
    assert np.array_equal(ours.numpy(), ref.numpy())


def test_result_is_a_new_tensor_and_strided_input_works():
    x = tc.randn(4, 6).t()
    y = F.pad(x, [0, 0])
    assert y.data_ptr() != x.data_ptr()
    assert np.array_equal(y.numpy(), x.numpy())
    z = F.pad(x, [1, 0, 0, 2], value=-1.0)
    expected = np.pad(x.numpy(), ((0, 2), (1, 0)), constant_values=-1.0)
    assert np.array_equal(z.numpy(), expected)


def test_gradients():
    x = tc.randn(2, 3, 4, dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(lambda v: F.pad(v, [1, -1, 2, 0], value=2.0), (x,))
    assert tc.autograd.gradgradcheck(lambda v: F.pad(v, [-1, 3]), (x,))


def test_errors_name_the_problem():
    x = tc.randn(2, 3)
    with pytest.raises(ValueError, match="divisible by 2"):
        F.pad(x, [1])
    with pytest.raises(ValueError, match="too large"):
        F.pad(x, [1, 1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="negative size"):
        F.pad(x, [-2, -2])
