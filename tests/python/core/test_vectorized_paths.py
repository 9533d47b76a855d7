"""float64 math that now runs vec_math's vectorized double versions (log1p, expm1, log2, log10,
exp2, sin/cos/tan, asin/acos/atan, sinh/cosh, atan2) and the vectorized float hypot, sqrt, rsqrt
and floor family: values against numpy within the documented ulp bounds, specials, strided."""

import math

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(5)


def _ulps(got, ref):
    ref = np.asarray(ref)
    scale = np.spacing(np.abs(ref).astype(ref.dtype))
    scale[ref == 0] = np.spacing(ref.dtype.type(0))
    with np.errstate(invalid="ignore"):
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64)) / scale
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    return np.where(same, 0.0, err)


def _libm(fn):
    def ref(x):
        return np.array([fn(v) if np.isfinite(v) else np.nan for v in x])

    return ref


CASES = {
    "log1p": (lambda: np.abs(RNG.standard_normal(20_000)) * 10 - 0.99, np.log1p),
    "expm1": (lambda: RNG.standard_normal(20_000) * 20, np.expm1),
    "log2": (lambda: np.exp(RNG.uniform(-700, 700, 20_000)), np.log2),
    "log10": (lambda: np.exp(RNG.uniform(-700, 700, 20_000)), np.log10),
    "exp2": (lambda: RNG.uniform(-1070, 1020, 20_000), np.exp2),
    # numpy's own SIMD sin/cos/tan are ~3 ulp off here: glibc's scalar ones are the reference.
    "sin": (
        lambda: np.concatenate([RNG.standard_normal(20_000) * 100, [1e7, 3e15, -1e300]]),
        _libm(math.sin),
    ),
    "cos": (
        lambda: np.concatenate([RNG.standard_normal(20_000) * 100, [1e7, 3e15, -1e300]]),
        _libm(math.cos),
    ),
    "tan": (
        lambda: np.concatenate([RNG.standard_normal(20_000) * 100, [1e7, 3e15]]),
        _libm(math.tan),
    ),
    "asin": (lambda: RNG.uniform(-1, 1, 20_000), np.arcsin),
    "acos": (lambda: RNG.uniform(-1, 1, 20_000), np.arccos),
    "atan": (lambda: RNG.standard_normal(20_000) * 50, np.arctan),
    "sinh": (lambda: RNG.uniform(-700, 700, 20_000), np.sinh),
    "cosh": (lambda: RNG.uniform(-700, 700, 20_000), np.cosh),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_vectorized_within_documented_ulps(name):
    gen, ref_fn = CASES[name]
    x = np.concatenate([gen(), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    with np.errstate(all="ignore"):
        ref = ref_fn(x)
    got = getattr(tc, name)(tc.from_numpy(x)).numpy()
    # vec_math's double functions are < 1 ulp; numpy's (glibc) are within ~1 ulp too.
    assert _ulps(got, ref).max() <= 2.0
    strided = getattr(tc, name)(tc.from_numpy(np.repeat(x, 2))[::2]).numpy()
    np.testing.assert_array_equal(strided, got)


def test_atan2_float64():
    y = np.concatenate([RNG.standard_normal(20_000) * 10, [0.0, -0.0, 0.0, -0.0, np.inf, np.nan]])
    x = np.concatenate([RNG.standard_normal(20_000) * 10, [0.0, 0.0, -0.0, -0.0, -np.inf, 1.0]])
    got = tc.atan2(tc.from_numpy(y), tc.from_numpy(x)).numpy()
    assert _ulps(got, np.arctan2(y, x)).max() <= 2.0
    assert np.array_equal(np.signbit(got[-6:-2]), np.signbit(np.arctan2(y[-6:-2], x[-6:-2])))


def test_hypot_float32():
    a = np.concatenate(
        [RNG.standard_normal(20_000) * 1e30, [np.inf, np.nan, -np.inf, 3e38]]
    ).astype(np.float32)
    b = np.concatenate([RNG.standard_normal(20_000) * 1e-30, [np.nan, np.inf, 1.0, 3e38]]).astype(
        np.float32
    )
    got = tc.hypot(tc.from_numpy(a), tc.from_numpy(b)).numpy()
    ref = np.hypot(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, ref)  # one rounding of the double result
    assert got[-4] == np.inf and got[-3] == np.inf  # inf wins over NaN


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sqrt_rsqrt_floor_family(dtype):
    x = np.concatenate(
        [RNG.standard_normal(10_000) * 100, [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0]]
    ).astype(dtype)
    t = tc.from_numpy(x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(tc.sqrt(t).numpy(), np.sqrt(x))
        np.testing.assert_allclose(
            tc.rsqrt(t).numpy(), 1 / np.sqrt(x), rtol=1e-6 if dtype == np.float32 else 1e-15
        )
    for name, ref in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)):
        got = getattr(tc, name)(t).numpy()
        np.testing.assert_array_equal(got, ref(x))
        assert np.array_equal(np.signbit(got), np.signbit(ref(x)))


def test_hypot_float64():
    a = np.concatenate(
        [
            RNG.standard_normal(20_000),
            RNG.standard_normal(2000) * 1e300,
            RNG.standard_normal(2000) * 1e-310,
            [np.inf, np.nan, 0.0, -0.0, 3.0],
        ]
    )
    b = np.concatenate(
        [
            RNG.standard_normal(20_000),
            RNG.standard_normal(2000) * 1e300,
            RNG.standard_normal(2000) * 1e-310,
            [np.nan, -np.inf, -0.0, -0.0, -4.0],
        ]
    )
    got = tc.hypot(tc.from_numpy(a), tc.from_numpy(b)).numpy()
    with np.errstate(all="ignore"):
        ref = np.hypot(a, b)
    assert _ulps(got, ref).max() <= 1.0
    np.testing.assert_array_equal(got[-5:], [np.inf, np.inf, 0.0, 0.0, 5.0])
