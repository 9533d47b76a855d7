"""float64 erf/erfc run the vectorized vec_math versions (< 1 ulp): values against math.erf/erfc
over the whole range, the erfc tail down to the subnormals, specials, strided and in-place."""

import math

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_erf_erfc_float64_within_one_ulp(name):
    # glibc's own double erfc is up to ~3 ulp off near x = 1.2, so the reference is mpmath.
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    x = np.concatenate(
        [
            RNG.uniform(-7, 28, 3_000),
            RNG.standard_normal(3_000),
            RNG.uniform(26.0, 27.3, 500),  # erfc's subnormal tail
            [0.5, 0.75, 3.0, 6.0, -0.5, -0.75, -3.0, -6.0, 1e-300, 5e-324],
        ]
    )
    ref_fn = getattr(mp, name)
    got = getattr(tc, name)(tc.from_numpy(x)).numpy()
    exact = [ref_fn(mp.mpf(float(v))) for v in x]
    ref = np.array([float(e) for e in exact])
    spacing = np.spacing(np.abs(ref))
    err = np.array([float(abs(mp.mpf(float(g)) - e)) for g, e in zip(got, exact)]) / spacing
    assert err.max() < 1.0
    # Mostly the same doubles as glibc's (which is off by up to 3 ulp in erfc's mid range).
    assert np.mean(got == np.array([getattr(math, name)(float(v)) for v in x])) > 0.6


def test_erf_erfc_float64_specials_and_layouts():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 27.3, -30.0, 6.0])
    e = tc.erf(tc.from_numpy(x)).numpy()
    c = tc.erfc(tc.from_numpy(x)).numpy()
    np.testing.assert_array_equal(e[[0, 2, 3, 7]], [0.0, 1.0, -1.0, 1.0])
    assert math.copysign(1.0, e[1]) == -1.0
    assert np.isnan(e[4]) and np.isnan(c[4])
    np.testing.assert_array_equal(c[[0, 1, 2, 3, 5, 6]], [1.0, 1.0, 0.0, 2.0, 0.0, 2.0])
    y = RNG.standard_normal(4001) * 3
    full = tc.erfc(tc.from_numpy(y)).numpy()
    strided = tc.erfc(tc.from_numpy(np.repeat(y, 3))[::3]).numpy()
    np.testing.assert_array_equal(full, strided)
    t = tc.from_numpy(y.copy())
    t.erf_()
    np.testing.assert_array_equal(t.numpy(), tc.erf(tc.from_numpy(y)).numpy())


def test_gelu_float64_uses_accurate_erf():
    x = RNG.standard_normal(10_000) * 4
    ref = np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])
    got = tc.nn.functional.gelu(tc.from_numpy(x)).numpy()
    # 1 + erf cancels for negative x: compare absolutely at the scale of x.
    np.testing.assert_allclose(got, ref, rtol=4e-16, atol=4e-16 * np.abs(x).max())
