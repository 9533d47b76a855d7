import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(33)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(F, torch_ref, dtype, mode, padding_mode, align_corners):
    x = RNG.standard_normal((2, 3, 5, 6)).astype(dtype)
    grid = (RNG.uniform(-1.4, 1.4, size=(2, 4, 7, 2))).astype(dtype)
    tx, tg = tc.tensor(x).requires_grad_(True), tc.tensor(grid).requires_grad_(True)
    rx, rg = torch_ref.tensor(x, requires_grad=True), torch_ref.tensor(grid, requires_grad=True)
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    y = F.grid_sample(tx, tg, **kw)
    ry = torch_ref.nn.functional.grid_sample(rx, rg, **kw)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=tol, atol=tol)
    g = RNG.standard_normal(tuple(y.shape)).astype(dtype)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(tg.grad.numpy(), rg.grad.numpy(), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 2, 4, 5)])
def test_affine_grid_matches_torch(F, torch_ref, align_corners, size):
    sd = len(size) - 2
    theta = RNG.standard_normal((2, sd, sd + 1))
    tt = tc.tensor(theta).requires_grad_(True)
    rt = torch_ref.tensor(theta, requires_grad=True)
    y = F.affine_grid(tt, size, align_corners=align_corners)
    ry = torch_ref.nn.functional.affine_grid(rt, size, align_corners=align_corners)
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-12, atol=1e-12)
    y.sum().backward()
    ry.sum().backward()
    np.testing.assert_allclose(tt.grad.numpy(), rt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_identity_grid_reproduces_input(F):
    x = tc.tensor(RNG.standard_normal((1, 2, 4, 5)))
    theta = tc.tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    grid = F.affine_grid(theta, (1, 2, 4, 5), align_corners=False)
    np.testing.assert_allclose(
        F.grid_sample(x, grid, align_corners=False).numpy(), x.numpy(), atol=1e-12
    )


def test_grid_sample_gradcheck(F):
    x = tc.tensor(RNG.standard_normal((1, 2, 3, 4))).requires_grad_(True)
    grid = tc.tensor(RNG.uniform(-0.9, 0.9, size=(1, 2, 3, 2))).requires_grad_(True)
    assert tc.autograd.gradcheck(
        lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=True), (x, grid)
    )


def test_grid_sample_errors(F):
    with pytest.raises(
        ValueError,
        match=r"grid_sample: expected grid of shape \[1, H_out, W_out, 2\], got \[1, 3, 3\]",
    ):
        F.grid_sample(tc.zeros(1, 1, 3, 3), tc.zeros(1, 3, 3))
    with pytest.raises(ValueError, match="padding_mode must be"):
        F.grid_sample(tc.zeros(1, 1, 3, 3), tc.zeros(1, 3, 3, 2), padding_mode="wrap")
    with pytest.raises(ValueError, match=r"affine_grid: expected theta of shape \[2, 2, 3\]"):
        F.affine_grid(tc.zeros(2, 3, 3), (2, 1, 4, 4))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_5d_matches_torch(F, torch_ref, mode, padding_mode, align_corners):
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    grid = RNG.uniform(-1.3, 1.3, size=(2, 3, 2, 4, 3))
    tx, tg = tc.tensor(x).requires_grad_(True), tc.tensor(grid).requires_grad_(True)
    rx, rg = torch_ref.tensor(x, requires_grad=True), torch_ref.tensor(grid, requires_grad=True)
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    y = F.grid_sample(tx, tg, **kw)
    ry = torch_ref.nn.functional.grid_sample(rx, rg, **kw)
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(tuple(y.shape))
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(tg.grad.numpy(), rg.grad.numpy(), rtol=1e-10, atol=1e-10)
