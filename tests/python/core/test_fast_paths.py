"""Vectorized CPU fast paths (float-lane sum cascade, amax/amin runs, blocked transpose copy)
checked against NumPy float64 references over odd sizes, tails, non-contiguous inputs and NaNs."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(1234)

SIZES = [1, 7, 31, 32, 33, 2047, 2048, 2049, 4096 + 17, 100_003, (1 << 20) + 5]


@pytest.mark.parametrize("n", SIZES)
def test_sum_mean_f32_accuracy(n):
    a = RNG.standard_normal(n).astype(np.float32) + 3.0  # nonzero mean: stresses accumulation
    ref = a.astype(np.float64).sum()
    got = tc.from_numpy(a).sum().item()
    # Float-lane cascade: error must stay at float32 rounding of the result, far below naive
    # sequential float summation on the large sizes.
    assert abs(got - ref) <= 4e-7 * abs(ref) * max(1.0, np.log2(n) / 4) + 1e-6
    assert abs(tc.from_numpy(a).mean().item() - ref / n) <= 1e-6 * abs(ref / n) + 1e-7


def test_sum_f32_large_uniform_is_accurate():
    # 16M copies of 0.1: a sequential float sum is off by ~10%; pairwise blocks keep ~1e-6.
    n = 1 << 24
    a = np.full(n, 0.1, dtype=np.float32)
    got = tc.from_numpy(a).sum().item()
    ref = float(np.float32(0.1)) * n
    assert abs(got - ref) / ref < 1e-6


@pytest.mark.parametrize("threads", [1, 2])
def test_sum_f32_threads_agree(threads):
    old = tc.get_num_threads()
    try:
        tc.set_num_threads(threads)
        a = RNG.standard_normal(3_000_001).astype(np.float32)
        ref = a.astype(np.float64).sum()
        assert abs(tc.from_numpy(a).sum().item() - ref) < 1e-3
    finally:
        tc.set_num_threads(old)


@pytest.mark.parametrize("shape", [(5, 3), (64, 1024), (37, 2051), (3, 1)])
@pytest.mark.parametrize("layout", ["contig", "transposed", "strided"])
def test_rowwise_and_columnwise_sum_amax(shape, layout):
    a = RNG.standard_normal(shape).astype(np.float32)
    if layout == "contig":
        t, ref = tc.from_numpy(a), a
    elif layout == "transposed":
        t, ref = tc.from_numpy(np.ascontiguousarray(a.T)).t(), a
    else:
        big = np.repeat(a, 2, axis=1)
        t, ref = tc.from_numpy(big)[:, ::2], a
    r64 = ref.astype(np.float64)
    for dim in (0, 1, -1):
        np.testing.assert_allclose(t.sum(dim).numpy(), r64.sum(dim), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(
            t.mean(dim, keepdim=True).numpy(), r64.mean(dim, keepdims=True), rtol=1e-5, atol=1e-6
        )
        np.testing.assert_array_equal(t.amax(dim).numpy(), ref.max(dim))
        np.testing.assert_array_equal(t.amin(dim).numpy(), ref.min(dim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 129, 1000, 65537])
def test_amax_amin_nan_and_extremes(dtype, n):
    a = RNG.standard_normal(n).astype(dtype)
    t = tc.from_numpy(a)
    assert t.amax().item() == a.max() and t.amin().item() == a.min()
    if n > 1:
        a[n // 2 + 1] = np.inf
        a[0] = -np.inf
        t = tc.from_numpy(a)
        assert t.amax().item() == np.inf and t.amin().item() == -np.inf
    for pos in {0, n - 1, n // 3}:
        b = a.copy()
        b[pos] = np.nan
        tb = tc.from_numpy(b)
        assert np.isnan(tb.amax().item()) and np.isnan(tb.amin().item())
        assert np.isnan(tb.reshape(1, n).amax(1).numpy()).all()


@pytest.mark.parametrize("np_dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(8, 8), (33, 65), (4096 // 8, 300), (1, 50)])
def test_transposed_copy(np_dtype, shape):
    a = (RNG.standard_normal(shape) * 50).astype(np_dtype)
    if np.iscomplexobj(a):
        a = a + 1j * RNG.standard_normal(shape)
    t = tc.from_numpy(a).t()
    np.testing.assert_array_equal(t.contiguous().numpy(), a.T)
    # Into an existing (non-contiguous) destination: copy_ with transposed strides both ways.
    dst = tc.from_numpy(np.zeros(shape[::-1], dtype=a.dtype).T.copy()).t()
    dst.copy_(tc.from_numpy(np.ascontiguousarray(a.T)))
    np.testing.assert_array_equal(dst.numpy(), a.T)


def test_transposed_copy_batched_and_sliced():
    a = RNG.standard_normal((3, 70, 45)).astype(np.float32)
    t = tc.from_numpy(a).transpose(1, 2)
    np.testing.assert_array_equal(t.contiguous().numpy(), a.transpose(0, 2, 1))
    s = tc.from_numpy(a)[:, 5:60, 3:40].transpose(1, 2)
    np.testing.assert_array_equal(s.contiguous().numpy(), a[:, 5:60, 3:40].transpose(0, 2, 1))
    big = RNG.standard_normal((1000, 777)).astype(np.float32)
    np.testing.assert_array_equal(tc.from_numpy(big).t().contiguous().numpy(), big.T)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000, 65_541])
def test_exp_f32_ulp_contiguous_and_strided(n):
    a = np.concatenate([RNG.uniform(-104, 88.7, n), [0.0, -0.0, 88.7, -87.5, -103.9, 1e-30]])
    a = a.astype(np.float32)
    ref = np.exp(a.astype(np.float64))
    for t in (tc.from_numpy(a), tc.from_numpy(np.repeat(a, 2))[::2]):
        got = t.exp().numpy().astype(np.float64)
        ulp = np.spacing(ref.astype(np.float32)).astype(np.float64)
        assert np.all(np.abs(got - ref) <= 1.0 * ulp)
    special = tc.tensor([np.inf, -np.inf, np.nan, 89.0, -104.0], dtype=tc.float32).exp().numpy()
    assert special[0] == np.inf and special[1] == 0 and np.isnan(special[2])
    assert special[3] == np.inf and special[4] == 0


def test_softmax_like_composite_matches_numpy():
    x = RNG.standard_normal((257, 1031)).astype(np.float32) * 10
    t = tc.from_numpy(x)
    e = (t - t.amax(-1, keepdim=True)).exp()
    got = (e / e.sum(-1, keepdim=True)).numpy()
    x64 = x.astype(np.float64)
    e64 = np.exp(x64 - x64.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e64 / e64.sum(-1, keepdims=True), rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "erf", "expm1", "log1p"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_vectorized_paths(name, dtype):
    import math

    x = np.concatenate([RNG.standard_normal(10_007) * 4, [0.0, -0.0, 30.0, -30.0, 1e-8]])
    if name == "log1p":
        x = np.abs(x)
    x = x.astype(dtype)
    ref_fn = {
        "sigmoid": lambda v: 1.0 / (1.0 + math.exp(-v)),
        "tanh": math.tanh,
        "erf": math.erf,
        "expm1": math.expm1,
        "log1p": math.log1p,
    }[name]
    ref = np.array([ref_fn(float(v)) for v in x])
    tol = 2e-7 if dtype == np.float32 else 1e-15
    for t in (tc.from_numpy(x), tc.from_numpy(np.repeat(x, 2))[::2]):
        got = getattr(tc, name)(t).numpy().astype(np.float64)
        np.testing.assert_allclose(got, ref, rtol=tol, atol=1e-30)
