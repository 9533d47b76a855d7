"""tc.fft on CUDA tensors (cuFFT) against NumPy and the CPU engine: every function, many sizes
(primes, powers of two, Bluestein-sized lengths), batched, arbitrary dims, non-contiguous inputs,
all norm modes; gradients against the CPU's; the plan cache; stft/istft. Skipped without a GPU
(tests marked nogpu check the API of a build or machine without one)."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(7)
NORMS = [None, "forward", "ortho"]
SIZES = [1, 2, 3, 5, 7, 8, 16, 17, 64, 97, 100, 128, 243, 256, 1000, 1024, 4093, 4096, 44100]
TOL = {
    tc.float32: dict(rtol=2e-4, atol=2e-4),
    tc.float64: dict(rtol=1e-10, atol=1e-10),
    tc.complex64: dict(rtol=2e-4, atol=2e-4),
    tc.complex128: dict(rtol=1e-10, atol=1e-10),
}


def real_np(*shape):
    return RNG.standard_normal(shape)


def complex_np(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def check(gpu, ref, dtype, scale=1.0):
    """gpu: a CUDA result; ref: NumPy array (complex128/float64). Tolerance scales with the
    magnitude (FFT errors grow like eps * sqrt(n) * |x|)."""
    assert gpu.is_cuda, "the result should stay on the GPU"
    g = gpu.cpu().numpy()
    assert g.shape == ref.shape, (g.shape, ref.shape)
    tol = TOL[dtype]
    mag = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    np.testing.assert_allclose(g, ref, rtol=tol["rtol"], atol=tol["atol"] * mag * scale)


def to_cuda(a, dtype):
    return tc.from_numpy(np.ascontiguousarray(a)).to(dtype).cuda()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [tc.complex64, tc.complex128])
def test_fft_ifft_sizes(n, dtype):
    a = complex_np(3, n)
    x = to_cuda(a, dtype)
    for norm in NORMS:
        check(tc.fft.fft(x, norm=norm), np.fft.fft(a, norm=norm), dtype)
        check(tc.fft.ifft(x, norm=norm), np.fft.ifft(a, norm=norm), dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_rfft_irfft_sizes(n, dtype):
    a = real_np(4, n)
    x = to_cuda(a, dtype)
    cdt = tc.complex64 if dtype == tc.float32 else tc.complex128
    for norm in NORMS:
        X = tc.fft.rfft(x, norm=norm)
        assert X.dtype == cdt
        check(X, np.fft.rfft(a, norm=norm), cdt)
        spec = np.fft.rfft(a, norm=norm)
        check(
            tc.fft.irfft(to_cuda(spec, cdt), n=n, norm=norm),
            np.fft.irfft(spec, n=n, norm=norm),
            dtype,
        )
        # fft of a real input: the full (two-sided) spectrum
        check(tc.fft.fft(x, norm=norm), np.fft.fft(a, norm=norm), cdt)


@pytest.mark.parametrize("n", [8, 9, 15, 16])
def test_irfft_ignores_dc_nyquist_imag(n):
    spec = complex_np(2, n // 2 + 1)  # imaginary DC/Nyquist parts: ignored as by numpy
    for dtype in (tc.complex64, tc.complex128):
        rdt = tc.float32 if dtype == tc.complex64 else tc.float64
        x = to_cuda(spec, dtype)
        check(tc.fft.irfft(x, n=n), np.fft.irfft(spec, n=n), rdt)
        assert np.array_equal(x.cpu().numpy(), spec.astype(x.cpu().numpy().dtype)), "input modified"


@pytest.mark.parametrize("fn", ["hfft", "ihfft"])
@pytest.mark.parametrize("n", [None, 7, 16])
def test_hfft_ihfft(fn, n):
    if fn == "hfft":
        a = complex_np(3, 9)
        x = to_cuda(a, tc.complex128)
        check(tc.fft.hfft(x, n=n), np.fft.hfft(a, n=n), tc.float64)
    else:
        a = real_np(3, 10)
        x = to_cuda(a, tc.float64)
        check(tc.fft.ihfft(x, n=n), np.fft.ihfft(a, n=n), tc.complex128)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_fft_along_any_dim(dim):
    a = complex_np(6, 10, 12)
    x = to_cuda(a, tc.complex128)
    check(tc.fft.fft(x, dim=dim), np.fft.fft(a, axis=dim), tc.complex128)
    r = real_np(6, 10, 12)
    xr = to_cuda(r, tc.float64)
    check(tc.fft.rfft(xr, dim=dim), np.fft.rfft(r, axis=dim), tc.complex128)
    spec = np.fft.rfft(r, axis=dim)
    n = r.shape[dim]
    check(
        tc.fft.irfft(to_cuda(spec, tc.complex128), n=n, dim=dim),
        np.fft.irfft(spec, n=n, axis=dim),
        tc.float64,
    )


@pytest.mark.parametrize("n", [None, 5, 20])
def test_n_pads_and_trims(n):
    a = complex_np(4, 12)
    x = to_cuda(a, tc.complex64)
    check(tc.fft.fft(x, n=n), np.fft.fft(a, n=n), tc.complex64)
    r = real_np(4, 12)
    check(tc.fft.rfft(to_cuda(r, tc.float32), n=n), np.fft.rfft(r, n=n), tc.complex64)


@pytest.mark.parametrize("norm", NORMS)
def test_fft2_fftn_rfftn_irfftn(norm):
    a = complex_np(3, 8, 10, 6)
    x = to_cuda(a, tc.complex128)
    check(tc.fft.fft2(x, norm=norm), np.fft.fft2(a, norm=norm), tc.complex128)
    check(tc.fft.ifft2(x, norm=norm), np.fft.ifft2(a, norm=norm), tc.complex128)
    check(tc.fft.fftn(x, norm=norm), np.fft.fftn(a, norm=norm), tc.complex128)  # 4 dims: two plans
    check(
        tc.fft.ifftn(x, dim=(0, 2), norm=norm),
        np.fft.ifftn(a, axes=(0, 2), norm=norm),
        tc.complex128,
    )
    check(
        tc.fft.fftn(x, s=(5, 12), dim=(3, 1), norm=norm),
        np.fft.fftn(a, s=(5, 12), axes=(3, 1), norm=norm),
        tc.complex128,
    )
    r = real_np(3, 8, 10, 6)
    xr = to_cuda(r, tc.float64)
    check(tc.fft.rfft2(xr, norm=norm), np.fft.rfft2(r, norm=norm), tc.complex128)
    check(tc.fft.rfftn(xr, norm=norm), np.fft.rfftn(r, norm=norm), tc.complex128)
    check(
        tc.fft.rfftn(xr, dim=(2, 0), norm=norm),
        np.fft.rfftn(r, axes=(2, 0), norm=norm),
        tc.complex128,
    )
    check(tc.fft.fftn(xr, norm=norm), np.fft.fftn(r, norm=norm), tc.complex128)
    spec = np.fft.rfftn(r, norm=norm)
    check(
        tc.fft.irfftn(to_cuda(spec, tc.complex128), s=r.shape, norm=norm),
        np.fft.irfftn(spec, s=r.shape, norm=norm),
        tc.float64,
    )
    spec2 = np.fft.rfft2(r, norm=norm)
    check(
        tc.fft.irfft2(to_cuda(spec2, tc.complex128), s=(10, 6), norm=norm),
        np.fft.irfft2(spec2, s=(10, 6), norm=norm),
        tc.float64,
    )


def test_non_contiguous_inputs():
    a = complex_np(16, 24)
    x = to_cuda(a, tc.complex64)
    check(tc.fft.fft(x.t()), np.fft.fft(a.T), tc.complex64)
    check(tc.fft.fft(x[::2, 1::3]), np.fft.fft(a[::2, 1::3]), tc.complex64)
    check(tc.fft.fft2(x.t()), np.fft.fft2(a.T), tc.complex64)
    r = real_np(16, 24)
    xr = to_cuda(r, tc.float32)
    check(tc.fft.rfft(xr.t()), np.fft.rfft(r.T), tc.complex64)
    check(tc.fft.rfft(xr[:, 1:]), np.fft.rfft(r[:, 1:]), tc.complex64)  # misaligned start
    check(tc.fft.rfft(xr[1:, ::2], dim=0), np.fft.rfft(r[1:, ::2], axis=0), tc.complex64)
    spec = np.fft.rfft(r)
    xs = to_cuda(spec, tc.complex64)
    check(tc.fft.irfft(xs.t().contiguous().t(), n=24), np.fft.irfft(spec, n=24), tc.float32)


def test_batched_large():
    a = real_np(8, 1 << 16)
    x = to_cuda(a, tc.float32)
    check(tc.fft.rfft(x), np.fft.rfft(a), tc.complex64, scale=4)
    c = complex_np(2, 1 << 20)
    check(tc.fft.fft(to_cuda(c, tc.complex64)), np.fft.fft(c), tc.complex64, scale=8)


def test_integer_and_half_inputs():
    a = RNG.integers(-5, 5, size=(3, 16))
    x = tc.from_numpy(a).cuda()
    out = tc.fft.fft(x)
    assert out.dtype == tc.complex64
    check(out, np.fft.fft(a), tc.complex64)
    r = real_np(2, 64)
    h = tc.from_numpy(r).to(tc.float16).cuda()
    out = tc.fft.rfft(h)  # half precision computes in float32 (no complex32 dtype)
    assert out.dtype == tc.complex64
    ref = np.fft.rfft(h.cpu().to(tc.float64).numpy())
    check(out, ref, tc.complex64)
    with pytest.raises(TypeError):
        tc.fft.rfft(tc.from_numpy(r).to(tc.float16))  # the CPU rejects half, as torch does


def test_empty_and_errors():
    x = tc.zeros(0, 8, dtype=tc.complex64, device="cuda")
    assert tuple(tc.fft.fft(x).shape) == (0, 8)
    assert tuple(tc.fft.rfft(tc.zeros(0, 8, device="cuda")).shape) == (0, 5)
    with pytest.raises(ValueError, match="Invalid number of data points"):
        tc.fft.fft(tc.zeros(4, device="cuda"), n=0)
    with pytest.raises(ValueError, match="normalization"):
        tc.fft.fft(tc.zeros(4, device="cuda"), norm="x")
    with pytest.raises(TypeError, match="real input"):
        tc.fft.rfft(tc.zeros(4, dtype=tc.complex64, device="cuda"))


@pytest.mark.parametrize(
    "fn",
    [
        "fft",
        "ifft",
        "rfft",
        "irfft",
        "hfft",
        "ihfft",
        "fft2",
        "rfft2",
        "irfft2",
        "fftn",
        "ifftn",
        "rfftn",
        "irfftn",
    ],
)
@pytest.mark.parametrize("norm", NORMS)
def test_gradients_match_cpu(fn, norm):
    f = getattr(tc.fft, fn)
    real_in = fn in ("rfft", "ihfft", "rfft2", "rfftn")
    shape = (3, 6, 10)
    a = real_np(*shape) if real_in else complex_np(*shape)
    grads, w_np = [], None
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(a).to(device).requires_grad_()
        y = f(x, norm=norm)
        w_np = real_np(*y.shape) if w_np is None else w_np  # the same weights on both devices
        w = tc.from_numpy(w_np).to(device)
        loss = (
            (tc.view_as_real(y.contiguous()).sum(-1) * w).sum() if y.is_complex() else (y * w).sum()
        )
        loss.backward()
        assert x.grad.device.type == device
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-9)


def test_double_backward_on_cuda():
    x = tc.from_numpy(real_np(2, 8)).cuda().requires_grad_()
    y = tc.fft.rfft(x)
    (g,) = tc.autograd.grad(tc.view_as_real(y).pow(2).sum(), x, create_graph=True)
    g.sum().backward()
    xc = tc.from_numpy(x.detach().cpu().numpy()).requires_grad_()
    (gc,) = tc.autograd.grad(tc.view_as_real(tc.fft.rfft(xc)).pow(2).sum(), xc, create_graph=True)
    gc.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_stft_istft_on_cuda():
    sig = real_np(2, 4000)
    w = tc.hann_window(400, dtype=tc.float64)
    for window in (w, None):
        cpu = tc.stft(tc.from_numpy(sig), 400, hop_length=160, window=window, return_complex=True)
        gpu = tc.stft(
            tc.from_numpy(sig).cuda(),
            400,
            hop_length=160,
            window=None if window is None else window.cuda(),
            return_complex=True,
        )
        check(gpu, cpu.numpy(), tc.complex128)
    spec = tc.stft(
        tc.from_numpy(sig).cuda(), 400, hop_length=160, window=w.cuda(), return_complex=True
    )
    back = tc.istft(spec, 400, hop_length=160, window=w.cuda(), length=4000)
    check(back, sig, tc.float64)
    # win_length < n_fft and no window: the ones window must live on the GPU too
    back = tc.istft(
        tc.stft(tc.from_numpy(sig).cuda(), 256, hop_length=64, win_length=200, return_complex=True),
        256,
        hop_length=64,
        win_length=200,
        length=4000,
    )
    check(back, sig, tc.float64)


def test_stft_gradients_match_cpu():
    sig = real_np(1, 1200)
    grads = []
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(sig).to(device).requires_grad_()
        w = tc.hann_window(256, dtype=tc.float64, device=device)
        s = tc.stft(x, 256, hop_length=64, window=w, return_complex=True)
        y = tc.istft(s * 0.5, 256, hop_length=64, window=w, length=1200)
        (tc.view_as_real(s.contiguous()).pow(2).sum() + y.pow(2).sum()).backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-9)


def test_plan_cache():
    cache = tc.backends.cuda.cufft_plan_cache
    cache.clear()
    assert cache.size == 0
    default = cache.max_size
    assert default == 4096
    x = tc.randn(4, 128, device="cuda")
    tc.fft.rfft(x)
    assert cache.size == 1
    tc.fft.rfft(x)  # same shape: the cached plan
    assert cache.size == 1
    tc.fft.rfft(tc.randn(4, 96, device="cuda"))
    tc.fft.fft(tc.randn(4, 128, device="cuda").to(tc.complex64))
    assert cache.size == 3
    cache.max_size = 2  # shrinking evicts the least recently used
    assert cache.size == 2 and cache.max_size == 2
    for n in (10, 11, 12, 13):
        tc.fft.fft(tc.randn(3, n, device="cuda").to(tc.complex64))
    assert cache.size == 2
    cache.max_size = 0  # caching off: transforms still work
    check(tc.fft.fft(tc.from_numpy(np.eye(4)).cuda()), np.fft.fft(np.eye(4)), tc.complex128)
    assert cache.size == 0
    cache.max_size = default
    assert tc.backends.cuda.cufft_plan_cache[0].max_size == default
    assert tc.backends.cuda.cufft_plan_cache["cuda:0"].size == cache.size
    with pytest.raises(ValueError):
        cache.max_size = -1
    cache.clear()
    assert cache.size == 0


def test_fft_on_side_stream():
    a = complex_np(16, 1000)
    s = tc.cuda.Stream()
    with tc.cuda.stream(s):
        y = tc.fft.fft(to_cuda(a, tc.complex128))
    s.synchronize()
    check(y, np.fft.fft(a), tc.complex128)


@pytest.mark.nogpu
def test_plan_cache_api_without_gpu():
    cache = tc.backends.cuda.cufft_plan_cache
    assert hasattr(type(cache), "__getitem__")
    if tc.cuda.is_available():
        assert cache.size >= 0
    else:
        with pytest.raises(RuntimeError):
            cache.size
