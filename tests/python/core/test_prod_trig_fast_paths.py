"""prod over contiguous runs (double accumulators, software prefetch for runs beyond L2) and
float64 sin/cos/tan (three-piece FMA reduction by pi/2): values against float64 / long double
numpy references, around the kernels' size thresholds, with special values."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(31)


def _ulp32(v):
    return np.spacing(np.float32(abs(v))).astype(np.float64)


def _prod_ref(x):
    # long double product: ~2^-64 per step, far below float32 rounding
    return float(np.prod(x.astype(np.longdouble)))


def test_prod_float32_1m_is_float64_product_rounded():
    x = (1.0 + 1e-3 * RNG.standard_normal(1 << 20)).astype(np.float32)
    got = float(tc.prod(tc.from_numpy(x)).item())
    ref = _prod_ref(x)
    # correctly rounded to float32 (half an ulp, plus the reference's own tiny error)
    assert abs(got - ref) <= 0.5 * _ulp32(ref) * (1 + 1e-6), (got, ref)
    # a float32 accumulation (what PyTorch 1.13 does) misses by many ulps: the check is sharp
    naive = float(np.multiply.reduce(x, dtype=np.float32))
    assert abs(naive - ref) > 4 * _ulp32(ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000, 131071, 131072, 131105, 300001])
def test_prod_sizes_around_thresholds(dtype, n):
    # 131072 float32 = 512 KB, where the prefetching loop starts (65536 for float64)
    x = (1.0 + 1e-2 * RNG.standard_normal(n)).astype(dtype)
    got = float(tc.prod(tc.from_numpy(x)).item())
    ref = _prod_ref(x)
    rtol = 1e-7 if dtype == np.float32 else 1e-12
    assert got == pytest.approx(ref, rel=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prod_special_values_large_runs(dtype):
    n = 200003
    base = (1.0 + 1e-3 * RNG.standard_normal(n)).astype(dtype)
    for pos in (0, 77777, n - 1):
        x = base.copy()
        x[pos] = 0.0
        assert tc.prod(tc.from_numpy(x)).item() == 0.0
        x[pos] = np.inf
        assert tc.prod(tc.from_numpy(x)).item() == np.inf
        x[pos] = np.nan
        assert np.isnan(tc.prod(tc.from_numpy(x)).item())
        x[pos] = 0.0
        x[(pos + 1) % n] = np.inf
        assert np.isnan(tc.prod(tc.from_numpy(x)).item())  # 0 * inf
    # products that leave the float range but stay finite in the double accumulator
    big = np.ones(1 << 18, dtype=dtype)
    big[:64], big[64:128] = 1e30, 1e-30
    assert tc.prod(tc.from_numpy(big)).item() == pytest.approx(_prod_ref(big), rel=1e-6)
    # rows of a 2-D reduction take the same fold
    m = (1.0 + 1e-3 * RNG.standard_normal((3, 150001))).astype(dtype)
    got = tc.prod(tc.from_numpy(m), 1).numpy()
    ref = np.array([_prod_ref(r) for r in m])
    np.testing.assert_allclose(got, ref, rtol=1e-7 if dtype == np.float32 else 1e-12)


# The doubles <= 2^20 closest to a multiple of pi/2 (smallest |x - k pi/2| first).
HARD = [
    float.fromhex(h)
    for h in (
        "0x1.6c6cbc45dc8dep+5",
        "0x1.6c6cbc45dc8dep+11",
        "0x1.39c6fd67805a7p+18",
        "0x1.921fb54442d18p+0",
        "0x1.39c6fd67805a7p+19",
        "0x1.921fb54442d18p+1",
        "0x1.67e57cdd4dc54p+15",
        "0x1.93c05c9ed3cbcp+18",
        "0x1.2d97c7f3321d2p+2",
    )
]


def _ulp_err(got, ref):
    # error in ulps of the long double reference
    ref = ref.astype(np.longdouble)
    ulp = np.spacing(np.abs(ref).astype(np.float64)).astype(np.longdouble)
    return np.abs(got.astype(np.longdouble) - ref) / ulp


@pytest.mark.parametrize("op", ["sin", "cos", "tan"])
def test_trig_float64_accuracy_through_the_library(op):
    x = np.concatenate(
        [
            RNG.standard_normal(100000) * 4,
            RNG.uniform(-(2.0**20), 2.0**20, 100000),
            np.exp2(RNG.uniform(-40, 0, 20000)) * RNG.choice([-1.0, 1.0], 20000),
            np.array(HARD),
            -np.array(HARD),
        ]
    )
    got = getattr(tc, op)(tc.from_numpy(x)).numpy()
    ref = getattr(np, op)(x.astype(np.longdouble))
    err = _ulp_err(got, ref)
    assert float(err.max()) <= (0.8 if op != "tan" else 1.0), x[np.argmax(err)]
    # at the hardest arguments the results are correctly rounded
    k = len(HARD)
    assert float(err[-2 * k :].max()) <= 0.501


def test_trig_float64_large_and_special_arguments():
    x = np.array(
        [
            0.0,
            -0.0,
            2.0**20,
            np.nextafter(2.0**20, np.inf),
            1e22,
            -1e300,
            1e300,
            np.finfo(np.float64).max,
            np.inf,
            -np.inf,
            np.nan,
        ]
        + [0.5] * 300
    )
    for op in ("sin", "cos", "tan"):
        got = getattr(tc, op)(tc.from_numpy(x)).numpy()
        ref = getattr(np, op)(x)
        np.testing.assert_array_max_ulp(got[np.isfinite(ref)], ref[np.isfinite(ref)], maxulp=2)
        assert np.isnan(got[~np.isfinite(ref)]).all()
    s = tc.sin(tc.from_numpy(x)).numpy()
    assert np.signbit(s[1]) and not np.signbit(s[0])


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_trig_float32_correctly_rounded_and_signed_zeros(op):
    # the float kernels compute in double; sin restores -0 on the float result
    x = np.concatenate(
        [
            RNG.standard_normal(200000) * 10,
            RNG.uniform(-(2.0**25), 2.0**25, 50000),
            np.array([0.0, -0.0, 1e-40, -1e-40, 1e-45, -1e-45, 2.0**25, 3e38, -3e38]),
        ]
    ).astype(np.float32)
    got = getattr(tc, op)(tc.from_numpy(x)).numpy().astype(np.float64)
    ref = getattr(np, op)(x.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert float((np.abs(got - ref) / ulp).max()) <= 0.5005
    if op == "sin":
        zeros = x == 0
        assert (np.signbit(got[zeros]) == np.signbit(x[zeros])).all()
