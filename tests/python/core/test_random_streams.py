"""The random fills' streams against a NumPy model of them (Philox4x32-10 and the group layout of
tensorcore/kernels/random_math.h), the accuracy of their log / sin / cos against NumPy, their
distributions, and determinism across thread counts, generator states and layouts."""

import math

import numpy as np
import pytest

import tensorcore as tc

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)


def philox_groups(seed, offset, groups):
    """Words of groups 0..groups-1: array [group, word k, lane l] of block 8 g + l."""
    blocks = np.arange(groups * 8, dtype=np.uint64)
    c0, c1 = blocks & MASK, blocks >> np.uint64(32)
    c2 = np.full_like(blocks, offset & 0xFFFFFFFF)
    c3 = np.full_like(blocks, offset >> 32)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for _ in range(10):
        p0, p1 = np.uint64(M0) * c0, np.uint64(M1) * c2
        c0, c1, c2, c3 = (
            (p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
            p1 & MASK,
            (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
            p0 & MASK,
        )
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3]).reshape(4, groups, 8).transpose(1, 0, 2)


def one_word_layout(w, n):
    return w.reshape(-1)[:n]  # value 32 g + 8 k + l is word k of block 8 g + l


def two_word_layout(w, n):
    return w[:, 0::2, :].reshape(-1)[:n], w[:, 1::2, :].reshape(-1)[:n]


def words_for(n, per_group, seed):
    return philox_groups(seed, 0, -(-n // per_group))


def unit_f(w):
    return ((w >> np.uint64(8)).astype(np.float64) * 2.0**-24).astype(np.float32)


def open_unit_f(w):
    hi31 = (w >> np.uint64(1)).astype(np.int64).astype(np.float32).astype(np.float64)
    return (hi31 * 2.0**-31 + 2.0**-32).astype(np.float32)  # the fma, rounded once


def unit_d(hi, lo):
    return ((hi << np.uint64(21)) | (lo >> np.uint64(11))).astype(np.float64) * 2.0**-53


def open_unit_d(hi, lo):
    # (hi 2^33 + 2 lo + 1) 2^-65 rounded once to double (Python's int -> float rounds to nearest)
    return np.array(
        [math.ldexp(float((int(h) << 33) + (int(l) << 1) + 1), -65) for h, l in zip(hi, lo)]
    )


LD_2PI = np.longdouble("6.283185307179586476925286766559005768394")


def sincos_2pi_ref(v):
    """sin and cos of 2 pi v in long double, from the exact reduction v = q/4 + t."""
    v = np.asarray(v, dtype=np.float64)
    q = np.floor(4 * v + 0.5)
    t = (v - q / 4).astype(np.longdouble)  # exact
    s, c = np.sin(LD_2PI * t), np.cos(LD_2PI * t)
    q = q.astype(np.int64) % 4
    sin = np.select([q == 0, q == 1, q == 2, q == 3], [s, c, -s, -c])
    cos = np.select([q == 0, q == 1, q == 2, q == 3], [c, -s, -c, s])
    return sin, cos


def ulp_err(got, ref, dtype):
    ref = np.asarray(ref, dtype=np.longdouble)
    spacing = np.spacing(np.abs(ref.astype(dtype))).astype(np.longdouble)
    return float(np.max(np.abs(got.astype(np.longdouble) - ref) / spacing))


N = 1003  # not a multiple of a group: the partial last group is checked too


def gen(seed):
    return tc.Generator().manual_seed(seed)


# ---- exact streams ------------------------------------------------------------------------------


def test_float32_uniform_stream():
    w = one_word_layout(words_for(N, 32, 11), N)
    got = tc.rand(N, generator=gen(11)).numpy()
    assert np.array_equal(got, unit_f(w))
    got = tc.empty(N).uniform_(-2.0, 3.0, generator=gen(11)).numpy()
    ref = (unit_f(w).astype(np.float64) * 5.0 - 2.0).astype(np.float32)  # fma(span, u, from)
    assert np.array_equal(got, ref)


def test_float64_uniform_stream():
    hi, lo = two_word_layout(words_for(N, 16, 12), N)
    got = tc.rand(N, generator=gen(12), dtype=tc.float64).numpy()
    assert np.array_equal(got, unit_d(hi, lo))


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_bernoulli_stream(p):
    w = one_word_layout(words_for(N, 32, 13), N)
    ref = (w.astype(np.float64) < p * 2.0**32).astype(np.float32)
    assert np.array_equal(tc.empty(N).bernoulli_(p, generator=gen(13)).numpy(), ref)
    probs = np.linspace(0, 1, N)
    got = tc.bernoulli(tc.tensor(probs), generator=gen(13)).numpy()
    assert np.array_equal(got, (w.astype(np.float64) < probs * 2.0**32).astype(np.float64))


def test_randint_stream():
    hi, lo = two_word_layout(words_for(N, 16, 14), N)
    for low, high in [(0, 10), (-5, 1000), (0, 2**40 + 3)]:
        r = high - low
        ref = [low + ((((int(h) << 32) | int(l)) * r) >> 64) for h, l in zip(hi, lo)]
        got = tc.randint(low, high, (N,), generator=gen(14)).numpy()
        assert got.tolist() == ref


# ---- normal / exponential against long-double references ---------------------------------------


def test_float32_normal_accuracy():
    n = 20000
    w = words_for(n, 32, 15)
    u1, v = open_unit_f(w[:, 0::2, :]).astype(np.float64), unit_f(w[:, 1::2, :])
    r = np.sqrt(-2 * np.log(u1.astype(np.longdouble)))
    s, c = sincos_2pi_ref(v)
    ref = np.stack([r * c, r * s], axis=2).reshape(-1)[:n]  # [g, j, cos/sin, l]
    got = tc.randn(n, generator=gen(15)).numpy()
    assert ulp_err(got, ref, np.float32) <= 2.5  # measured 2.21


def test_float64_normal_accuracy():
    n = 8000
    w = words_for(n, 16, 16)
    u1 = open_unit_d(w[:, 0, :].reshape(-1), w[:, 1, :].reshape(-1)).reshape(-1, 8)
    v = unit_d(w[:, 2, :], w[:, 3, :])
    r = np.sqrt(-2 * np.log(u1.astype(np.longdouble)))
    s, c = sincos_2pi_ref(v)
    ref = np.stack([r * c, r * s], axis=1).reshape(-1)[:n]  # [g, cos/sin, l]
    got = tc.randn(n, generator=gen(16), dtype=tc.float64).numpy()
    assert ulp_err(got, ref, np.float64) <= 2.5  # measured 2.19


def test_exponential_accuracy():
    n = 4000
    w = one_word_layout(words_for(n, 32, 17), n)
    ref = -np.log(open_unit_f(w).astype(np.longdouble)) / 2.5
    got = tc.empty(n).exponential_(2.5, generator=gen(17)).numpy()
    assert ulp_err(got, ref, np.float32) <= 2.0
    hi, lo = two_word_layout(words_for(n, 16, 17), n)
    ref = -np.log(open_unit_d(hi, lo).astype(np.longdouble)) * (1 / 2.5)
    got = tc.empty(n, dtype=tc.float64).exponential_(2.5, generator=gen(17)).numpy()
    assert ulp_err(got, ref, np.float64) <= 2.0


# ---- the kernels' log / sin / cos on dense grids -------------------------------------------------


def test_log_unit_float32_grid():
    # every 331st float in [2^-32, 1]: all exponents, dense mantissas
    bits = np.arange(np.float32(2.0**-32).view(np.int32), np.float32(1.0).view(np.int32) + 1, 331)
    u = np.append(bits.astype(np.int32).view(np.float32), np.float32(1.0))
    got = tc._C._random_math_probe("log", tc.tensor(u)).numpy()
    ref = np.log(u.astype(np.longdouble))
    assert got[-1] == 0.0
    assert ulp_err(got[:-1], ref[:-1], np.float32) <= 1.2  # measured 1.13


def test_log_unit_float64_grid():
    rng = np.random.default_rng(0)
    u = np.concatenate(
        [
            rng.random(200_000) ** 8 + 2.0**-65,  # all exponents down to 2^-65
            1 - rng.random(50_000) * 2.0**-20,  # near 1, where the log is small
            np.float64(np.sqrt(0.5)) + (np.arange(-500, 500) * 2.0**-52),  # the split point
        ]
    )
    got = tc._C._random_math_probe("log", tc.tensor(u)).numpy()
    ref = np.log(u.astype(np.longdouble))
    assert ulp_err(got, ref, np.float64) <= 1.2  # measured 1.10


def check_sincos_2pi(v):
    """sin/cos(2 pi v) of the probe: exact zeros where the reference is 0, else within 1.1 ulp."""
    ref_s, ref_c = sincos_2pi_ref(v)
    for fn, ref in (("sin", ref_s), ("cos", ref_c)):
        got = tc._C._random_math_probe(fn, tc.tensor(v)).numpy()
        nz = ref != 0
        assert np.all(got[~nz] == 0)
        assert ulp_err(got[nz], ref[nz], v.dtype.type) <= 1.1


def test_sincos_2pi_float32_grid():
    v = (np.arange(0, 2**24, 29) * 2.0**-24).astype(np.float32)  # every 29th point of the grid
    check_sincos_2pi(v)  # measured 1.02 ulp


def test_sincos_2pi_float64_grid():
    rng = np.random.default_rng(1)
    k = np.concatenate(
        [
            rng.integers(0, 2**53, 300_000),
            np.arange(-2000, 2000) + 2**51,  # around v = 1/4 (cos 0), 1/2, 3/4
            np.arange(0, 2000) + 2**52,
            np.arange(-2000, 2000) + 3 * 2**51,
            2**53 - 1 - np.arange(2000),
            np.arange(1, 2000),
        ]
    ).astype(np.int64)
    v = k.astype(np.float64) * 2.0**-53
    check_sincos_2pi(v)  # measured 1.04 ulp


def test_probe_rejects_bad_input():
    with pytest.raises(TypeError):
        tc._C._random_math_probe("log", tc.ones(3, dtype=tc.int32))
    with pytest.raises(ValueError):
        tc._C._random_math_probe("tan", tc.ones(3))


# ---- distributions ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_moments_and_ks(dtype):
    stats = pytest.importorskip("scipy.stats")
    g = gen(21)
    n = 40_000
    dt = getattr(tc, dtype)
    tol = 0.02 if dtype in ("float32", "float64") else 0.03
    z = tc.empty(n, dtype=dt).normal_(1.5, 2.0, generator=g).float().numpy().astype(np.float64)
    assert abs(z.mean() - 1.5) < 4 * 2.0 / math.sqrt(n)
    assert abs(z.std() / 2.0 - 1) < tol
    u = tc.empty(n, dtype=dt).uniform_(-1.0, 3.0, generator=g).float().numpy().astype(np.float64)
    assert u.min() >= -1.0 and u.max() < 3.0
    e = tc.empty(n, dtype=dt).exponential_(0.5, generator=g).float().numpy().astype(np.float64)
    assert e.min() >= 0 and abs(e.mean() / 2.0 - 1) < 4 / math.sqrt(n) + 0.01
    if dtype in ("float32", "float64"):  # 16-bit values are too coarse for a KS test
        assert stats.kstest(z, "norm", args=(1.5, 2.0)).pvalue > 1e-3
        assert stats.kstest(u, "uniform", args=(-1.0, 4.0)).pvalue > 1e-3
        assert stats.kstest(e, "expon", args=(0, 2.0)).pvalue > 1e-3
        # the Box-Muller pair halves are independent normals too
        zz = tc.randn(n, generator=g, dtype=dt).numpy().astype(np.float64)
        assert abs(np.corrcoef(zz[:-1], zz[1:])[0, 1]) < 4 / math.sqrt(n)


def test_normal_tail():
    # P(|z| > 4.5) = 6.8e-6: about 14 of 2M values; a truncated radius would show none
    z = tc.randn(2_000_000, generator=gen(22)).numpy()
    assert np.abs(z).max() > 4.5
    assert np.isfinite(z).all()


def test_randint_and_bernoulli_frequencies():
    stats = pytest.importorskip("scipy.stats")
    r = tc.randint(0, 7, (70_000,), generator=gen(23)).numpy()
    assert stats.chisquare(np.bincount(r, minlength=7)).pvalue > 1e-3
    b = tc.empty(50_000, dtype=tc.float64).bernoulli_(0.2, generator=gen(23)).numpy()
    assert abs(b.mean() - 0.2) < 4 * math.sqrt(0.16 / 50_000)


# ---- determinism --------------------------------------------------------------------------------

FILLS = [
    ("normal_", tc.float32),
    ("normal_", tc.float64),
    ("uniform_", tc.float32),
    ("uniform_", tc.bfloat16),
    ("exponential_", tc.float64),
    ("bernoulli_", tc.float32),
    ("random_", tc.int64),
]


@pytest.mark.parametrize("op,dtype", FILLS)
def test_thread_count_does_not_change_values(op, dtype):
    n = 600_001  # above the serial cut-off: two threads split it
    before = tc.get_num_threads()
    try:
        out = []
        for threads in (1, 2):
            tc.set_num_threads(threads)
            x = tc.empty(n, dtype=dtype)
            getattr(x, op)(generator=gen(31))
            out.append(x.float().numpy() if dtype == tc.bfloat16 else x.numpy())
    finally:
        tc.set_num_threads(before)
    assert np.array_equal(out[0], out[1])


def test_state_save_restore_and_offsets():
    g = gen(41)
    state = g.get_state()
    a = tc.randn(1000, generator=g)
    b = tc.randn(1000, generator=g)
    assert not np.array_equal(a.numpy(), b.numpy())
    g.set_state(state)
    assert np.array_equal(tc.randn(1000, generator=g).numpy(), a.numpy())
    assert np.array_equal(tc.randn(1000, generator=g).numpy(), b.numpy())
    # value i depends only on (seed, offset, i): a longer fill starts with the shorter one
    assert np.array_equal(tc.randn(5000, generator=gen(41)).numpy()[:1000], a.numpy())


@pytest.mark.parametrize("op", ["normal_", "uniform_", "exponential_", "bernoulli_"])
def test_noncontiguous_output_same_values(op):
    base = tc.zeros(40, 50)
    view = base.t()  # (50, 40), not contiguous
    getattr(view, op)(generator=gen(51))
    ref = getattr(tc.empty(50, 40), op)(generator=gen(51))
    assert np.array_equal(view.numpy(), ref.numpy())
    strided = tc.zeros(2000)[::2]
    getattr(strided, op)(generator=gen(52))
    assert np.array_equal(strided.numpy(), getattr(tc.empty(1000), op)(generator=gen(52)).numpy())
