"""Elementwise math family: values vs NumPy, result dtypes, layouts, gradients, errors."""

import math

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(1234)
NP_DT = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "int32": np.int32,
    "bool": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
TOL = {
    np.dtype(np.float32): 2e-5,
    np.dtype(np.float64): 1e-10,
    np.dtype(np.complex64): 2e-5,
    np.dtype(np.complex128): 1e-10,
}

FLOAT = ["float32", "float64"]
INTS = ["int64", "int32"]
CPLX = ["complex64"]


def sample(dt, shape, domain="any"):
    if dt == "bool":
        return RNG.random(shape) > 0.5
    if dt in INTS:
        lo, hi = {"any": (-5, 6), "pos": (1, 6), "unit": (0, 1), "ge1": (1, 6), "small": (0, 3)}[
            domain
        ]
        return RNG.integers(lo, hi, shape).astype(NP_DT[dt])
    if domain == "pos":
        a = RNG.uniform(0.2, 3.0, shape)
    elif domain == "unit":
        a = RNG.uniform(-0.9, 0.9, shape)
    elif domain == "ge1":
        a = RNG.uniform(1.1, 3.0, shape)
    elif domain == "small":
        a = RNG.uniform(0.2, 2.0, shape)
    else:
        a = RNG.standard_normal(shape) * 2
    if dt.startswith("complex"):
        b = RNG.uniform(0.2, 0.8, shape) if domain in ("unit",) else RNG.standard_normal(shape)
        if domain == "unit":
            a = a * 0.6
        a = a + 1j * b
    return a.astype(NP_DT[dt])


def layouts(arr_fn):
    """Yields (numpy array, tensor) pairs: contiguous, transposed, sliced with a step."""
    a = arr_fn((3, 5))
    yield a, tc.from_numpy(a.copy())
    b = arr_fn((5, 3))
    yield b.T, tc.from_numpy(b.copy()).t()
    c = arr_fn((4, 8))
    yield c[:, ::3], tc.from_numpy(c.copy()).as_strided((4, 3), (8, 3), 0)


def tname(dt):
    return str(dt).split(".")[-1]


def check(t, expected, dt=None, tol=None):
    got = t.numpy()
    if dt is not None:
        assert tname(t.dtype) == dt, (tname(t.dtype), dt)
    exp = np.asarray(expected)
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        np.testing.assert_array_equal(got, exp.astype(got.dtype))
    else:
        tol = tol or TOL.get(got.dtype, 1e-3)
        np.testing.assert_allclose(got, exp.astype(got.dtype), rtol=tol, atol=tol, equal_nan=True)


def float_out(dt):
    return "float32" if dt in INTS or dt == "bool" else dt


def real_of(dt):
    return {"complex64": "float32", "complex128": "float64"}.get(dt, dt)


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _np_sgn(a):
    if np.iscomplexobj(a):
        m = np.abs(a)
        return np.where(m == 0, 0, a / np.where(m == 0, 1, m))
    return np.sign(a)


def _np_sigmoid(a):
    return 1 / (1 + np.exp(-a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)))


def _np_digamma(x):
    # reference by central difference of lgamma (accurate enough for 1e-6)
    h = 1e-5
    lg = _vec(math.lgamma)
    return (lg(x + h) - lg(x - h)) / (2 * h)


# (name, numpy reference, dtypes, domain, out-dtype rule)
UNARY = [
    ("abs", np.abs, FLOAT + INTS + CPLX, "any", "same_real"),
    ("neg", np.negative, FLOAT + INTS + CPLX, "any", "same"),
    ("sign", np.sign, FLOAT + INTS, "any", "same"),
    ("sgn", _np_sgn, FLOAT + INTS + CPLX, "any", "same"),
    ("exp", np.exp, FLOAT + INTS + CPLX, "any", "float"),
    ("exp2", np.exp2, FLOAT + INTS, "any", "float"),
    ("expm1", np.expm1, FLOAT + INTS, "any", "float"),
    ("log", np.log, FLOAT + INTS + CPLX, "pos", "float"),
    ("log2", np.log2, FLOAT + INTS + CPLX, "pos", "float"),
    ("log10", np.log10, FLOAT + INTS + CPLX, "pos", "float"),
    ("log1p", np.log1p, FLOAT + INTS + CPLX, "pos", "float"),
    ("sqrt", np.sqrt, FLOAT + INTS + CPLX, "pos", "float"),
    ("rsqrt", lambda a: 1 / np.sqrt(a), FLOAT + INTS + CPLX, "pos", "float"),
    ("sin", np.sin, FLOAT + INTS + CPLX, "any", "float"),
    ("cos", np.cos, FLOAT + INTS + CPLX, "any", "float"),
    ("tan", np.tan, FLOAT + CPLX, "unit", "float"),
    ("asin", np.arcsin, FLOAT + CPLX, "unit", "float"),
    ("acos", np.arccos, FLOAT + CPLX, "unit", "float"),
    ("atan", np.arctan, FLOAT + INTS + CPLX, "any", "float"),
    ("sinh", np.sinh, FLOAT + CPLX, "any", "float"),
    ("cosh", np.cosh, FLOAT + CPLX, "any", "float"),
    ("tanh", np.tanh, FLOAT + INTS + CPLX, "any", "float"),
    ("asinh", np.arcsinh, FLOAT + CPLX, "any", "float"),
    ("acosh", np.arccosh, FLOAT + CPLX, "ge1", "float"),
    ("atanh", np.arctanh, FLOAT + CPLX, "unit", "float"),
    ("sigmoid", _np_sigmoid, FLOAT + INTS + CPLX, "any", "float"),
    ("erf", _vec(math.erf), FLOAT + INTS, "any", "float"),
    ("erfc", _vec(math.erfc), FLOAT + INTS, "any", "float"),
    ("lgamma", _vec(math.lgamma), FLOAT, "pos", "float"),
    ("digamma", _np_digamma, ["float64"], "pos", "float"),
    ("floor", np.floor, FLOAT + INTS, "any", "same"),
    ("ceil", np.ceil, FLOAT + INTS, "any", "same"),
    ("round", np.round, FLOAT + INTS, "any", "same"),
    ("trunc", np.trunc, FLOAT + INTS, "any", "same"),
    ("frac", lambda a: a - np.trunc(a), FLOAT, "any", "same"),
    (
        "reciprocal",
        lambda a: 1 / a.astype(np.result_type(a, np.float32)),
        FLOAT + CPLX,
        "pos",
        "float",
    ),
    ("square", np.square, FLOAT + INTS + CPLX, "any", "same"),
    ("relu", lambda a: np.maximum(a, 0), FLOAT + INTS, "any", "same"),
    ("angle", np.angle, FLOAT + CPLX, "any", "same_real"),
    ("bitwise_not", np.invert, INTS + ["bool"], "any", "same"),
    ("logical_not", np.logical_not, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("isnan", np.isnan, FLOAT + INTS + CPLX, "any", "bool"),
    ("isinf", np.isinf, FLOAT + INTS + CPLX, "any", "bool"),
    ("isposinf", np.isposinf, FLOAT + INTS, "any", "bool"),
    ("isneginf", np.isneginf, FLOAT + INTS, "any", "bool"),
    ("isfinite", np.isfinite, FLOAT + INTS + CPLX, "any", "bool"),
    ("isreal", np.isreal, FLOAT + INTS + CPLX, "any", "bool"),
]


def out_dtype(rule, dt):
    return {"same": dt, "float": float_out(dt), "same_real": real_of(dt), "bool": "bool"}[rule]


@pytest.mark.parametrize("name,ref,dtypes,domain,rule", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values(name, ref, dtypes, domain, rule):
    for dt in dtypes:
        for a, t in layouts(lambda s: sample(dt, s, domain)):
            r = getattr(tc, name)(t)
            exp = ref(a.astype(np.float64) if (dt in INTS and rule == "float") else a)
            tol = 1e-6 if name == "digamma" else None
            check(r, exp, out_dtype(rule, dt), tol=tol)
            # method form and in-place form (same dtype only)
            check(getattr(t, name)(), exp, tol=tol)
            if rule in ("same",) or (rule == "float" and dt in FLOAT + CPLX):
                if hasattr(t, name + "_") and name not in ("isnan",):
                    c = t.clone()
                    getattr(c, name + "_")()
                    check(c, exp, tol=tol)


def test_special_values():
    x = np.array([-0.99, -0.5, 0.0, 0.3, 0.9, 0.999])
    y = tc.erfinv(tc.from_numpy(x)).numpy()
    np.testing.assert_allclose(_vec(math.erf)(y), x, rtol=1e-12, atol=1e-13)
    assert tc.erfinv(tc.tensor([1.0, -1.0])).tolist() == [math.inf, -math.inf]
    d = tc.digamma(tc.tensor([1.0, 2.5, -0.5, 10.0], dtype=tc.float64)).numpy()
    np.testing.assert_allclose(d[0], -0.5772156649015329, rtol=1e-12)
    np.testing.assert_allclose(d, _np_digamma(np.array([1.0, 2.5, -0.5, 10.0])), rtol=1e-6)
    # float32 large-argument trig falls back to libm
    big = np.array([1e10, -3e9, 1e30, np.inf, np.nan, 1.5], dtype=np.float32)
    for f in ("sin", "cos", "tan"):
        np.testing.assert_allclose(
            getattr(tc, f)(tc.from_numpy(big)).numpy(),
            getattr(np, f)(big.astype(np.float64)).astype(np.float32),
            rtol=1e-5,
            atol=1e-6,
            equal_nan=True,
        )


def test_round_decimals_and_half_even():
    assert tc.round(tc.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    x = tc.tensor([1.2345, 123.456], dtype=tc.float64)
    np.testing.assert_allclose(tc.round(x, decimals=2).numpy(), [1.23, 123.46])
    np.testing.assert_allclose(x.round(decimals=-1).numpy(), [0.0, 120.0])


def test_nan_to_num():
    x = tc.tensor([math.nan, math.inf, -math.inf, 1.0])
    assert tc.nan_to_num(x).tolist() == [
        0.0,
        np.finfo(np.float32).max,
        np.finfo(np.float32).min,
        1.0,
    ]
    assert x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 1.0]
    x.nan_to_num_(nan=5.0)
    assert x.tolist()[0] == 5.0


# ---- binary ----
def _py_rem(a, b):
    return np.mod(a, b)


def _np_shift_l(a, b):
    return np.left_shift(a, b)


BINARY = [
    ("atan2", np.arctan2, FLOAT + INTS, "any", "float"),
    ("pow", np.power, FLOAT + ["int64"] + CPLX, "small", "same"),
    ("maximum", np.maximum, FLOAT + INTS + ["bool"], "any", "same"),
    ("minimum", np.minimum, FLOAT + INTS + ["bool"], "any", "same"),
    ("fmax", np.fmax, FLOAT + INTS, "any", "same"),
    ("fmin", np.fmin, FLOAT + INTS, "any", "same"),
    ("fmod", np.fmod, FLOAT + INTS, "pos", "same"),
    ("remainder", _py_rem, FLOAT + INTS, "any_nz", "same"),
    ("hypot", np.hypot, FLOAT, "any", "same"),
    ("bitwise_and", np.bitwise_and, INTS + ["bool"], "any", "same"),
    ("bitwise_or", np.bitwise_or, INTS + ["bool"], "any", "same"),
    ("bitwise_xor", np.bitwise_xor, INTS + ["bool"], "any", "same"),
    ("bitwise_left_shift", _np_shift_l, INTS, "small", "same"),
    ("bitwise_right_shift", np.right_shift, INTS, "small", "same"),
    ("logical_and", np.logical_and, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("logical_or", np.logical_or, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("logical_xor", np.logical_xor, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("eq", np.equal, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("ne", np.not_equal, FLOAT + INTS + ["bool"] + CPLX, "any", "bool"),
    ("lt", np.less, FLOAT + INTS + ["bool"], "any", "bool"),
    ("le", np.less_equal, FLOAT + INTS + ["bool"], "any", "bool"),
    ("gt", np.greater, FLOAT + INTS + ["bool"], "any", "bool"),
    ("ge", np.greater_equal, FLOAT + INTS + ["bool"], "any", "bool"),
]


def sample2(dt, shape, domain):
    if domain == "any_nz":
        a = np.array(sample(dt, shape, "any"))
        if dt in INTS:
            a[a == 0] = 3
        else:
            a[np.abs(a) < 0.1] = 0.7
        return a
    return sample(dt, shape, domain)


@pytest.mark.parametrize("name,ref,dtypes,domain,rule", BINARY, ids=[b[0] for b in BINARY])
def test_binary_values(name, ref, dtypes, domain, rule):
    fn = getattr(tc, name)
    for dt in dtypes:
        shapes = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((3, 4), ())]
        for sa, sb in shapes:
            a, b = sample2(dt, sa, domain), sample2(dt, sb, domain)
            if name == "pow" and dt == "int64":
                b = np.abs(b) % 4
            r = fn(tc.from_numpy(a.copy()), tc.from_numpy(np.array(b)))
            ca = a.astype(np.float64) if (rule == "float" and dt in INTS) else a
            check(r, ref(ca, b), out_dtype(rule, dt))
        # transposed (non-contiguous) operands
        a, b = sample2(dt, (4, 3), domain), sample2(dt, (4, 3), domain)
        if name == "pow" and dt == "int64":
            b = np.abs(b) % 4
        r = fn(tc.from_numpy(a.copy()).t(), tc.from_numpy(b.copy()).t())
        ca = a.astype(np.float64) if (rule == "float" and dt in INTS) else a
        check(r, ref(ca, b).T, out_dtype(rule, dt))


def test_binary_type_promotion(torch_ref):
    for name in ["atan2", "pow", "maximum", "fmod", "remainder", "eq", "lt", "logical_and"]:
        for da, db in [
            ("int64", "float32"),
            ("int32", "int64"),
            ("float32", "float64"),
            ("bool", "int32"),
        ]:
            if name == "pow" and da == "bool":
                continue
            a = tc.ones(3, dtype=getattr(tc, da))
            b = tc.ones(3, dtype=getattr(tc, db))
            ta = torch_ref.ones(3, dtype=getattr(torch_ref, da))
            tb = torch_ref.ones(3, dtype=getattr(torch_ref, db))
            assert tname(getattr(tc, name)(a, b).dtype) == tname(
                getattr(torch_ref, name)(ta, tb).dtype
            )


def test_binary_scalar_promotion():
    i = tc.tensor([1, 2, 3])
    assert (i**2).dtype == tc.int64 and (i**2).tolist() == [1, 4, 9]
    assert (i**0.5).dtype == tc.float32
    assert (2**i).tolist() == [2, 4, 8]
    assert (2.0**i).dtype == tc.float32
    assert (i % 2).tolist() == [1, 0, 1]
    assert (tc.atan2(i, 1)).dtype == tc.float32
    assert tc.pow(i, tc.tensor([-1, 0, 2])).tolist() == [1, 1, 9]
    assert tc.pow(tc.tensor([2, -1]), tc.tensor([-1, -3])).tolist() == [0, -1]
    with pytest.raises(ValueError, match="negative integer powers"):
        i**-1
    f = tc.tensor([1.5, -2.0])
    assert (f**2).tolist() == [2.25, 4.0]
    assert (f**3).tolist() == [3.375, -8.0]
    np.testing.assert_allclose((f**-1).numpy(), [1 / 1.5, -0.5], rtol=1e-6)
    assert (tc.tensor([True, False]) ** 2).dtype == tc.int64


def test_remainder_python_semantics():
    a = tc.tensor([-7, 7, -7, 7])
    b = tc.tensor([2, -2, -2, 2])
    assert (a % b).tolist() == [1, -1, -1, 1]
    assert tc.fmod(a, b).tolist() == [-1, 1, -1, 1]
    x = tc.tensor([-7.5, 7.5], dtype=tc.float64)
    np.testing.assert_allclose((x % 2).numpy(), [0.5, 1.5])
    np.testing.assert_allclose((5 % tc.tensor([3.0, -3.0])).numpy(), [2.0, -1.0])
    with pytest.raises(Exception, match="ZeroDivisionError"):
        tc.tensor([1]) % 0


def test_shift_semantics():
    a = tc.tensor([1, -8], dtype=tc.int32)
    assert (a << 2).tolist() == [4, -32]
    assert (a >> 1).tolist() == [0, -4]
    assert (a >> 40).tolist() == [0, -1]
    assert (a << 40).tolist() == [0, 0]
    assert (1 << tc.tensor([3])).tolist() == [8]


def test_maximum_nan_and_fmax():
    a = tc.tensor([1.0, math.nan, 3.0])
    b = tc.tensor([math.nan, 2.0, 1.0])
    assert np.isnan(tc.maximum(a, b).numpy()[:2]).all()
    assert tc.fmax(a, b).tolist() == [1.0, 2.0, 3.0]
    assert tc.fmin(a, b).tolist() == [1.0, 2.0, 1.0]


def test_operators():
    x = tc.tensor([1.0, 2.0, 3.0])
    assert (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    assert (x < 2).tolist() == [True, False, False]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x > 2).tolist() == [False, False, True]
    assert (x >= 2).tolist() == [False, True, True]
    assert (2 < x).tolist() == [False, False, True]
    assert (abs(-x)).tolist() == [1.0, 2.0, 3.0]
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True
    assert hash(x) == id(x)
    assert len({x, x}) == 1
    b = tc.tensor([True, False])
    assert (~b).tolist() == [False, True]
    assert (b & tc.tensor([True, True])).tolist() == [True, False]
    assert (b | False).tolist() == [True, False]
    assert (b ^ True).tolist() == [False, True]
    i = tc.tensor([6, 3])
    assert (i & 3).tolist() == [2, 3] and (3 & i).tolist() == [2, 3]
    assert (i | 1).tolist() == [7, 3] and (i ^ 1).tolist() == [7, 2]
    assert (~i).tolist() == [-7, -4]
    y = i.clone()
    y &= 2
    y |= 1
    y ^= 8
    y <<= 1
    y >>= 1
    assert y.tolist() == [11, 11]
    z = tc.tensor([2.0, 3.0])
    z **= 2
    z %= 5
    assert z.tolist() == [4.0, 4.0]


def test_clamp():
    a = np.array([[-2.0, 0.5, 3.0], [1.0, -0.1, 9.0]], dtype=np.float32)
    t = tc.from_numpy(a)
    check(tc.clamp(t, -1, 2), np.clip(a, -1, 2), "float32")
    check(tc.clamp(t, min=0), np.maximum(a, 0))
    check(t.clip(max=1.0), np.minimum(a, 1))
    lo = np.array([0.0, 1.0, 2.0], dtype=np.float32)
    check(tc.clamp(t, min=tc.from_numpy(lo)), np.maximum(a, lo))
    check(tc.clamp(t, tc.from_numpy(lo), tc.from_numpy(lo + 1)), np.clip(a, lo, lo + 1))
    i = tc.tensor([-3, 0, 5])
    assert tc.clamp(i, 0, 2).tolist() == [0, 0, 2] and tc.clamp(i, 0, 2).dtype == tc.int64
    assert tc.clamp(i, 0.5).dtype == tc.float32
    assert np.isnan(tc.clamp(tc.tensor([math.nan]), 0, 1).numpy()).all()
    c = t.clone()
    c.clamp_(0, 1)
    check(c, np.clip(a, 0, 1))
    with pytest.raises(ValueError, match="clamp"):
        tc.clamp(t)
    assert tc.clamp_min(i, 1).tolist() == [1, 1, 5]
    assert tc.clamp_max(i, 1).tolist() == [-3, 0, 1]


def test_where_and_lerp():
    c = tc.tensor([True, False, True])
    assert tc.where(c, tc.tensor([1, 2, 3]), tc.tensor([4.0, 5.0, 6.0])).tolist() == [1.0, 5.0, 3.0]
    assert tc.where(c, 1.0, 0.0).dtype == tc.float32
    assert tc.where(c, tc.tensor([1, 2, 3]), 0).dtype == tc.int64
    assert tc.where(c[None, :].t(), tc.tensor([1, 2]), 0).tolist() == [[1, 2], [0, 0], [1, 2]]
    with pytest.raises(TypeError, match="where"):
        tc.where(tc.tensor([1, 0, 1]), 1.0, 0.0)
    s, e = np.array([0.0, 1.0, 2.0]), np.array([10.0, 11.0, 12.0])
    ts, te = tc.from_numpy(s), tc.from_numpy(e)
    np.testing.assert_allclose(tc.lerp(ts, te, 0.25).numpy(), s + 0.25 * (e - s))
    w = np.array([0.0, 0.7, 1.0])
    np.testing.assert_allclose(tc.lerp(ts, te, tc.from_numpy(w)).numpy(), s + w * (e - s))
    with pytest.raises(TypeError, match="lerp"):
        tc.lerp(ts, te.float(), 0.5)


def test_equal_isclose_allclose():
    a = tc.tensor([1.0, 2.0, math.nan])
    b = tc.tensor([1.0, 2.0 + 1e-7, math.nan])
    assert not tc.equal(a, b)
    assert tc.equal(tc.tensor([1, 2]), tc.tensor([1, 2]))
    assert not tc.equal(tc.tensor([1, 2]), tc.tensor([[1, 2]]))
    assert tc.isclose(a, b).tolist() == [True, True, False]
    assert tc.isclose(a, b, equal_nan=True).tolist() == [True, True, True]
    assert not tc.allclose(a, b) and tc.allclose(a, b, equal_nan=True)
    assert tc.isclose(tc.tensor([math.inf]), tc.tensor([math.inf])).tolist() == [True]
    assert tc.isclose(tc.tensor([1, 2]), tc.tensor([1, 3])).tolist() == [True, False]


def test_complex_helpers_and_views():
    re = tc.tensor([1.0, 2.0])
    im = tc.tensor([3.0, -1.0])
    z = tc.complex(re, im)
    assert z.dtype == tc.complex64
    np.testing.assert_allclose(z.numpy(), [1 + 3j, 2 - 1j])
    p = tc.polar(tc.tensor([2.0], dtype=tc.float64), tc.tensor([math.pi / 2], dtype=tc.float64))
    np.testing.assert_allclose(p.numpy(), [2j], atol=1e-12)
    v = tc.view_as_real(z)
    assert v.shape == (2, 2) and v.dtype == tc.float32
    v.mul_(2)  # shares storage
    np.testing.assert_allclose(z.numpy(), [2 + 6j, 4 - 2j])
    r = tc.view_as_complex(v)
    np.testing.assert_allclose(r.numpy(), z.numpy())
    with pytest.raises(TypeError, match="view_as_real"):
        tc.view_as_real(re)
    with pytest.raises(ValueError, match="last dimension"):
        tc.view_as_complex(tc.zeros(3, 3))
    with pytest.raises(TypeError, match="complex"):
        tc.complex(tc.tensor([1]), tc.tensor([2]))
    assert tc.isreal(tc.tensor([1 + 0j, 1j])).tolist() == [True, False]


ERRORS = [
    ("bitwise_and", lambda: tc.bitwise_and(tc.ones(2), tc.ones(2))),
    ("bitwise_not", lambda: tc.bitwise_not(tc.ones(2))),
    ("bitwise_left_shift", lambda: tc.ones(2) << 1),
    ("sign", lambda: tc.sign(tc.ones(2, dtype=tc.complex64))),
    ("erf", lambda: tc.erf(tc.ones(2, dtype=tc.complex64))),
    ("lt", lambda: tc.lt(tc.ones(2, dtype=tc.complex64), 1)),
    ("maximum", lambda: tc.maximum(tc.ones(2, dtype=tc.complex64), tc.ones(2, dtype=tc.complex64))),
    ("clamp", lambda: tc.clamp(tc.ones(2, dtype=tc.complex64), 0, 1)),
    ("frac", lambda: tc.frac(tc.tensor([1, 2]))),
    ("hypot", lambda: tc.hypot(tc.tensor([1]), tc.tensor([2]))),
    ("isposinf", lambda: tc.isposinf(tc.ones(1, dtype=tc.complex64))),
    ("relu", lambda: tc.relu(tc.tensor([True]))),
    ("neg", lambda: -tc.tensor([True])),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_dtype_errors(name, fn):
    with pytest.raises(TypeError, match=name):
        fn()


def test_inplace_dtype_error_and_leaf_check():
    i = tc.tensor([1, 2])
    with pytest.raises(TypeError, match="can't be cast"):
        i.sin_()
    x = tc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        x.sin_()


# ---- gradients ----
def _loss(out, v):
    if out.dtype.is_complex:
        return (
            tc.real(out) * tc.from_numpy(v.real.copy())
            + tc.imag(out) * tc.from_numpy(v.imag.copy())
        ).sum()
    return (out * tc.from_numpy(v)).sum()


def gradcheck(fn, inputs, eps=1e-6, rtol=1e-5, atol=1e-6, double=True):
    """Central differences vs tc.autograd.grad for inputs (float64 / complex128 numpy arrays).
    Complex: the expected gradient is dL/dx + i dL/dy (PyTorch's convention)."""
    ts = [tc.from_numpy(a.copy()).requires_grad_(True) for a in inputs]
    out = fn(*ts)
    o = out.detach().numpy()
    v = RNG.standard_normal(o.shape) + (
        1j * RNG.standard_normal(o.shape) if np.iscomplexobj(o) else 0
    )
    grads = tc.autograd.grad(_loss(out, v), ts, create_graph=double)

    def L(arrs):
        with tc.no_grad():
            return _loss(fn(*[tc.from_numpy(a) for a in arrs]), v).item()

    for k, a in enumerate(inputs):
        num = np.zeros(a.shape, dtype=a.dtype)
        for idx in np.ndindex(a.shape):
            for d in [1.0, 1j] if np.iscomplexobj(a) else [1.0]:
                p = [x.copy() for x in inputs]
                m = [x.copy() for x in inputs]
                p[k][idx] += eps * d
                m[k][idx] -= eps * d
                num[idx] += d * (L(p) - L(m)) / (2 * eps)
        np.testing.assert_allclose(
            grads[k].detach().numpy(), num, rtol=rtol, atol=atol, err_msg=f"input {k}"
        )
    if double:
        # d/dx of sum(grad * w): check the graph of the gradient against finite differences.
        ws = [RNG.standard_normal(a.shape) for a in inputs]
        s = sum(
            (tc.real(g) if g.dtype.is_complex else g).mul(tc.from_numpy(w)).sum()
            for g, w in zip(grads, ws)
        )
        if not s.requires_grad:  # the gradient is constant in the inputs
            return
        gg = tc.autograd.grad(s, ts, allow_unused=True)

        def S(arrs):
            tt = [tc.from_numpy(a).requires_grad_(True) for a in arrs]
            g2 = tc.autograd.grad(_loss(fn(*tt), v), tt)
            return sum(float(((g.numpy().real) * w).sum()) for g, w in zip(g2, ws))

        k = 0
        a = inputs[k]
        if not np.iscomplexobj(a):
            num = np.zeros(a.shape)
            for idx in np.ndindex(a.shape):
                p = [x.copy() for x in inputs]
                m = [x.copy() for x in inputs]
                p[k][idx] += 1e-5
                m[k][idx] -= 1e-5
                num[idx] = (S(p) - S(m)) / 2e-5
            got = gg[k].numpy() if gg[k] is not None else np.zeros(a.shape)
            np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-5, err_msg="double backward")


GRAD_UNARY = [
    ("abs", "any", True),
    ("neg", "any", True),
    ("exp", "any", True),
    ("exp2", "any", False),
    ("expm1", "any", True),
    ("log", "pos", True),
    ("log2", "pos", True),
    ("log10", "pos", True),
    ("log1p", "pos", True),
    ("sqrt", "pos", True),
    ("rsqrt", "pos", True),
    ("sin", "any", True),
    ("cos", "any", True),
    ("tan", "unit", True),
    ("asin", "unit", True),
    ("acos", "unit", True),
    ("atan", "any", True),
    ("sinh", "any", True),
    ("cosh", "any", True),
    ("tanh", "any", True),
    ("asinh", "any", True),
    ("acosh", "ge1", True),
    ("atanh", "unit", True),
    ("sigmoid", "any", True),
    ("erf", "any", False),
    ("erfc", "any", False),
    ("erfinv", "unit", False),
    ("lgamma", "pos", False),
    ("digamma", "pos", False),
    ("reciprocal", "pos", True),
    ("square", "any", True),
    ("relu", "any", False),
    ("frac", "any", False),
    ("sgn", "any", True),
    ("angle", "any", True),
    ("floor", "any", False),
    ("sign", "any", False),
]


@pytest.mark.parametrize("name,domain,cplx", GRAD_UNARY, ids=[g[0] for g in GRAD_UNARY])
def test_unary_grad(name, domain, cplx):
    fn = getattr(tc, name)
    x = sample("float64", (2, 3), domain)
    if name in ("abs", "relu", "frac", "floor", "sign", "sgn"):
        x = x + np.sign(x) * 0.05  # keep away from kinks
    gradcheck(fn, [x], double=name != "digamma")
    if cplx:
        z = sample("complex128", (3,), domain)
        gradcheck(fn, [z], double=False)


def test_inplace_grad():
    x = tc.tensor([0.3, 0.7], dtype=tc.float64, requires_grad=True)
    y = x * 1
    y.sin_()
    y.pow_(2)
    (g,) = tc.autograd.grad(y.sum(), x)
    xn = np.array([0.3, 0.7])
    np.testing.assert_allclose(g.numpy(), 2 * np.sin(xn) * np.cos(xn))


GRAD_BINARY = [
    ("atan2", "any", "any", False),
    ("pow", "pos", "any", True),
    ("maximum", "any", "any", False),
    ("minimum", "any", "any", False),
    ("fmax", "any", "any", False),
    ("fmin", "any", "any", False),
    ("fmod", "any", "pos", False),
    ("remainder", "any", "pos", False),
    ("hypot", "any", "any", False),
]


@pytest.mark.parametrize("name,da,db,cplx", GRAD_BINARY, ids=[g[0] for g in GRAD_BINARY])
def test_binary_grad(name, da, db, cplx):
    fn = getattr(tc, name)
    a = sample("float64", (2, 3), da)
    b = sample("float64", (3,), db)
    gradcheck(fn, [a, b])
    if cplx:
        gradcheck(
            fn, [sample("complex128", (3,), da), sample("complex128", (3,), db)], double=False
        )


def test_scalar_and_misc_grads():
    x = sample("float64", (4,), "pos")
    gradcheck(lambda t: t**2.5, [x])
    gradcheck(lambda t: t**3, [x])
    gradcheck(lambda t: 1.7**t, [x])
    gradcheck(lambda t: tc.clamp(t, 0.5, 2.0), [x + 0.013])
    lo = sample("float64", (4,), "pos")
    gradcheck(lambda t, l: tc.clamp(t, min=l), [x, lo + 0.01])
    e = sample("float64", (4,), "any")
    w = sample("float64", (4,), "unit")
    gradcheck(lambda s, en: tc.lerp(s, en, 0.3), [x, e])
    gradcheck(lambda s, en, ww: tc.lerp(s, en, ww), [x, e, w])
    c = tc.tensor([True, False, True, False])
    gradcheck(lambda s, en: tc.where(c, s, en), [x, e])
    gradcheck(lambda r, i: tc.complex(r, i), [x, e], double=False)
    gradcheck(lambda r, t: tc.polar(r, t), [x, e], double=False)
    z = sample("complex128", (3,), "any")
    gradcheck(lambda t: tc.view_as_real(t), [z], double=False)
    gradcheck(lambda t: tc.view_as_complex(t), [sample("float64", (3, 2), "any")], double=False)
    gradcheck(lambda t: tc.lerp(t, t * 2, 0.25), [z], double=False)
    gradcheck(lambda t: t.nan_to_num(), [x])


def test_nondifferentiable_outputs():
    x = tc.tensor([1.5, -0.5], requires_grad=True)
    assert not (x > 0).requires_grad
    y = tc.floor(x)
    assert y.requires_grad
    (g,) = tc.autograd.grad(y.sum(), x)
    assert g.tolist() == [0.0, 0.0]
