"""The out= keyword of the common functions (python/tensorcore/_out.py) and Tensor.resize_."""

import warnings

import numpy as np
import pytest

import tensorcore as tc


def test_elementwise_and_reduction_write_into_out():
    a, b = tc.tensor([1.0, 2.0, 3.0]), tc.tensor([0.5, 0.5, 2.0])
    o = tc.empty(3)
    r = tc.add(a, b, out=o)
    assert r is o and o.tolist() == [1.5, 2.5, 5.0]
    tc.exp(tc.zeros(3), out=o)
    assert o.tolist() == [1.0, 1.0, 1.0]
    s = tc.empty(())
    tc.sum(a, out=s)
    assert s.item() == 6.0
    m = tc.empty(2)
    tc.mean(tc.tensor([[1.0, 3.0], [5.0, 7.0]]), 1, out=m)
    assert m.tolist() == [2.0, 6.0]
    g = tc.empty(3, dtype=tc.bool)
    tc.gt(a, 1.5, out=g)
    assert g.tolist() == [False, True, True]


def test_out_aliasing_an_input():
    a = tc.tensor([1.0, 2.0])
    tc.mul(a, a, out=a)
    assert a.tolist() == [1.0, 4.0]


def test_dtype_rules_match_torch(torch_ref):
    a = tc.ones(3)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tc.add(a, 1, out=tc.zeros(3, dtype=tc.int64))
    o = tc.zeros(3, dtype=tc.float64)  # float32 -> float64 is a safe cast
    tc.add(a, 1, out=o)
    assert o.dtype == tc.float64 and o.tolist() == [2.0, 2.0, 2.0]
    f = tc.zeros(3)
    tc.gt(a, 0, out=f)  # bool results cast to any dtype
    assert f.tolist() == [1.0, 1.0, 1.0]
    # Accumulating reductions and factories take out's dtype, as torch.
    s = tc.zeros((), dtype=tc.int64)
    tc.sum(tc.tensor([1.5, 2.5]), 0, out=s)
    ts = torch_ref.zeros((), dtype=torch_ref.int64)
    torch_ref.sum(torch_ref.tensor([1.5, 2.5]), 0, out=ts)
    assert s.item() == ts.item()
    z = tc.empty(2, dtype=tc.int32)
    tc.ones(2, out=z)
    assert z.dtype == tc.int32 and z.tolist() == [1, 1]


def test_resize_with_warning_and_tuple_outputs():
    o = tc.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tc.add(tc.ones(2, 3), 1, out=o)  # an empty out resizes silently
    assert o.shape == (2, 3) and o.tolist() == [[2.0] * 3] * 2
    o2 = tc.zeros(5)
    with pytest.warns(UserWarning, match="was resized"):
        tc.neg(tc.ones(2, 2), out=o2)
    assert o2.shape == (2, 2) and o2.tolist() == [[-1.0, -1.0], [-1.0, -1.0]]
    v, i = tc.empty(2), tc.empty(2, dtype=tc.int64)
    r = tc.max(tc.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1, 0]
    with pytest.raises(TypeError, match="tuple of 2 tensors"):
        tc.max(tc.ones(2, 2), 1, out=v)


def test_autograd_is_refused_like_torch():
    w = tc.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        tc.mul(w, 2, out=tc.empty(3))
    with tc.no_grad():
        o = tc.mul(w, 2, out=tc.empty(3))
    assert o.tolist() == [2.0, 2.0, 2.0] and not o.requires_grad


def test_out_into_a_view_writes_through():
    base = tc.zeros(2, 3)
    tc.add(tc.ones(3), 1, out=base[1])
    assert base.tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]
    col = base[:, 0]
    tc.sub(tc.ones(2), 3, out=col)  # non-contiguous out
    assert base[:, 0].tolist() == [-2.0, -2.0]


def test_resize_keeps_views_on_the_grown_storage():
    a = tc.arange(4.0)
    v = a[:2]
    a.resize_(3, 4)
    assert a.shape == (3, 4) and a.is_contiguous()
    assert a.flatten()[:4].tolist() == [0.0, 1.0, 2.0, 3.0]  # contents kept
    a.fill_(9.0)
    assert v.tolist() == [9.0, 9.0]  # the old view shares the grown storage
    a.resize_(2)
    assert a.tolist() == [9.0, 9.0]
    with pytest.raises(RuntimeError, match="negative dimension"):
        a.resize_(-1)
    with pytest.raises(RuntimeError, match="require grad"):
        tc.ones(2, requires_grad=True).resize_(4)


def test_wrapped_functions_keep_names_and_plain_calls():
    assert tc.add.__name__ == "add" and tc.sum.__name__ == "sum"
    np.testing.assert_array_equal(tc.add(tc.ones(2), 2).numpy(), [3.0, 3.0])


@pytest.mark.parametrize(
    "name,args",
    [
        ("matmul", lambda t: (t.ones(2, 3), t.ones(3, 4))),
        ("cat", lambda t: ([t.ones(2), t.zeros(3)],)),
        ("where", lambda t: (t.tensor([True, False]), t.ones(2), t.zeros(2))),
        ("cumsum", lambda t: (t.arange(5.0), 0)),
        ("clamp", lambda t: (t.arange(5.0), 1.0, 3.0)),
        ("index_select", lambda t: (t.arange(6.0), 0, t.tensor([4, 1]))),
        ("sigmoid", lambda t: (t.arange(3.0),)),
        ("arange", lambda t: (5,)),
    ],
)
def test_out_matches_torch_across_families(torch_ref, name, args):
    want = getattr(torch_ref, name)(*args(torch_ref))
    o = tc.empty(0, dtype=getattr(tc, str(want.dtype).split(".")[1]))
    got = getattr(tc, name)(*args(tc), out=o)
    assert got is o
    np.testing.assert_allclose(o.numpy(), want.numpy(), rtol=1e-6)


def test_out_wrapper_keywords_and_warning_location():
    a, b = tc.ones(3), tc.arange(3.0)
    # out=None is the plain call; other keywords pass through next to out.
    np.testing.assert_array_equal(tc.add(a, b, out=None).numpy(), [1.0, 2.0, 3.0])
    o = tc.empty(3)
    assert tc.add(a, b, alpha=2, out=o) is o
    np.testing.assert_array_equal(o.numpy(), [1.0, 3.0, 5.0])
    assert tc.sum(tc.ones(2, 3), dim=1, keepdim=True, out=tc.empty(0)).shape == (2, 1)
    with pytest.raises(TypeError, match="'out' must be Tensor"):
        tc.add(a, b, out=3)
    # The resize warning names the caller's line, not the wrapper.
    with pytest.warns(UserWarning, match="was resized") as record:
        tc.mul(a, b, out=tc.empty(5))
    assert record[0].filename == __file__
    assert tc.add.__wrapped__ is not tc.add and "add" in repr(tc.add)
