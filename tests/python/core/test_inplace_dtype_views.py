"""In-place ops through views that change dtype: real/imag/view_as_real/view_as_complex (they
write through to the base and rewrite its autograd history, compared with torch) and
Tensor.view(dtype) (a bitcast view sharing memory, compared with torch/NumPy)."""

import numpy as np
import pytest

import tensorcore as tc

Z0 = np.array([1.0 + 2.0j, -0.5 + 0.25j, 3.0 - 1.0j, 0.75 + 1.5j])
R0 = np.array([0.5, -1.5, 2.0, 0.25])


def _leaves(lib):
    z = lib.tensor(Z0, dtype=lib.complex128, requires_grad=True)
    r = lib.tensor(R0, dtype=lib.float64, requires_grad=True)
    return z, r


def real_mul(lib, z, r):
    y = z * 1
    y.real.mul_(2)
    return y


def imag_add_tensor(lib, z, r):
    y = z * (1 - 0.5j)
    y.imag.add_(r)
    return y


def imag_then_real_slices(lib, z, r):
    y = z * 1
    y.imag[1:3].mul_(r[:2])
    y.real[0].exp_()
    return y


def view_as_real_mul(lib, z, r):
    y = z * 1
    lib.view_as_real(y).mul_(r[:2])  # broadcast over the (re, im) pairs
    return y


def view_as_real_column(lib, z, r):
    y = z + 0
    lib.view_as_real(y)[:, 1].mul_(r)  # the imaginary parts
    return y


def view_as_complex_of_real(lib, z, r):
    x = r.reshape(2, 2) * 1
    lib.view_as_complex(x).mul_(z[0])  # complex view of a real base
    return x


def complex_into_zeros(lib, z, r):
    y = lib.zeros(4, dtype=lib.complex128)
    y.real.copy_(r)
    y.imag.copy_(r * r)
    return y * z


def sibling_real_view_refreshes(lib, z, r):
    y = z * 1
    re = y.real
    y.imag.mul_(r)
    y.real.mul_(3)  # re now shows the tripled parts and its gradient follows
    return lib.complex(re * re, y.imag)


CASES = [
    real_mul,
    imag_add_tensor,
    imag_then_real_slices,
    view_as_real_mul,
    view_as_real_column,
    view_as_complex_of_real,
    complex_into_zeros,
    sibling_real_view_refreshes,
]


def _run(lib, case):
    z, r = _leaves(lib)
    out = case(lib, z, r)
    n = int(np.prod(out.shape))
    w = np.linspace(0.5, 2.0, n).reshape(tuple(out.shape))
    if out.is_complex():
        w = w + 1j * np.linspace(-1.0, 1.0, n).reshape(tuple(out.shape))
    loss = (
        (out * lib.tensor(w, dtype=out.dtype)).abs().sum()
        if out.is_complex()
        else (out * lib.tensor(w, dtype=out.dtype)).sum()
    )
    loss.backward()
    grads = [t.grad.numpy() if t.grad is not None else None for t in (z, r)]
    return [out.detach().numpy()] + grads


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_matches_torch(case, torch_ref):
    got, ref = _run(tc, case), _run(torch_ref, case)
    for g, e in zip(got, ref):
        if e is None:
            assert g is None or np.all(g == 0)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_writes_reach_the_base_and_bump_its_version():
    z = tc.tensor([1 + 2j, 3 - 4j], dtype=tc.complex64)
    v0 = z._version
    z.real.mul_(2)
    z.imag.add_(1)
    tc.view_as_real(z)[1].mul_(-1)
    assert z.tolist() == [2 + 3j, -6 + 3j]
    assert z._version > v0
    x = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
    tc.view_as_complex(x).mul_(1j)
    assert x.tolist() == [[-2.0, 1.0], [-4.0, 3.0]]


def test_gradcheck_and_gradgradcheck():
    def f(z, r):
        y = z * 1
        y.real.mul_(r)
        tc.view_as_real(y)[:, 1].add_(r * r)
        return y

    z = tc.tensor(Z0, dtype=tc.complex128, requires_grad=True)
    r = tc.tensor(R0, dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(f, (z, r))
    assert tc.autograd.gradgradcheck(f, (z, r))


def test_view_of_complex_leaf_in_place_is_an_error():
    z = tc.tensor(Z0, dtype=tc.complex128, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        z.real.mul_(2)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        tc.view_as_real(z).add_(1)


def test_saved_value_modified_through_a_real_view_is_detected():
    z = tc.tensor(Z0, dtype=tc.complex128, requires_grad=True)
    y = z * 1
    p = y * y  # saves y
    y.real.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        p.abs().sum().backward()


@pytest.mark.parametrize(
    "src,dst",
    [
        ("float32", "int32"),
        ("float32", "float16"),
        ("uint8", "int16"),
        ("complex64", "float64"),
        ("float64", "complex128"),
        ("int64", "uint8"),
        ("complex128", "float32"),
    ],
)
def test_view_dtype_matches_torch(torch_ref, src, dst):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 8)) * 100).astype(np.float64)
    t = torch_ref.from_numpy(a).to(getattr(torch_ref, src))
    x = tc.from_numpy(t.numpy().copy())
    want = t.view(getattr(torch_ref, dst))
    got = x.view(getattr(tc, dst))
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_array_equal(got.numpy().view(np.uint8), want.numpy().view(np.uint8))
    # A write through the view lands in the original's bytes.
    got.zero_()
    assert not np.any(x.numpy().view(np.uint8))


def test_view_dtype_layout_rules_and_errors(torch_ref):
    a = tc.arange(6, dtype=tc.uint8)
    assert a.view(tc.int16).tolist() == [256, 770, 1284]
    b = a.view(2, 3)[:, :2]
    with pytest.raises(RuntimeError, match=r"stride\(0\) must be divisible by 2"):
        b.view(tc.int16)
    with pytest.raises(RuntimeError, match=r"size\(-1\) must be divisible by 4"):
        a.view(tc.int32)
    with pytest.raises(RuntimeError, match=r"storage_offset\(\) must be divisible by 2"):
        a[1:5].view(tc.int16)
    with pytest.raises(RuntimeError, match=r"dim\(\) cannot be 0"):
        tc.tensor(1.0).view(tc.float16)
    with pytest.raises(RuntimeError, match=r"stride\(-1\) must be 1"):
        tc.ones(2, 3).t().view(tc.float16)
    assert tc.tensor(1.0).view(tc.int32).item() == 1065353216  # bits, not a value cast
    x = tc.ones(4, 2)[::2]  # strided rows, unit last stride
    y = x.view(tc.float64)
    assert tuple(y.shape) == (2, 1) and tuple(y.stride()) == (2, 1)
    w = tc.ones(3, requires_grad=True)
    assert not w.view(tc.int32).requires_grad and not w.view(tc.float32).requires_grad
