"""Fractional max pooling and the pooling forms with indices, against torch 1.13 with the same
random samples (so the same windows), plus gradients and bad arguments."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, kernel, kwargs",
    [
        ((2, 3, 17, 13), 3, dict(output_size=(6, 5))),
        ((2, 3, 16, 16), (2, 3), dict(output_ratio=0.5)),
        ((3, 9, 10), 2, dict(output_size=4)),  # unbatched
        ((2, 3, 8, 8), 2, dict(output_size=7)),  # output + kernel - 1 == input
        ((1, 2, 5, 6), 5, dict(output_size=(1, 2))),
    ],
)
def test_fractional_max_pool2d_matches_torch(dtype, shape, kernel, kwargs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    n, c = (shape[0], shape[1]) if len(shape) == 4 else (1, shape[0])
    samples = rng.uniform(0, 1, (n, c, 2)).astype(dtype)
    mine_in = tc.tensor(x, requires_grad=True)
    ref_in = torch.tensor(x, requires_grad=True)
    out, idx = F.fractional_max_pool2d(
        mine_in, kernel, return_indices=True, _random_samples=tc.tensor(samples), **kwargs
    )
    ref, ridx = TF.fractional_max_pool2d(
        ref_in, kernel, return_indices=True, _random_samples=torch.tensor(samples), **kwargs
    )
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    w = rng.standard_normal(tuple(ref.shape)).astype(dtype)
    (out * tc.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(mine_in.grad.numpy(), ref_in.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_fractional_max_pool3d_matches_torch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 9, 11, 10))
    samples = rng.uniform(0, 1, (2, 2, 3))
    out, idx = F.fractional_max_pool3d_with_indices(
        tc.tensor(x), (2, 3, 2), output_size=(4, 5, 6), _random_samples=tc.tensor(samples)
    )
    ref, ridx = TF.fractional_max_pool3d(
        torch.tensor(x),
        (2, 3, 2),
        output_size=(4, 5, 6),
        return_indices=True,
        _random_samples=torch.tensor(samples),
    )
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    assert tuple(F.fractional_max_pool3d(tc.tensor(x), 2, output_ratio=0.5).shape) == (
        2,
        2,
        4,
        5,
        5,
    )


def test_fractional_pool_random_windows_and_errors():
    x = tc.randn(2, 3, 20, 20)
    tc.manual_seed(0)
    a = F.fractional_max_pool2d(x, 2, output_size=10)
    tc.manual_seed(0)
    b = F.fractional_max_pool2d(x, 2, output_size=10)
    assert a.equal(b)  # drawn from tensorcore's stream
    # Every output is one of the input values of its plane, and the maxima are at least the
    # plane's values at the returned indices.
    out, idx = F.fractional_max_pool2d(x, 2, output_size=10, return_indices=True)
    flat = x.reshape(2, 3, -1)
    assert flat.gather(2, idx.reshape(2, 3, -1)).equal(out.reshape(2, 3, -1))
    with pytest.raises(ValueError, match="exactly one of output_size and output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(ValueError, match="too large"):
        F.fractional_max_pool2d(x, 3, output_size=19)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.fractional_max_pool2d(x, 2, output_ratio=1.5)
    with pytest.raises(ValueError, match="_random_samples must have shape"):
        F.fractional_max_pool2d(x, 2, output_size=5, _random_samples=tc.rand(2, 3, 3))
    with pytest.raises(ValueError, match="3-D or 4-D"):
        F.fractional_max_pool2d(tc.zeros(4, 4), 2, output_size=2)


def test_adaptive_max_pool_with_indices_forms():
    rng = np.random.default_rng(2)
    for n, fn in (
        (1, "adaptive_max_pool1d"),
        (2, "adaptive_max_pool2d"),
        (3, "adaptive_max_pool3d"),
    ):
        x = rng.standard_normal((2, 3) + (7,) * n)
        out, idx = getattr(F, fn + "_with_indices")(tc.tensor(x), 3)
        ref, ridx = getattr(TF, fn + "_with_indices")(torch.tensor(x), 3)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
        np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
