"""bfloat16/float16 elementwise ops, fill_ and sum: the vectorized chunk loops must give the same
bits as computing in float32 and rounding once (round to nearest even), for every layout."""

import numpy as np
import pytest

import tensorcore as tc

DTYPES = ("bfloat16", "float16")


def round_bf16(x):
    """float32 -> bfloat16 bits (int16 view), round to nearest even, NaN kept quiet."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    quiet = (u >> 16) | 0x40
    return np.where((u & 0x7FFFFFFF) > 0x7F800000, quiet, rounded).astype(np.uint16)


def ref_bits(f32, dt):
    f32 = np.asarray(f32, dtype=np.float32)
    if dt == "bfloat16":
        return round_bf16(f32)
    with np.errstate(over="ignore"):  # overflow to inf is the expected rounding
        return f32.astype(np.float16).view(np.uint16)


def bits(t):
    return t.contiguous().view(tc.int16).numpy().view(np.uint16)


def widened(t):
    return t.to(tc.float32).numpy()


def edge_values(n, seed):
    """Random normals mixed with rounding ties, subnormals, overflow, infinities, NaNs, zeros."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    special = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            1.0,
            -1.0,
            65504.0,
            1e-6,
            -3e-8,
            6e-5,
            3.0e38,
            1.00390625,
            1.01171875,
            255.5,
            2049.0,
        ],
        dtype=np.float32,
    )
    x[rng.integers(0, n, size=len(special) * 8)] = np.tile(special, 8)
    return x


def make(x, dt):
    return tc.from_numpy(np.ascontiguousarray(x)).to(getattr(tc, dt))


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_contiguous_and_strided_match_rounded_float(dt, op):
    n = 4099  # odd: vector bodies and scalar tails
    tc_op, np_op = BINARY[op]
    a, b = make(edge_values(n, 1), dt), make(edge_values(n, 2), dt)
    fa, fb = widened(a), widened(b)
    with np.errstate(all="ignore"):
        expect = ref_bits(np_op(fa, fb), dt)
    got = bits(tc_op(a, b))
    np.testing.assert_array_equal(got, expect)
    # Non-contiguous operands take the scalar path: same bits.
    a2, b2 = make(np.repeat(widened(a), 2), dt)[::2], make(np.repeat(widened(b), 2), dt)[::2]
    assert not a2.is_contiguous()
    np.testing.assert_array_equal(bits(tc_op(a2, b2)), expect)


@pytest.mark.parametrize("dt", DTYPES)
def test_scalar_broadcast_and_inplace(dt):
    n = 3001
    x = edge_values(n, 3)
    a = make(x, dt)
    fa = widened(a)
    with np.errstate(all="ignore"):
        # The python scalar is cast to the tensor's dtype (2.5 and 0.75 are exact in both).
        np.testing.assert_array_equal(bits(a + 2.5), ref_bits(fa + np.float32(2.5), dt))
        np.testing.assert_array_equal(bits(2.5 - a), ref_bits(np.float32(2.5) - fa, dt))
        np.testing.assert_array_equal(bits(a * 0.75), ref_bits(fa * np.float32(0.75), dt))
        c = a.clone()
        c.mul_(0.75)
        np.testing.assert_array_equal(bits(c), ref_bits(fa * np.float32(0.75), dt))
        b = make(edge_values(n, 4), dt)
        fb = widened(b)
        c = a.clone()
        c.add_(b)
        np.testing.assert_array_equal(bits(c), ref_bits(fa + fb, dt))
        c = a.clone()
        c.div_(b)
        np.testing.assert_array_equal(bits(c), ref_bits(fa / fb, dt))
    # Row broadcast: (1, m) against (k, m) keeps contiguous inner runs.
    row = make(edge_values(64, 5), dt).reshape(1, 64)
    mat = make(edge_values(64 * 9, 6), dt).reshape(9, 64)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(
            bits(mat * row).reshape(-1), ref_bits((widened(mat) * widened(row)).reshape(-1), dt)
        )


@pytest.mark.parametrize("dt", DTYPES)
def test_add_alpha_matches_strided_path(dt):
    # x + alpha*y may be fused (FMA) by the compiler; the contiguous and strided paths must agree.
    n = 2053
    a, b = make(edge_values(n, 7), dt), make(edge_values(n, 8), dt)
    got = tc.add(a, b, alpha=0.3)
    a2, b2 = make(np.repeat(widened(a), 3), dt)[::3], make(np.repeat(widened(b), 3), dt)[::3]
    np.testing.assert_array_equal(bits(got), bits(tc.add(a2, b2, alpha=0.3)))
    fa, fb = widened(a).astype(np.float64), widened(b).astype(np.float64)
    ok = np.isfinite(fa) & np.isfinite(fb) & (np.abs(fa) < 1e4) & (np.abs(fb) < 1e4)
    ref = widened(make((fa + np.float32(0.3) * fb).astype(np.float32), dt))
    np.testing.assert_allclose(widened(got)[ok], ref[ok], rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("dt", DTYPES)
def test_fill_and_zero(dt):
    for shape in ((0,), (1,), (7,), (4097,), (3, 33, 5)):
        t = tc.empty(*shape, dtype=getattr(tc, dt))
        t.fill_(1.0)
        assert (bits(t) == ref_bits(np.ones(1), dt)[0]).all()
        t.fill_(-0.1)
        assert (bits(t) == ref_bits(np.float32(-0.1), dt)).all()
        t.zero_()
        assert (bits(t) == 0).all()
    # Non-contiguous fill only touches the view.
    t = tc.zeros(6, 8, dtype=getattr(tc, dt))
    t[:, ::2].fill_(float("nan"))
    w = widened(t)
    assert np.isnan(w[:, ::2]).all() and (w[:, 1::2] == 0).all()


@pytest.mark.parametrize("dt", ("uint8", "int16", "int32", "int64", "float32", "float64", "bool"))
def test_fill_other_dtypes(dt):
    t = tc.zeros(1000, dtype=getattr(tc, dt))
    t.fill_(1)
    assert (t.numpy() == 1).all()


@pytest.mark.parametrize("dt", DTYPES)
def test_exp_contiguous_matches_strided(dt):
    x = np.concatenate([edge_values(1500, 9), np.linspace(-100, 100, 999, dtype=np.float32)])
    a = make(x, dt)
    got = a.exp()
    a2 = make(np.repeat(widened(a), 2), dt)[::2]
    np.testing.assert_array_equal(bits(got), bits(a2.exp()))
    fa = widened(a).astype(np.float64)
    with np.errstate(all="ignore"):
        ref = widened(make(np.exp(fa).astype(np.float32), dt))
    np.testing.assert_allclose(widened(got), ref, rtol=1e-2, equal_nan=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_sum(dt):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((5, 7, 3001)).astype(np.float32)
    a = make(x, dt)
    fa = widened(a).astype(np.float64)
    for dims in (None, 2, (1, 2), 0):
        got = widened(a.sum() if dims is None else a.sum(dims))
        ref = fa.sum() if dims is None else fa.sum(axis=dims)
        ref_r = widened(make(np.asarray(ref, dtype=np.float32), dt))
        # Within one rounding step of the 16-bit result.
        tol = 2**-7 if dt == "bfloat16" else 2**-10
        np.testing.assert_allclose(got, ref_r, rtol=tol, atol=tol)
    m = widened(a.mean(2))
    np.testing.assert_allclose(
        m, widened(make(fa.mean(axis=2).astype(np.float32), dt)), rtol=1e-2, atol=1e-3
    )


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", (1, 31, 2048, 4096, 5000, 70001))
def test_sum_same_as_float32_cascade(dt, n):
    # The 16-bit sum is the float32 sum of the widened values, rounded once.
    a = make(np.random.default_rng(n).standard_normal(n).astype(np.float32), dt)
    np.testing.assert_array_equal(bits(a.sum()), bits(a.to(tc.float32).sum().to(getattr(tc, dt))))
    m = a[: n - n % 7].reshape(7, -1) if n >= 7 else a.reshape(1, -1)
    np.testing.assert_array_equal(bits(m.sum(1)), bits(m.to(tc.float32).sum(1).to(getattr(tc, dt))))


@pytest.mark.parametrize("dt", DTYPES)
def test_against_torch(dt, torch_ref):
    torch = torch_ref
    x, y = edge_values(5000, 11), np.abs(edge_values(5000, 12)) + 0.5
    ta = torch.from_numpy(x).to(getattr(torch, dt))
    tb = torch.from_numpy(y).to(getattr(torch, dt))
    a, b = make(x, dt), make(y, dt)
    for name, f in (
        ("add", lambda p, q: p + q),
        ("sub", lambda p, q: p - q),
        ("mul", lambda p, q: p * q),
        ("div", lambda p, q: p / q),
    ):
        got, ref = f(a, b), f(ta, tb)
        # Same bits, except that the NaNs (from NaN inputs, inf - inf) may carry other payloads.
        nan = np.isnan(widened(got))
        np.testing.assert_array_equal(nan, np.isnan(ref.float().numpy()), err_msg=name)
        np.testing.assert_array_equal(
            bits(got)[~nan], ref.view(torch.int16).numpy().view(np.uint16)[~nan], err_msg=name
        )
    c, tcc = a.clone(), ta.clone()
    c.fill_(0.3)
    tcc.fill_(0.3)
    np.testing.assert_array_equal(bits(c), tcc.view(torch.int16).numpy().view(np.uint16))


UNARY = (
    "neg",
    "abs",
    "sqrt",
    "log",
    "tanh",
    "sigmoid",
    "erf",
    "exp2",
    "expm1",
    "log1p",
    "sin",
    "floor",
    "round",
    "rsqrt",
)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_unary_layouts_agree_and_match_float32(dt, op):
    x = np.concatenate([edge_values(1200, 13), np.linspace(-8, 8, 1001, dtype=np.float32)])
    a = make(x, dt)
    got = getattr(a, op)()
    a2 = make(np.repeat(widened(a), 2), dt)[::2]
    np.testing.assert_array_equal(bits(got), bits(getattr(a2, op)()))
    # The float32 op on the widened values, rounded once to the 16-bit type.
    ref = getattr(a.to(tc.float32), op)().to(getattr(tc, dt))
    np.testing.assert_array_equal(bits(got), bits(ref))


@pytest.mark.parametrize("dt", DTYPES)
def test_float32_casts(dt):
    x = edge_values(4099, 21)
    got = tc.from_numpy(x).to(getattr(tc, dt))
    np.testing.assert_array_equal(bits(got), ref_bits(x, dt))
    # Strided source and destination take the element path: same bits.
    src = tc.from_numpy(np.repeat(x, 2))[::2]
    np.testing.assert_array_equal(bits(src.to(getattr(tc, dt))), ref_bits(x, dt))
    dst = tc.zeros(4099, 2, dtype=getattr(tc, dt))
    dst[:, 1].copy_(tc.from_numpy(x))
    np.testing.assert_array_equal(bits(dst[:, 1]), ref_bits(x, dt))
    back = got.to(tc.float32).numpy()
    expect = (
        ref_bits(x, dt).view(np.float16).astype(np.float32)
        if dt == "float16"
        else (ref_bits(x, dt).astype(np.uint32) << 16).view(np.float32)
    )
    np.testing.assert_array_equal(back, expect)
    np.testing.assert_array_equal(got[::3].to(tc.float32).numpy(), expect[::3])


BINARY_MATH = ("maximum", "minimum", "fmax", "fmin", "pow", "atan2", "hypot", "fmod", "remainder")


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", BINARY_MATH)
def test_binary_math_layouts_agree_and_match_float32(dt, op):
    a = make(edge_values(2051, 14), dt)
    b = make(np.abs(edge_values(2051, 15)) * 0.3 + 0.2, dt)
    f = getattr(tc, op)
    got = f(a, b)
    a2, b2 = make(np.repeat(widened(a), 2), dt)[::2], make(np.repeat(widened(b), 2), dt)[::2]
    np.testing.assert_array_equal(bits(got), bits(f(a2, b2)))
    ref = f(a.to(tc.float32), b.to(tc.float32)).to(getattr(tc, dt))
    w, r = widened(got), widened(ref)
    np.testing.assert_array_equal(np.isnan(w), np.isnan(r))
    np.testing.assert_array_equal(w[~np.isnan(w)], r[~np.isnan(r)])
    # Scalar-broadcast operand.
    np.testing.assert_array_equal(bits(f(a, b[:1].expand(2051))), bits(f(a2, b2[:1].expand(2051))))
