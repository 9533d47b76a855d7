"""exp and sigmoid on contiguous float32/float64 run vec_math's guarded array loops: the results
must equal the strided (scalar) path bit for bit, in place too, including blocks that hold
overflowing, underflowing, infinite or NaN elements, and match numpy within an ulp or two."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(3)


def _inputs(dtype):
    big = 800.0 if dtype == np.float64 else 100.0
    x = RNG.standard_normal(50_000) * 4
    x[::1000] = RNG.uniform(-big, big, x[::1000].shape)
    x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, np.nan, big, -big]])
    return x.astype(dtype)


@pytest.mark.parametrize("name", ["exp", "sigmoid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_contiguous_equals_strided_and_inplace(name, dtype):
    x = _inputs(dtype)
    fn = getattr(tc, name)
    contiguous = fn(tc.from_numpy(x)).numpy()
    strided = fn(tc.from_numpy(np.repeat(x, 2))[::2]).numpy()
    np.testing.assert_array_equal(contiguous, strided)
    t = tc.from_numpy(x.copy())
    getattr(t, name + "_")()
    np.testing.assert_array_equal(t.numpy(), contiguous)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_against_numpy(dtype):
    x = _inputs(dtype)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        ref_exp = np.exp(x64)
        ref_sig = np.where(x64 >= 0, 1 / (1 + np.exp(-x64)), np.exp(x64) / (1 + np.exp(x64)))
    got_exp = tc.exp(tc.from_numpy(x)).numpy().astype(np.float64)
    got_sig = tc.sigmoid(tc.from_numpy(x)).numpy().astype(np.float64)
    rtol = 3e-7 if dtype == np.float32 else 5e-16
    with np.errstate(all="ignore"):
        ref_exp = ref_exp.astype(dtype).astype(np.float64)
    np.testing.assert_allclose(got_exp, ref_exp, rtol=rtol, atol=0)
    # sigmoid: one plain division (PyTorch's accuracy class, ~2.4 ulp); subnormal results are
    # compared at the subnormal spacing.
    tiny = 3e-45 if dtype == np.float32 else 1e-323
    np.testing.assert_allclose(got_sig, ref_sig, rtol=4 * rtol, atol=tiny)
