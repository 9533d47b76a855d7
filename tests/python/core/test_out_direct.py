"""out= on single-kernel elementwise ops writes straight into `out` (no temporary + copy) when
out has the result's shape and dtype, is contiguous and shares no memory with the inputs; every
other case computes the result and copies it, with the same values."""

import warnings

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(41)


def _t(x):
    return tc.from_numpy(np.ascontiguousarray(x))


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "tanh", "sigmoid", "sqrt", "abs", "floor"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_writes_into_out(name, dtype):
    x = np.abs(RNG.standard_normal(100003)).astype(dtype) + 0.1
    o = tc.empty(x.shape[0], dtype=tc.float32 if dtype == np.float32 else tc.float64)
    ptr, version = o.data_ptr(), o._version
    r = getattr(tc, name)(_t(x), out=o)
    assert r is o and o.data_ptr() == ptr  # same memory, written in place
    assert o._version > version
    np.testing.assert_array_equal(o.numpy(), getattr(tc, name)(_t(x)).numpy())


def test_views_and_numpy_exports_of_out_see_the_result():
    x = RNG.standard_normal(4096)
    base = np.zeros(4096)
    o = tc.from_numpy(base)  # memory owned by numpy
    view = o.view(64, 64)
    tc.exp(_t(x), out=o)
    np.testing.assert_array_equal(base, tc.exp(_t(x)).numpy())
    np.testing.assert_array_equal(view.numpy().reshape(-1), base)


def test_binary_with_broadcast_and_scalars():
    a = RNG.standard_normal((300, 257))
    b = RNG.standard_normal(257)
    o = tc.empty(300, 257, dtype=tc.float64)
    ptr = o.data_ptr()
    assert tc.add(_t(a), _t(b), out=o) is o and o.data_ptr() == ptr
    np.testing.assert_array_equal(o.numpy(), a + b)
    tc.mul(_t(a), 2.5, out=o)
    np.testing.assert_array_equal(o.numpy(), a * 2.5)
    tc.add(_t(a), _t(b), alpha=3, out=o)
    np.testing.assert_allclose(o.numpy(), a + 3 * b, rtol=1e-15, atol=1e-14)  # fma vs mul+add


def test_fallback_cases_give_the_same_values():
    x = RNG.standard_normal(1000)
    want = np.exp(x)
    # aliasing the input exactly
    t = _t(x.copy())
    tc.exp(t, out=t)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-15)
    # partial overlap with the input: computed first, then copied
    buf = _t(np.concatenate([x, [0.0]]))
    src, dst = buf[:-1], buf[1:]
    tc.exp(src, out=dst)
    np.testing.assert_allclose(buf.numpy()[1:], want, rtol=1e-15)
    # non-contiguous out
    o = tc.empty(2, 1000, dtype=tc.float64)[:, :].t()[:, 0]
    tc.exp(_t(x), out=o)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-15)
    # another dtype (cast on the copy)
    o32 = tc.empty(1000, dtype=tc.float32)
    tc.exp(_t(x), out=o32)
    np.testing.assert_allclose(o32.numpy(), want.astype(np.float32), rtol=1e-6)
    # another shape: resized (with torch's warning)
    o2 = tc.empty(7, dtype=tc.float64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tc.exp(_t(x), out=o2)
    assert tuple(o2.shape) == (1000,) and any("resized" in str(m.message) for m in w)
    np.testing.assert_allclose(o2.numpy(), want, rtol=1e-15)


def test_hint_does_not_outlive_the_call():
    x = _t(RNG.standard_normal(512))
    o = tc.empty(512, dtype=tc.float64)
    tc.exp(tc.zeros(512, dtype=tc.float32), out=o)  # float32 result: not taken, copied
    assert o.numpy().tolist() == [1.0] * 512
    r = tc.sin(x)  # a later op of the same shape and dtype gets its own memory
    assert r.data_ptr() != o.data_ptr()
    assert o.numpy().tolist() == [1.0] * 512
    with pytest.raises(RuntimeError):
        tc.add(x, x, out=tc.zeros(512, dtype=tc.int64))
    r2 = tc.add(x, x)
    assert r2.data_ptr() != o.data_ptr()


def test_grad_rules_unchanged():
    a = tc.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="automatic"):
        tc.exp(a, out=tc.empty(4))
    with tc.no_grad():
        o = tc.empty(4)
        tc.exp(a, out=o)
    assert o.tolist() == pytest.approx([np.e] * 4)


def test_which_calls_write_directly():
    x = _t(RNG.standard_normal(1000))
    exp = tc.exp.__wrapped__  # the op without the out= wrapper
    o = tc.empty(1000, dtype=tc.float64)
    r, direct = tc._C._call_into_out(exp, (x,), {}, o)
    assert direct and r.data_ptr() == o.data_ptr()
    for out in (
        x,  # aliases the input
        tc.empty(1000, dtype=tc.float32),  # other dtype
        tc.empty(2000, dtype=tc.float64)[::2],  # not contiguous
        tc.empty(999, dtype=tc.float64),
    ):  # other shape
        r, direct = tc._C._call_into_out(exp, (x,), {}, out)
        assert not direct and r.data_ptr() != out.data_ptr()


def test_direct_path_errors_and_grad_rules():
    a = _t(RNG.standard_normal(6))
    o = tc.empty(6, dtype=tc.float64)
    with pytest.raises(Exception, match="add"):
        tc.add(a, _t(RNG.standard_normal(5)), out=o)  # shapes do not broadcast: the op raises
    r = tc.exp(a)  # the hint did not survive the error
    assert r.data_ptr() != o.data_ptr()
    o_grad = tc.zeros(6, dtype=tc.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        tc.exp(a, out=o_grad)
    with pytest.raises(TypeError, match="must be Tensor"):
        tc.exp(a, out=[1.0])
    assert tc.exp(a, out=None).data_ptr() != o.data_ptr()
    # keyword arguments next to out are passed on
    tc.add(a, a, alpha=0.5, out=o)
    np.testing.assert_allclose(o.numpy(), 1.5 * a.numpy(), rtol=1e-15)
