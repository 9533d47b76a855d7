import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(9)


def randn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


CASES = [
    ((2, 3, 7), dict(size=12, mode="nearest")),
    ((2, 3, 7), dict(scale_factor=1.7, mode="nearest")),
    ((2, 3, 7), dict(size=4, mode="nearest-exact")),
    ((2, 3, 7), dict(size=12, mode="linear")),
    ((2, 3, 7), dict(size=5, mode="linear", align_corners=True)),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bilinear")),
    ((2, 3, 5, 6), dict(scale_factor=(2.5, 0.5), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)),
    ((2, 3, 5, 6), dict(size=(9, 11), mode="bicubic")),
    ((2, 3, 5, 6), dict(size=(3, 4), mode="bicubic", align_corners=True)),
    ((2, 3, 16, 13), dict(size=(5, 4), mode="bilinear", antialias=True)),
    ((2, 3, 16, 13), dict(size=(5, 7), mode="bicubic", antialias=True)),
    ((2, 3, 16, 13), dict(scale_factor=0.3, mode="bilinear", antialias=True, align_corners=True)),
    ((1, 2, 3, 4, 5), dict(size=(5, 3, 7), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 9, 8), dict(size=(4, 3), mode="area")),
    ((1, 2, 5, 6, 7), dict(size=(2, 3, 4), mode="area")),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kwargs", CASES)
def test_interpolate_matches_torch(F, torch_ref, dtype, shape, kwargs):
    x = randn(*shape, dtype=dtype)
    tx = tc.tensor(x).requires_grad_(True)
    rx = torch_ref.tensor(x, requires_grad=True)
    y = F.interpolate(tx, **kwargs)
    ry = torch_ref.nn.functional.interpolate(rx, **kwargs)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert tuple(y.shape) == tuple(ry.shape)
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=tol, atol=tol)
    g = randn(*y.shape, dtype=dtype)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=tol, atol=tol)


def test_bilinear_matches_naive_numpy(F):
    x = randn(1, 1, 4, 4)
    y = F.interpolate(tc.tensor(x), size=(7, 7), mode="bilinear", align_corners=True).numpy()
    pos = np.linspace(0, 3, 7)
    ref = np.zeros((7, 7))
    for i, r in enumerate(pos):
        for j, c in enumerate(pos):
            r0, c0 = min(int(r), 2), min(int(c), 2)
            fr, fc = r - r0, c - c0
            p = x[0, 0]
            ref[i, j] = (
                p[r0, c0] * (1 - fr) * (1 - fc)
                + p[r0 + 1, c0] * fr * (1 - fc)
                + p[r0, c0 + 1] * (1 - fr) * fc
                + p[r0 + 1, c0 + 1] * fr * fc
            )
    np.testing.assert_allclose(y[0, 0], ref, rtol=1e-12)


def test_interpolate_gradcheck(F):
    x = tc.tensor(randn(1, 2, 4, 5)).requires_grad_(True)
    for kw in [
        dict(size=(6, 3), mode="bilinear"),
        dict(size=(7, 6), mode="bicubic", align_corners=True),
        dict(size=(2, 2), mode="bicubic", antialias=True),
    ]:
        fn = lambda x: F.interpolate(x, **kw)
        assert tc.autograd.gradcheck(fn, (x,))
        assert tc.autograd.gradgradcheck(fn, (x,))


def test_interpolate_errors(F):
    x = tc.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=2, scale_factor=2)
    with pytest.raises(
        ValueError,
        match="interpolate: mode 'linear' expects a 3-d input, got shape \\[1, 1, 4, 4\\]",
    ):
        F.interpolate(x, size=2, mode="linear")
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, size=2, align_corners=True)
    with pytest.raises(ValueError, match="unsupported mode 'cubic'"):
        F.interpolate(x, size=2, mode="cubic")
    with pytest.raises(ValueError, match="size must have 2 entries"):
        F.interpolate(x, size=(2, 2, 2))
