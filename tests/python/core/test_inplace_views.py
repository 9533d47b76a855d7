"""Autograd through in-place ops on views (torch's CopySlices), compared with torch."""

import numpy as np
import pytest

import tensorcore as tc


def _run(lib, fn, w0, extra0):
    w = lib.tensor(w0, dtype=lib.float64, requires_grad=True)
    e = lib.tensor(extra0, dtype=lib.float64, requires_grad=True)
    out = fn(lib, w, e)
    weights = lib.tensor(
        np.linspace(0.5, 2.0, int(np.prod(out.shape))).reshape(tuple(out.shape)), dtype=lib.float64
    )
    (out * weights).sum().backward()
    return out.detach().numpy(), w.grad.numpy(), e.grad.numpy() if e.grad is not None else None


def mul_slice(lib, w, e):
    x = w * 1
    x[1:].mul_(3)
    return x


def add_tensor_into_row(lib, w, e):
    x = w.reshape(2, 3) * 2
    x[0].add_(e)
    return x


def copy_into_zeros(lib, w, e):
    base = lib.zeros(2, 3, dtype=lib.float64)
    base[1].copy_(e)
    return base * w.reshape(2, 3)


def exp_of_transposed_column(lib, w, e):
    x = w.reshape(2, 3).t() + 0
    x[:, 1].exp_()
    return x


def chained_views(lib, w, e):
    x = w.reshape(2, 3) + 0
    v = x[:, 1:]
    v[0].mul_(e[:2])
    v[1, 0].fill_(7.0)
    return x


def sibling_view_sees_update(lib, w, e):
    x = w.reshape(2, 3) + 0
    a = x[0]
    x[1].mul_(e)
    x[0].mul_(2)  # a now shows the doubled row; its gradient must follow
    return a * a + x.sum()


def self_referential(lib, w, e):
    x = w * 1
    v = x[:3]
    v.mul_(v)  # self appears twice among the op's inputs
    return x


def self_referential_reference(lib, w, e):
    x = w * 1
    return lib.cat([x[:3] * x[:3], x[3:]])


def masked_and_clamp(lib, w, e):
    x = w.reshape(2, 3) * 1
    x[0].clamp_(min=2.5)
    x[1].masked_fill_(x[1] > 5, 0.0)
    return x


CASES = [
    mul_slice,
    add_tensor_into_row,
    copy_into_zeros,
    exp_of_transposed_column,
    chained_views,
    sibling_view_sees_update,
    masked_and_clamp,
]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_matches_torch(case, torch_ref):
    w0 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    e0 = [0.5, -1.5, 2.0]
    got = _run(tc, case, w0, e0)
    ref = _run(torch_ref, case, w0, e0)
    for g, r in zip(got, ref):
        if r is None:
            assert g is None or np.all(g == 0)
        else:
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)


def test_aliased_operand_uses_the_old_value():
    # torch refuses x.mul_(x) on a view at backward time; we compute it as x_old * x_old.
    w0, e0 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, -1.5, 2.0]
    got = _run(tc, self_referential, w0, e0)
    ref = _run(tc, self_referential_reference, w0, e0)
    for g, r in zip(got[:2], ref[:2]):
        np.testing.assert_allclose(g, r, rtol=1e-12)
    w = tc.tensor([1.0, 2.0], dtype=tc.float64, requires_grad=True)
    x = w * 1
    x.mul_(x)
    x.div_(x[0])  # operand aliases self through a view
    x.sum().backward()
    wn = np.array([1.0, 2.0])
    # f = [1, (w1/w0)^2]  ->  df/dw0 = -2 w1^2 / w0^3, df/dw1 = 2 w1 / w0^2
    np.testing.assert_allclose(
        w.grad.numpy(), [-2 * wn[1] ** 2 / wn[0] ** 3, 2 * wn[1] / wn[0] ** 2]
    )


def test_gradcheck_through_view_inplace():
    def f(w, e):
        x = w * 1
        x[1:3].mul_(e)
        x[0].exp_()
        return x

    w = tc.tensor([0.1, 0.2, 0.3, 0.4], dtype=tc.float64, requires_grad=True)
    e = tc.tensor([1.5, -0.5], dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(f, (w, e))
    assert tc.autograd.gradgradcheck(f, (w, e))


def test_base_gains_requires_grad_and_grad_fn():
    w = tc.ones(3, requires_grad=True)
    base = tc.zeros(2, 3)
    view = base[1]
    view.copy_(w)
    assert base.requires_grad and base.grad_fn.name() == "CopySlices"
    assert view.requires_grad
    base.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 1.0]


def test_view_of_leaf_in_place_is_an_error():
    w = tc.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        w[0:2].mul_(2)
    with tc.no_grad():
        w[0:2].mul_(2)  # allowed without grad, as in torch
    assert w.tolist() == [2.0, 2.0, 1.0]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_non_finite_incoming_gradient_stays_what_the_op_gives(dtype, torch_ref):
    # The view's region of the base gradient is overwritten by the op's gradient, so an inf
    # arriving there gives the op's result (inf * 3 = inf), not inf - inf = nan.
    def run(lib):
        w = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=getattr(lib, dtype), requires_grad=True)
        x = w * 1
        x[1:3].mul_(3)
        g = lib.tensor([1.0, float("inf"), float("nan"), -float("inf")], dtype=getattr(lib, dtype))
        x.backward(g)
        return w.grad.numpy()

    got, ref = run(tc), run(torch_ref)
    np.testing.assert_array_equal(got, ref)
    assert np.isinf(got[1]) and np.isnan(got[2]) and np.isinf(got[3])
