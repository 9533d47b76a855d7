"""The torch functions composed in python/tensorcore/_extra_ops.py, against torch 1.13."""

import math

import numpy as np
import pytest

import tensorcore as tc


def both(torch, arr):
    return tc.from_numpy(np.array(arr)), torch.from_numpy(np.array(arr))


def same(ours, ref, exact=False):
    if isinstance(ref, (tuple, list)):
        assert len(ours) == len(ref)
        for a, b in zip(ours, ref):
            same(a, b, exact)
        return
    if not hasattr(ref, "numpy"):
        assert ours == ref
        return
    a, b = ours.numpy(), ref.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    if exact or a.dtype.kind in "biu":
        assert np.array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12, equal_nan=True)


SPECIAL = [-3.5, -1.0, -0.0, 0.0, 0.25, 1.0, 2.0, math.inf, -math.inf, math.nan, 1e-300, 700.0]


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "xlogy", "copysign"])
def test_binary_elementwise(torch_ref, name):
    a = np.array(SPECIAL)[:, None] * np.ones(len(SPECIAL))
    b = a.T.copy()
    same(
        getattr(tc, name)(tc.from_numpy(a), tc.from_numpy(b)),
        getattr(torch_ref, name)(torch_ref.from_numpy(a), torch_ref.from_numpy(b)),
    )


@pytest.mark.parametrize("name", ["sinc", "rad2deg", "deg2rad", "logit", "signbit"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_unary_elementwise(torch_ref, name, dtype):
    vals = SPECIAL if dtype != "int64" else [-3, 0, 1, 2, 7]
    if name == "logit":
        vals = [0.0, 0.25, 0.5, 1.0, 1.5, math.nan] if dtype != "int64" else [0, 1, 2]
    a = np.array(vals, dtype=dtype)
    same(getattr(tc, name)(tc.from_numpy(a)), getattr(torch_ref, name)(torch_ref.from_numpy(a)))


def test_logit_eps_heaviside_float_power(torch_ref):
    x, t = both(torch_ref, [0.0, 0.1, 0.5, 0.99, 1.0])
    same(tc.logit(x, eps=1e-3), torch_ref.logit(t, eps=1e-3))
    v, tv = both(torch_ref, [0.5])
    x, t = both(torch_ref, [-2.0, 0.0, 3.0])
    same(tc.heaviside(x, v), torch_ref.heaviside(t, tv))
    x, t = both(torch_ref, [1, 2, 3])
    same(tc.float_power(x, 2), torch_ref.float_power(t, 2))
    same(x.float_power(0.5), t.float_power(0.5))


def test_addcmul_addcdiv_and_inplace(torch_ref):
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((3, 4)) for _ in range(3))
    ta, tb, tcc = (torch_ref.from_numpy(v) for v in (a, b, c))
    xa, xb, xc = (tc.from_numpy(v.copy()) for v in (a, b, c))
    same(tc.addcmul(xa, xb, xc, value=0.5), torch_ref.addcmul(ta, tb, tcc, value=0.5))
    same(tc.addcdiv(xa, xb, xc, value=-2), torch_ref.addcdiv(ta, tb, tcc, value=-2))
    xa.addcmul_(xb, xc, value=3)
    same(xa, ta.clone().addcmul_(tb, tcc, value=3))
    with pytest.raises(RuntimeError, match="integer division"):
        tc.addcdiv(xa, tc.tensor([1, 2, 3, 4]), tc.tensor([1, 2, 3, 4]))


def test_trace_diff_repeat_interleave(torch_ref):
    rng = np.random.default_rng(1)
    m = rng.standard_normal((4, 6))
    same(tc.trace(tc.from_numpy(m)), torch_ref.trace(torch_ref.from_numpy(m)))
    x, t = both(torch_ref, [[1, 4, 9, 16], [2, 3, 5, 7]])
    for kw in ({}, {"n": 2}, {"dim": 0}, {"n": 3, "dim": 1}, {"n": 5}):
        same(tc.diff(x, **kw), torch_ref.diff(t, **kw))
    p, tp = both(torch_ref, [[0], [1]])
    same(tc.diff(x, prepend=p, append=p), torch_ref.diff(t, prepend=tp, append=tp))
    b, tb = both(torch_ref, [True, False, False, True])
    same(tc.diff(b), torch_ref.diff(tb))
    same(x.repeat_interleave(2), t.repeat_interleave(2))
    r, tr = both(torch_ref, [1, 0])
    same(tc.repeat_interleave(x, r, dim=0), torch_ref.repeat_interleave(t, tr, dim=0))
    r, tr = both(torch_ref, [0, 2, 1, 3])
    same(tc.repeat_interleave(x, r, dim=1), torch_ref.repeat_interleave(t, tr, dim=1))
    same(tc.repeat_interleave(r), torch_ref.repeat_interleave(tr))
    with pytest.raises(RuntimeError, match="same size"):
        tc.repeat_interleave(x, tc.tensor([1, 2, 3]), dim=1)


def test_cross_rot90_splits(torch_ref):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 3, 5))
    same(
        tc.cross(tc.from_numpy(a), tc.from_numpy(b), dim=1),
        torch_ref.cross(torch_ref.from_numpy(a), torch_ref.from_numpy(b), dim=1),
    )
    same(
        tc.cross(tc.from_numpy(a), tc.from_numpy(b)),
        torch_ref.cross(torch_ref.from_numpy(a), torch_ref.from_numpy(b)),
    )
    x, t = both(torch_ref, np.arange(24).reshape(2, 3, 4))
    for k in (-1, 0, 1, 2, 3, 5):
        same(tc.rot90(x, k, [1, 2]), torch_ref.rot90(t, k, [1, 2]))
    for arg in (3, 5, [1, 3], [-1], [2, 1], (0, 7)):
        same(tc.tensor_split(x, arg, dim=2), torch_ref.tensor_split(t, arg, dim=2))
    same(tc.hsplit(x, 3), torch_ref.hsplit(t, 3))
    same(tc.vsplit(x, [1]), torch_ref.vsplit(t, [1]))
    same(tc.dsplit(x, 2), torch_ref.dsplit(t, 2))
    with pytest.raises(RuntimeError, match="divisible"):
        tc.dsplit(x, 3)


def test_small_helpers(torch_ref):
    x, t = both(torch_ref, [[3, 1, 2], [0, 5, -1]])
    same(tc.ravel(x), torch_ref.ravel(t))
    same(tc.msort(x), torch_ref.msort(t))
    same(tc.aminmax(x), tuple(torch_ref.aminmax(t)))
    same(tc.aminmax(x, dim=1, keepdim=True), tuple(torch_ref.aminmax(t, dim=1, keepdim=True)))
    v, tv = both(torch_ref, [[1.0, 2.0], [3.0, 4.0]])
    for kw in ({}, {"offset": 1}, {"offset": -2}, {"dim1": -1, "dim2": -2}, {"dim1": 0, "dim2": 2}):
        same(tc.diag_embed(v, **kw), torch_ref.diag_embed(tv, **kw))
    same(tc.diagflat(v, 1), torch_ref.diagflat(tv, 1))
    assert x.is_signed() and not tc.tensor([1], dtype=tc.uint8).is_signed()
    assert tc.is_nonzero(tc.tensor([2])) and not tc.tensor([0.0]).is_nonzero()
    assert x.get_device() == -1
    assert x.is_same_size(tc.zeros(2, 3)) and not x.is_same_size(tc.zeros(3, 2))


def test_tensor_factories_and_methods():
    x = tc.randn(2, 3, dtype=tc.float64)
    for y in (x.new_zeros(4, 5), x.new_ones((4, 5)), x.new_empty([4, 5]), x.new_full((4, 5), 7.0)):
        assert y.shape == (4, 5) and y.dtype == tc.float64
    assert x.new_zeros(2, dtype=tc.int32).dtype == tc.int32
    assert float(x.new_full((2,), 7.0).sum()) == 14.0
    assert x.new_tensor([1, 2]).dtype == tc.float64
    src = tc.tensor([1, 2])
    copied = x.new_tensor(src)
    assert copied.dtype == tc.float64 and copied.tolist() == [1.0, 2.0]  # self's dtype, as torch
    assert x.new_tensor(src, dtype=tc.int32).dtype == tc.int32
    assert x.new_ones(3, requires_grad=True).requires_grad
    assert x.type_as(tc.tensor([1])).dtype == tc.int64
    np.testing.assert_allclose(x.softmax(1).sum(1).numpy(), np.ones(2))
    np.testing.assert_allclose(x.log_softmax(0).exp().sum(0).numpy(), np.ones(3))
    y = tc.tensor([1.0, 2.0, 3.0])
    y.cumsum_(0)
    assert y.tolist() == [1.0, 3.0, 6.0]
    y.divide_(2)
    assert y.tolist() == [0.5, 1.5, 3.0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: tc.logaddexp(a, b),
        lambda a, b: tc.xlogy(a.abs() + 0.1, b.abs() + 0.1),
        lambda a, b: tc.cross(a[:, :3], b[:, :3], dim=1),
        lambda a, b: tc.diff(a, 2, dim=1, append=b),
        lambda a, b: tc.repeat_interleave(a, tc.tensor([2, 0, 1]), dim=0) * 1.0,
        lambda a, b: tc.diag_embed(a, 1),
        lambda a, b: tc.addcdiv(a, b, a.abs() + 1, value=0.3),
        lambda a, b: tc.sinc(a) + tc.logit(b.sigmoid()),
        lambda a, b: tc.rot90(a, 1, [0, 1]).sum(0),
    ],
)
def test_gradients(fn):
    a = tc.randn(3, 4, dtype=tc.float64, requires_grad=True)
    b = tc.randn(3, 4, dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(fn, (a, b))


def test_bad_arguments_name_the_op():
    with pytest.raises(TypeError, match="diff"):
        tc.diff("abc")
    with pytest.raises(IndexError, match="out of range"):
        tc.diff(tc.zeros(3), dim=4)
    with pytest.raises(RuntimeError, match="size 3"):
        tc.cross(tc.zeros(2, 4), tc.zeros(2, 4))
    with pytest.raises(ValueError, match="non-negative"):
        tc.repeat_interleave(tc.zeros(3), -1)
