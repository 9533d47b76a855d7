"""torch 1.13's top-level aliases (in-place methods, nn.functional forms) and the matrix-product
in-place methods added with issue 22, against torch."""

import numpy as np
import pytest

import tensorcore as tc


def _pair(torch, shape, seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        a = np.abs(a) * 0.8 + 0.1
    return tc.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize(
    "name",
    [
        "abs_",
        "exp_",
        "sqrt_",
        "tanh_",
        "zero_",
        "clamp_",
        "neg_",
        "sigmoid_",
        "trunc_",
        "relu_",
        "square_",
        "log1p_",
    ],
)
def test_inplace_aliases(torch_ref, name):
    x, tx = _pair(torch_ref, (3, 4), positive=name in ("sqrt_", "log1p_"))
    args = (-0.5, 0.5) if name == "clamp_" else ()
    r = getattr(tc, name)(x, *args)
    getattr(torch_ref, name)(tx, *args)
    assert r is x
    np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=1e-12)


def test_functional_aliases(torch_ref):
    torch = torch_ref
    x, tx = _pair(torch, (2, 3, 8, 8))
    w, tw = _pair(torch, (4, 3, 3, 3), 1)
    np.testing.assert_allclose(
        tc.conv2d(x, w, None, 1, 1).numpy(),
        torch.conv2d(tx, tw, None, 1, 1).numpy(),
        rtol=1e-10,
        atol=1e-12,
    )
    np.testing.assert_allclose(tc.max_pool2d(x, 2).numpy(), torch.max_pool2d(tx, 2).numpy())
    np.testing.assert_allclose(tc.softmax(x, 1).numpy(), torch.softmax(tx, 1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        tc.log_softmax(x, -1).numpy(), torch.log_softmax(tx, -1).numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(
        tc.layer_norm(x, [8]).numpy(), torch.layer_norm(tx, [8]).numpy(), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        tc.pixel_shuffle(x[:, :, :4, :4].repeat(1, 4, 1, 1), 2).numpy(),
        torch.pixel_shuffle(tx[:, :, :4, :4].repeat(1, 4, 1, 1), 2).numpy(),
    )
    y, ty = _pair(torch, (2, 3, 10))
    out, idx = tc.adaptive_max_pool1d(y, 4)
    tout, tidx = torch.adaptive_max_pool1d(ty, 4)
    np.testing.assert_allclose(out.numpy(), tout.numpy())
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    np.testing.assert_allclose(tc.selu(y).numpy(), torch.selu(ty).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tc.hardshrink(y, 0.3).numpy(), torch.hardshrink(ty, 0.3).numpy())
    np.testing.assert_allclose(
        tc.cosine_similarity(y, y * 2 + 1).numpy(),
        torch.cosine_similarity(ty, ty * 2 + 1).numpy(),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        tc.dropout(y, 0.5, False).numpy(), torch.dropout(ty, 0.5, False).numpy()
    )


def test_matrix_product_inplace_methods(torch_ref):
    torch = torch_ref
    c, tc_ = _pair(torch, (3, 4))
    b1, tb1 = _pair(torch, (5, 3, 2), 1)
    b2, tb2 = _pair(torch, (5, 2, 4), 2)
    np.testing.assert_allclose(
        tc.addbmm(c, b1, b2, beta=0.5, alpha=2).numpy(),
        torch.addbmm(tc_, tb1, tb2, beta=0.5, alpha=2).numpy(),
        rtol=1e-12,
    )
    np.testing.assert_allclose(c.addbmm(b1, b2).numpy(), tc_.addbmm(tb1, tb2).numpy(), rtol=1e-12)
    nan = c.clone().fill_(float("nan"))
    assert tc.isfinite(tc.addbmm(nan, b1, b2, beta=0)).all().item()
    m1, tm1 = _pair(torch, (3, 2), 3)
    m2, tm2 = _pair(torch, (2, 4), 4)
    r = c.clone().addmm_(m1, m2, beta=2, alpha=3)
    np.testing.assert_allclose(
        r.numpy(), tc_.clone().addmm_(tm1, tm2, beta=2, alpha=3).numpy(), rtol=1e-12
    )
    v, tv = _pair(torch, (2,), 5)
    y, ty = _pair(torch, (3,), 6)
    np.testing.assert_allclose(
        y.clone().addmv_(m1, v).numpy(), ty.clone().addmv_(tm1, tv).numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(
        c.clone().addr_(y, c[0]).numpy(), tc_.clone().addr_(ty, tc_[0]).numpy(), rtol=1e-12
    )
    cb, tcb = _pair(torch, (5, 3, 4), 7)
    np.testing.assert_allclose(
        cb.clone().baddbmm_(b1, b2).numpy(), tcb.clone().baddbmm_(tb1, tb2).numpy(), rtol=1e-12
    )
    # in-place on a leaf that requires grad is refused; on a non-leaf the gradient flows
    leaf = c.clone().requires_grad_(True)
    z = leaf * 1.0
    z.addmm_(m1, m2)
    z.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.ones((3, 4)))
    with pytest.raises(RuntimeError, match="deprecated since version 1.9"):
        tc.solve(c, c)
