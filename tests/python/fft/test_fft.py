"""tensorcore.fft against numpy.fft: every function, many lengths, all norms, dtypes, layouts."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(0)

# All lengths up to 64, then a sample of primes, prime powers, smooth products, sizes with a
# large prime factor (Bluestein) and large sizes up to 4096.
LENGTHS = list(range(1, 65)) + [
    81,
    97,
    101,
    121,
    125,
    127,
    169,
    210,
    243,
    256,
    257,
    289,
    343,
    360,
    509,
    512,
    625,
    729,
    961,
    1000,
    1021,
    1024,
    1331,
    2039,
    2048,
    2187,
    2310,
    2401,
    3000,
    3125,
    4093,
    4096,
    2 * 1021,
    3 * 1031,
]
NORMS = [None, "backward", "forward", "ortho"]


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def assert_close(actual, expected, dtype=np.float64):
    actual = actual.numpy() if isinstance(actual, tc.Tensor) else actual
    scale = max(1.0, float(np.abs(expected).max())) if np.size(expected) else 1.0
    tol = 1e-11 if dtype in (np.float64, np.complex128) else 3e-5
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=tol * scale)


@pytest.mark.parametrize("n", LENGTHS)
def test_fft_ifft_lengths(n):
    x = crandn(3, n)
    t = tc.from_numpy(x)
    assert_close(tc.fft.fft(t), np.fft.fft(x))
    assert_close(tc.fft.ifft(t), np.fft.ifft(x))


@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_irfft_lengths(n):
    x = RNG.standard_normal((2, n))
    assert_close(tc.fft.rfft(tc.from_numpy(x)), np.fft.rfft(x))
    spec = np.fft.rfft(x)
    assert_close(tc.fft.irfft(tc.from_numpy(spec), n), np.fft.irfft(spec, n))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_norms_and_n(fn, norm):
    real_in = fn in ("rfft", "ihfft")
    for n_in, n in [(16, None), (15, 21), (20, 7), (33, 64), (1, 1)]:
        x = RNG.standard_normal((2, n_in)) if real_in else crandn(2, n_in)
        got = getattr(tc.fft, fn)(tc.from_numpy(x), n=n, norm=norm)
        want = getattr(np.fft, fn)(x, n=n, norm=norm)
        assert_close(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int64])
def test_dtypes_and_promotion(dtype):
    x = (
        (crandn(4, 30) * 10).astype(dtype)
        if np.iscomplexobj(np.zeros(1, dtype))
        else (RNG.standard_normal((4, 30)) * 10).astype(dtype)
    )
    t = tc.from_numpy(x)
    y = tc.fft.fft(t)
    expect_dtype = {
        np.float32: tc.complex64,
        np.float64: tc.complex128,
        np.complex64: tc.complex64,
        np.complex128: tc.complex128,
        np.int64: tc.complex64,
    }[dtype]
    assert y.dtype == expect_dtype
    prec = np.float32 if expect_dtype == tc.complex64 else np.float64
    assert_close(y, np.fft.fft(x.astype(np.complex128)).astype(y.numpy().dtype), prec)
    if not np.iscomplexobj(x):
        r = tc.fft.rfft(t)
        assert r.dtype == expect_dtype
        assert_close(r, np.fft.rfft(x.astype(np.float64)).astype(r.numpy().dtype), prec)
        assert_close(
            tc.fft.ifft(t), np.fft.ifft(x.astype(np.float64)).astype(r.numpy().dtype), prec
        )


def test_float32_accuracy_large():
    for n in (4096, 4093, 44100, 2**16):
        x = RNG.standard_normal(n).astype(np.float32)
        ref = np.fft.fft(x.astype(np.float64))
        got = tc.fft.fft(tc.from_numpy(x)).numpy()
        assert np.abs(got - ref).max() / np.abs(ref).max() < 1e-5
        got_r = tc.fft.rfft(tc.from_numpy(x)).numpy()
        assert np.abs(got_r - ref[: n // 2 + 1]).max() / np.abs(ref).max() < 1e-5


@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_any_dim_and_noncontiguous(dim):
    base = crandn(6, 10, 12)
    x = base[:, ::2, :]  # non-contiguous
    t = tc.from_numpy(base)[:, ::2, :]
    assert not t.is_contiguous()
    assert_close(tc.fft.fft(t, dim=dim), np.fft.fft(x, axis=dim))
    assert_close(tc.fft.ifft(t, n=9, dim=dim), np.fft.ifft(x, n=9, axis=dim))
    xr = base.real[:, ::2, :]
    tr = tc.from_numpy(np.ascontiguousarray(base.real)).transpose(0, 2)
    assert_close(tc.fft.rfft(tr, dim=dim), np.fft.rfft(base.real.transpose(2, 1, 0), axis=dim))
    tr2 = tc.from_numpy(np.ascontiguousarray(base.real))[:, ::2, :]
    assert_close(tc.fft.rfft(tr2, dim=dim), np.fft.rfft(xr, axis=dim))


@pytest.mark.parametrize("norm", NORMS)
def test_multidim(norm):
    x = crandn(4, 6, 10)
    xr = RNG.standard_normal((4, 6, 10))
    t, tr = tc.from_numpy(x), tc.from_numpy(xr)
    assert_close(tc.fft.fft2(t, norm=norm), np.fft.fft2(x, norm=norm))
    assert_close(tc.fft.ifft2(t, norm=norm), np.fft.ifft2(x, norm=norm))
    assert_close(tc.fft.fftn(t, norm=norm), np.fft.fftn(x, norm=norm))
    assert_close(tc.fft.ifftn(t, s=(5, 8), norm=norm), np.fft.ifftn(x, s=(5, 8), norm=norm))
    assert_close(tc.fft.fftn(t, dim=(0, 2), norm=norm), np.fft.fftn(x, axes=(0, 2), norm=norm))
    assert_close(tc.fft.fftn(tr, norm=norm), np.fft.fftn(xr, norm=norm))
    assert_close(tc.fft.rfft2(tr, norm=norm), np.fft.rfft2(xr, norm=norm))
    assert_close(tc.fft.rfftn(tr, s=(3, 7, 9), norm=norm), np.fft.rfftn(xr, s=(3, 7, 9), norm=norm))
    assert_close(tc.fft.rfftn(tr, dim=(2, 0), norm=norm), np.fft.rfftn(xr, axes=(2, 0), norm=norm))
    assert_close(tc.fft.irfft2(t, norm=norm), np.fft.irfft2(x, norm=norm))
    assert_close(tc.fft.irfftn(t, norm=norm), np.fft.irfftn(x, norm=norm))
    assert_close(tc.fft.irfftn(t, s=(6, 9), norm=norm), np.fft.irfftn(x, s=(6, 9), norm=norm))
    assert_close(tc.fft.irfftn(t, dim=(0, 1), norm=norm), np.fft.irfftn(x, axes=(0, 1), norm=norm))


def test_round_trips():
    x = RNG.standard_normal((5, 33))
    t = tc.from_numpy(x)
    assert_close(tc.fft.irfft(tc.fft.rfft(t), 33), x)
    assert_close(tc.fft.ifft(tc.fft.fft(t)).real, x)
    assert_close(tc.fft.hfft(tc.fft.ihfft(t), 33), x)
    assert_close(tc.fft.irfftn(tc.fft.rfftn(t), t.shape), x)


def test_irfft_ignores_imag_of_dc_and_nyquist():
    spec = crandn(8)
    assert_close(tc.fft.irfft(tc.from_numpy(spec)), np.fft.irfft(spec))
    assert_close(tc.fft.irfft(tc.from_numpy(spec), 15), np.fft.irfft(spec, 15))


def test_freq_and_shift():
    for n in (1, 2, 7, 8, 101):
        for d in (1.0, 0.25):
            assert_close(tc.fft.fftfreq(n, d, dtype=tc.float64), np.fft.fftfreq(n, d))
            assert_close(tc.fft.rfftfreq(n, d, dtype=tc.float64), np.fft.rfftfreq(n, d))
    assert tc.fft.fftfreq(4).dtype == tc.get_default_dtype()
    x = RNG.standard_normal((5, 6, 7))
    t = tc.from_numpy(x)
    assert_close(tc.fft.fftshift(t), np.fft.fftshift(x))
    assert_close(tc.fft.ifftshift(t), np.fft.ifftshift(x))
    assert_close(tc.fft.fftshift(t, dim=1), np.fft.fftshift(x, axes=1))
    assert_close(tc.fft.ifftshift(t, dim=(0, 2)), np.fft.ifftshift(x, axes=(0, 2)))


def test_batched_many_rows_threads():
    x = crandn(300, 256)
    old = tc.get_num_threads()
    try:
        for threads in (1, 2):
            tc.set_num_threads(threads)
            assert_close(tc.fft.fft(tc.from_numpy(x)), np.fft.fft(x))
            assert_close(tc.fft.rfft(tc.from_numpy(x.real.copy())), np.fft.rfft(x.real))
    finally:
        tc.set_num_threads(old)


def test_plan_cache():
    tc.fft._impl._clear_plan_cache()
    tc.fft.fft(tc.from_numpy(crandn(100)))
    size = tc.fft._impl._plan_cache_size()
    assert size >= 1
    tc.fft.fft(tc.from_numpy(crandn(100)))
    assert tc.fft._impl._plan_cache_size() == size


def test_errors():
    c = tc.from_numpy(crandn(8))
    with pytest.raises(TypeError, match="rfft expects a real input"):
        tc.fft.rfft(c)
    with pytest.raises(TypeError, match="ihfft expects a real input"):
        tc.fft.ihfft(c)
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        tc.fft.fft(c, norm="bogus")
    with pytest.raises(ValueError, match="Invalid number of data points"):
        tc.fft.fft(c, n=0)
    with pytest.raises(ValueError, match="Invalid number of data points"):
        tc.fft.irfft(tc.from_numpy(crandn(1)))
    with pytest.raises(IndexError):
        tc.fft.fft(c, dim=3)
    with pytest.raises(ValueError, match="unique"):
        tc.fft.fftn(tc.from_numpy(crandn(4, 4)), dim=(0, 0))
    with pytest.raises(ValueError, match="same length"):
        tc.fft.fftn(tc.from_numpy(crandn(4, 4)), s=(4,), dim=(0, 1))
    with pytest.raises(TypeError):
        tc.fft.fft(tc.from_numpy(np.ones(4, np.float16)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_column_lane_path(dtype):
    # Transforms along non-last dims run on blocks of columns as SIMD lanes; cover full blocks,
    # a ragged last block and Bluestein lengths.
    for shape, dim in [((24, 37), 0), ((5, 53, 40), 1), ((97, 3, 16), 0), ((7, 11, 13, 2), 1)]:
        x = crandn(*shape, dtype=dtype)
        prec = np.float32 if dtype == np.complex64 else np.float64
        assert_close(
            tc.fft.fft(tc.from_numpy(x), dim=dim), np.fft.fft(x, axis=dim).astype(dtype), prec
        )
        assert_close(
            tc.fft.ifft(tc.from_numpy(x), dim=dim, norm="ortho"),
            np.fft.ifft(x, axis=dim, norm="ortho").astype(dtype),
            prec,
        )
    x = crandn(64, 48, 40)
    assert_close(tc.fft.fftn(tc.from_numpy(x)), np.fft.fftn(x))


def test_python_threads():
    # The bindings release the GIL while transforming; results stay correct under threads.
    import threading

    xs = [crandn(16, 300 + i) for i in range(6)]
    results = [None] * len(xs)

    def work(i):
        for _ in range(5):
            results[i] = tc.fft.fft(tc.from_numpy(xs[i])).numpy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, r in zip(xs, results):
        assert_close(r, np.fft.fft(x))


@pytest.mark.parametrize("n", [125, 1001, 3125, 4093])
def test_odd_rfft_batches_and_prime_plans(n):
    # Odd rows go through the complex plan two at a time, padded with zero lanes to a full vector
    # for some batch sizes; primes run Rader or Bluestein. Every batch size must agree with numpy.
    for b in (1, 2, 3, 9, 10, 12, 13, 17):
        x = RNG.standard_normal((b, n))
        assert_close(tc.fft.rfft(tc.from_numpy(x)), np.fft.rfft(x))
        y = tc.fft.rfft(tc.from_numpy(x.astype(np.float32))).numpy()
        ref = np.fft.rfft(x)
        assert np.abs(y - ref).max() / np.abs(ref).max() < 3e-6
    algo = tc.fft._impl._plan_algorithm(n)
    assert algo == ("rader" if n == 4093 else "stockham")


@pytest.mark.parametrize("n", [74, 111, 2018, 4097, 16388])
def test_four_step_lengths_any_dim(n):
    # smooth part x large prime: length-a FFTs over lanes, twiddles, then the Rader/Bluestein plan
    assert tc.fft._impl._plan_algorithm(n) == "fourstep"
    for shape, dim in (((3, n), -1), ((n, 5), 0), ((2, n, 3), 1)):
        x = crandn(*shape)
        assert_close(tc.fft.fft(tc.from_numpy(x), dim=dim), np.fft.fft(x, axis=dim))
        assert_close(tc.fft.ifft(tc.from_numpy(x), dim=dim), np.fft.ifft(x, axis=dim))
        got = tc.fft.fft(tc.from_numpy(x.astype(np.complex64)), dim=dim).numpy()
        ref = np.fft.fft(x, axis=dim)
        assert np.abs(got - ref).max() / np.abs(ref).max() < 3e-6
        xr = x.real.copy()
        assert_close(tc.fft.rfft(tc.from_numpy(xr), dim=dim), np.fft.rfft(xr, axis=dim))
