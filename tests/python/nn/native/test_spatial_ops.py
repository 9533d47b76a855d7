import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(21)


def randn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def run_both(F, torch_ref, name, x, args, kwargs, tol=1e-12):
    tx = tc.tensor(x).requires_grad_(True)
    rx = torch_ref.tensor(x, requires_grad=True)
    y = getattr(F, name)(tx, *args, **kwargs)
    ry = getattr(torch_ref.nn.functional, name)(rx, *args, **kwargs)
    assert tuple(y.shape) == tuple(ry.shape)
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=tol, atol=tol)
    g = randn(*y.shape, dtype=x.dtype)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=tol, atol=tol)


PAD_CASES = [
    ((2, 3, 5), (2, 1), dict(mode="constant", value=1.5)),
    ((2, 3, 5, 4), (1, -1, 2, 0), dict()),
    ((2, 3, 5), (3, 4), dict(mode="reflect")),
    ((2, 3, 5, 4), (1, 2, 3, 1), dict(mode="reflect")),
    ((2, 3, 5, 4), (2, 3, 1, 6), dict(mode="replicate")),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2), dict(mode="replicate")),
    ((2, 3, 5, 4), (2, 3, 4, 1), dict(mode="circular")),
    ((3, 5, 4), (1, 2, 3, 1), dict(mode="reflect")),
]


@pytest.mark.parametrize("shape,padding,kwargs", PAD_CASES)
def test_pad_matches_torch(F, torch_ref, shape, padding, kwargs):
    run_both(F, torch_ref, "pad", randn(*shape), (padding,), kwargs)


def test_pad_matches_numpy(F):
    x = randn(2, 3, 4)
    for mode, np_mode in [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]:
        y = F.pad(tc.tensor(x), (2, 3), mode=mode).numpy()
        np.testing.assert_array_equal(y, np.pad(x, ((0, 0), (0, 0), (2, 3)), mode=np_mode))


@pytest.mark.parametrize("r", [2, 3])
def test_pixel_shuffle_roundtrip_matches_torch(F, torch_ref, r):
    run_both(F, torch_ref, "pixel_shuffle", randn(2, 2 * r * r, 3, 4), (r,), {})
    run_both(F, torch_ref, "pixel_unshuffle", randn(2, 3, 2 * r, 3 * r), (r,), {})
    x = tc.tensor(randn(1, 4 * r * r, 2, 3))
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, r), r).numpy(), x.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "kwargs",
    [dict(kernel_size=3), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2))],
)
def test_unfold_fold_match_torch(F, torch_ref, dtype, kwargs):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    run_both(F, torch_ref, "unfold", randn(2, 3, 7, 8, dtype=dtype), (), kwargs, tol)
    blocks = torch_ref.nn.functional.unfold(torch_ref.zeros(2, 3, 7, 8), **kwargs).shape
    run_both(F, torch_ref, "fold", randn(*blocks, dtype=dtype), ((7, 8),), kwargs, tol)


def test_unfold_fold_gradcheck(F):
    x = tc.tensor(randn(1, 2, 4, 5)).requires_grad_(True)
    assert tc.autograd.gradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2), (x,))
    assert tc.autograd.gradgradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2), (x,))
    assert tc.autograd.gradcheck(lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), (x,))


def test_spatial_errors(F):
    with pytest.raises(
        ValueError,
        match="pad: reflect padding \\(5, 0\\) must be non-negative and smaller than the input dim 2 of size 5",
    ):
        F.pad(tc.zeros(2, 3, 5), (5, 0), mode="reflect")
    with pytest.raises(ValueError, match="pad: padding length must be divisible by 2"):
        F.pad(tc.zeros(2, 3), (1,))
    with pytest.raises(
        ValueError,
        match=r"pixel_shuffle: channels \(6\) must be divisible by upscale_factor squared \(4\)",
    ):
        F.pixel_shuffle(tc.zeros(1, 6, 2, 2), 2)
    with pytest.raises(
        ValueError,
        match="fold: expected input's dimension 2 to match the calculated number of sliding blocks",
    ):
        F.fold(tc.zeros(1, 12, 5), (4, 4), 2)
