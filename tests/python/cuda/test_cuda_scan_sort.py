"""Native CUDA scans (cumsum, cumprod, logcumsumexp, cummax, cummin), sorts (sort, argsort, topk,
kthvalue, median, nanmedian, mode) and unique against the CPU kernels and NumPy: short rows
(warp path), long rows (block path, chunked when rows are few), many rows, every dim,
non-contiguous inputs, ties, NaNs and signed zeros. Skipped without a GPU."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(3)
# (rows, n): warp rows (n <= 512), one block per row, chunked single rows, many short rows.
SHAPES = [
    (1, 1),
    (1, 7),
    (5, 32),
    (3, 33),
    (64, 512),
    (2, 513),
    (1, 4096),
    (7, 5000),
    (1, 100003),
    (2, 1 << 20),
    (20000, 3),
]


def cpu_and_gpu(a):
    x = tc.from_numpy(np.ascontiguousarray(a))
    return x, x.cuda()


def same(gpu, cpu, rtol=0, atol=0):
    assert gpu.is_cuda, "the result should stay on the GPU"
    g = gpu.cpu()
    assert g.dtype == cpu.dtype and tuple(g.shape) == tuple(cpu.shape), (
        g.dtype,
        cpu.dtype,
        g.shape,
        cpu.shape,
    )
    if g.dtype in (tc.float16, tc.bfloat16):  # NumPy has no bfloat16
        g, cpu = g.to(tc.float64), cpu.to(tc.float64)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(g.numpy(), cpu.numpy())
    else:
        np.testing.assert_allclose(g.numpy(), cpu.numpy(), rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------- scans


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
def test_cumsum_cumprod_shapes(shape, dtype):
    if dtype == tc.int64:
        a = RNG.integers(-3, 4, size=shape)
    else:
        a = RNG.standard_normal(shape)
    x, g = cpu_and_gpu(a)
    x, g = x.to(dtype), g.to(dtype)
    tol = (
        dict(rtol=1e-5, atol=1e-4 * np.sqrt(shape[1]))
        if dtype == tc.float32
        else dict(rtol=1e-9, atol=1e-9 * np.sqrt(shape[1]))
        if dtype == tc.float64
        else {}
    )
    same(tc.cumsum(g, 1), tc.cumsum(x, 1), **tol)
    # products of values near 1 stay finite for long rows
    p = (x / 8 + 1) if dtype != tc.int64 else x.clamp(-1, 1)
    same(
        tc.cumprod(p.cuda(), 1),
        tc.cumprod(p, 1),
        **(
            {}
            if dtype == tc.int64
            else dict(rtol=1e-4 if dtype == tc.float32 else 1e-9, atol=1e-30)
        ),
    )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_logcumsumexp_shapes(shape, dtype):
    a = RNG.standard_normal(shape) * 3
    x, g = cpu_and_gpu(a)
    x, g = x.to(dtype), g.to(dtype)
    same(
        tc.logcumsumexp(g, 1),
        tc.logcumsumexp(x, 1),
        rtol=1e-5 if dtype == tc.float32 else 1e-10,
        atol=1e-5,
    )


def test_logcumsumexp_infinities_and_nan():
    a = np.array([[-np.inf, -np.inf, 0.0, np.inf, 1.0], [1.0, np.nan, 2.0, -np.inf, 3.0]])
    x, g = cpu_and_gpu(a)
    same(tc.logcumsumexp(g, 1), tc.logcumsumexp(x, 1), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_exact(op, shape, dtype):
    a = RNG.integers(-4, 5, size=shape).astype(np.float64)  # many ties
    if dtype != tc.int64 and shape[1] > 3:
        a[0, shape[1] // 3] = np.nan  # NaN stays, with the latest NaN's index
        a[-1, -2] = np.nan
    x, g = cpu_and_gpu(a)
    x, g = x.to(dtype), g.to(dtype)
    vg, ig = getattr(tc, op)(g, 1)
    vc, ic = getattr(tc, op)(x, 1)
    same(vg, vc)
    same(ig, ic)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_scans_any_dim_and_views(op):
    a = RNG.standard_normal((6, 700, 5)) / 4 + 1
    x, g = cpu_and_gpu(a)
    f = getattr(tc, op)
    for dim in (0, 1, 2, -1):
        for view in (lambda t: t, lambda t: t.transpose(0, 2), lambda t: t[:, ::3]):
            r_g, r_c = f(view(g), dim), f(view(x), dim)
            if op in ("cummax", "cummin"):
                same(r_g[0], r_c[0])
                same(r_g[1], r_c[1])
            else:
                same(r_g, r_c, rtol=1e-9, atol=1e-9)


def test_cumsum_dtypes():
    a = RNG.integers(-100, 100, size=(4, 1000))
    for dt in (tc.int32, tc.int16, tc.uint8, tc.bool):
        x, g = cpu_and_gpu(a)
        x, g = x.to(dt), g.to(dt)
        same(tc.cumsum(g, 1), tc.cumsum(x, 1))
    x, g = cpu_and_gpu(RNG.standard_normal((3, 900)))
    for dt in (tc.float16, tc.bfloat16):
        same(tc.cumsum(g.to(dt), 1), tc.cumsum(x.to(dt), 1), rtol=2e-2, atol=0.5)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_scan_gradients_match_cpu(op):
    a = RNG.standard_normal((4, 600)) / 4 + 1
    w_np = RNG.standard_normal(a.shape)
    grads = []
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(a).to(device).requires_grad_()
        y = getattr(tc, op)(x, 1)
        y = y[0] if op in ("cummax", "cummin") else y
        (y * tc.from_numpy(w_np).to(device)).sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-8, atol=1e-8)


# ---------------------------------------------------------------- sort family


def tricky(shape, dtype):
    """Values with many ties, NaNs and signed zeros (floats), extreme values (int64)."""
    if dtype == tc.int64:
        a = RNG.integers(-5, 5, size=shape).astype(np.int64)
        flat = a.reshape(-1)
        if flat.size > 4:
            flat[0], flat[1] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        return a
    a = RNG.integers(-5, 5, size=shape).astype(np.float64) / 2
    flat = a.reshape(-1)
    k = flat.size
    if k > 8:
        flat[RNG.integers(0, k, size=k // 8)] = np.nan
        flat[RNG.integers(0, k, size=k // 8)] = -0.0
        flat[RNG.integers(0, k, size=k // 16)] = np.inf
        flat[RNG.integers(0, k, size=k // 16)] = -np.inf
    return a


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable_exact(shape, dtype, descending):
    a = tricky(shape, dtype)
    x, g = cpu_and_gpu(a)
    x, g = x.to(dtype), g.to(dtype)
    vg, ig = tc.sort(g, 1, descending=descending, stable=True)
    vc, ic = tc.sort(x, 1, descending=descending, stable=True)
    same(vg, vc)
    same(ig, ic)
    same(tc.argsort(g, 1, descending=descending), tc.argsort(x, 1, descending=descending))


def test_sort_matches_numpy_and_any_dim():
    a = RNG.standard_normal((5, 300, 4))
    x, g = cpu_and_gpu(a)
    for dim in (0, 1, 2):
        v, i = tc.sort(g, dim)
        np.testing.assert_array_equal(v.cpu().numpy(), np.sort(a, axis=dim))
        np.testing.assert_array_equal(i.cpu().numpy(), np.argsort(a, axis=dim, kind="stable"))
    v, i = tc.sort(g.transpose(0, 1)[::2], 0, descending=True)
    vc, ic = tc.sort(x.transpose(0, 1)[::2], 0, descending=True)
    same(v, vc)
    same(i, ic)
    for dt in (tc.int32, tc.uint8, tc.float16, tc.bfloat16):
        same(tc.sort(g.to(dt), 1)[0], tc.sort(x.to(dt), 1)[0])


@pytest.mark.parametrize("shape", [(1, 10), (6, 1000), (3, 100003), (5000, 9)])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_exact(shape, largest):
    for dtype in (tc.float32, tc.float64, tc.int64):
        a = tricky(shape, dtype)
        x, g = cpu_and_gpu(a)
        x, g = x.to(dtype), g.to(dtype)
        for k in sorted({0, 1, min(5, shape[1]), shape[1]}):
            vg, ig = tc.topk(g, k, 1, largest=largest)
            vc, ic = tc.topk(x, k, 1, largest=largest)
            same(vg, vc)
            same(ig, ic)


@pytest.mark.parametrize("shape", [(1, 9), (4, 1000), (2, 65537), (3000, 5)])
def test_kthvalue_median_mode(shape):
    for dtype in (tc.float32, tc.float64, tc.int64):
        a = tricky(shape, dtype)
        x, g = cpu_and_gpu(a)
        x, g = x.to(dtype), g.to(dtype)
        n = shape[1]
        for k in sorted({1, (n + 1) // 2, n}):
            vg, ig = tc.kthvalue(g, k, 1)
            vc, _ = tc.kthvalue(x, k, 1)
            same(vg, vc)
            # ties may pick another index: it must point at the k-th value
            same(tc.gather(g, 1, ig.unsqueeze(1)).squeeze(1), vc)
        for op in ("median", "nanmedian"):
            vg, ig = getattr(tc, op)(g, 1)
            vc, ic = getattr(tc, op)(x, 1)
            same(vg, vc)
            picked = tc.gather(g, 1, ig.unsqueeze(1)).squeeze(1).cpu().numpy()
            np.testing.assert_array_equal(picked, vc.numpy())
            same(getattr(tc, op)(g), getattr(tc, op)(x))
        vg, ig = tc.mode(g, 1)
        vc, ic = tc.mode(x, 1)
        same(vg, vc)
        same(ig, ic)


def test_median_nan_rows():
    a = np.array(
        [[1.0, np.nan, 3.0, np.nan], [np.nan, np.nan, np.nan, np.nan], [4.0, 2.0, 3.0, 1.0]]
    )
    x, g = cpu_and_gpu(a)
    for op in ("median", "nanmedian"):
        vg, ig = getattr(tc, op)(g, 1)
        vc, ic = getattr(tc, op)(x, 1)
        same(vg, vc)
        same(ig, ic)


@pytest.mark.parametrize("op", ["sort", "topk", "kthvalue", "median"])
def test_sort_family_gradients(op):
    a = RNG.standard_normal((5, 300))
    grads = []
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(a).to(device).requires_grad_()
        if op == "sort":
            y = tc.sort(x, 1)[0]
        elif op == "topk":
            y = tc.topk(x, 7, 1)[0]
        elif op == "kthvalue":
            y = tc.kthvalue(x, 100, 1)[0]
        else:
            y = tc.median(x, 1)[0]
        (
            y * tc.arange(y.numel(), dtype=tc.float64, device=device).reshape(y.shape)
        ).sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- unique


@pytest.mark.parametrize("n", [1, 2, 100, 4097, 1 << 20])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64, tc.int32, tc.bool])
def test_unique_matches_cpu(n, dtype):
    a = tricky((n,), tc.int64 if dtype in (tc.int64, tc.int32, tc.bool) else dtype)
    x, g = cpu_and_gpu(a)
    x, g = x.to(dtype), g.to(dtype)
    ug, inv_g, cnt_g = tc.unique(g, return_inverse=True, return_counts=True)
    uc, inv_c, cnt_c = tc.unique(x, return_inverse=True, return_counts=True)
    same(ug, uc)
    same(inv_g, inv_c)
    same(cnt_g, cnt_c)
    ug, inv_g, cnt_g = tc.unique_consecutive(g, return_inverse=True, return_counts=True)
    uc, inv_c, cnt_c = tc.unique_consecutive(x, return_inverse=True, return_counts=True)
    same(ug, uc)
    same(inv_g, inv_c)
    same(cnt_g, cnt_c)


def test_unique_numpy_and_shapes():
    a = RNG.integers(0, 50, size=(30, 40))
    x, g = cpu_and_gpu(a)
    u, inv, cnt = tc.unique(g, return_inverse=True, return_counts=True)
    nu, ninv, ncnt = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.cpu().numpy(), nu)
    np.testing.assert_array_equal(inv.cpu().numpy(), ninv.reshape(a.shape))
    np.testing.assert_array_equal(cnt.cpu().numpy(), ncnt)
    assert tuple(inv.shape) == (30, 40)
    assert tc.unique(g.t()).cpu().numpy().tolist() == nu.tolist()
    e = tc.unique(tc.zeros(0, device="cuda"), return_inverse=True, return_counts=True)
    assert all(t.is_cuda and t.numel() == 0 for t in e)
    nan = tc.tensor([float("nan"), 1.0, float("nan")], device="cuda")
    assert tc.unique(nan).numel() == 3  # every NaN is distinct, as torch's unique keeps them


# ---------------------------------------------------------------- searching and counting


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
def test_searchsorted_bucketize(dtype):
    bnd = np.sort(RNG.integers(-20, 20, size=(4, 50)).astype(np.float64), axis=1)
    vals = RNG.integers(-25, 25, size=(4, 300)).astype(np.float64)
    if dtype != tc.int64:
        bnd[:, -3:] = np.nan
        vals[:, :5] = np.nan
    b, bg = cpu_and_gpu(bnd)
    v, vg = cpu_and_gpu(vals)
    b, bg, v, vg = b.to(dtype), bg.to(dtype), v.to(dtype), vg.to(dtype)
    for right in (False, True):
        for out_int32 in (False, True):
            same(
                tc.searchsorted(bg, vg, right=right, out_int32=out_int32),
                tc.searchsorted(b, v, right=right, out_int32=out_int32),
            )
        same(tc.searchsorted(bg[0], vg, right=right), tc.searchsorted(b[0], v, right=right))
        same(tc.bucketize(vg, bg[1], right=right), tc.bucketize(v, b[1], right=right))
    perm = RNG.permuted(np.tile(np.arange(50), (4, 1)), axis=1)
    shuffled = np.take_along_axis(bnd, perm, 1)
    sorter = np.argsort(shuffled, axis=1, kind="stable")
    s, sg = cpu_and_gpu(shuffled)
    o, og = cpu_and_gpu(sorter)
    same(tc.searchsorted(sg.to(dtype), vg, sorter=og), tc.searchsorted(s.to(dtype), v, sorter=o))


def test_histc_bincount():
    a = RNG.standard_normal(100000)
    x, g = cpu_and_gpu(a)
    for dtype in (tc.float32, tc.float64):
        same(tc.histc(g.to(dtype), 50, -2, 2), tc.histc(x.to(dtype), 50, -2, 2))
        same(tc.histc(g.to(dtype), 7), tc.histc(x.to(dtype), 7))
    ints = RNG.integers(0, 300, size=50000)
    i, ig = cpu_and_gpu(ints)
    same(tc.bincount(ig), tc.bincount(i))
    same(tc.bincount(ig, minlength=400), tc.bincount(i, minlength=400))
    w = RNG.standard_normal(50000)
    wc, wg = cpu_and_gpu(w)
    same(tc.bincount(ig, wg), tc.bincount(i, wc), rtol=1e-9, atol=1e-9)
    same(tc.bincount(ig, wg.float()), tc.bincount(i, wc.float()), rtol=1e-4, atol=1e-4)


def test_gather_scatter_vjp_helpers():
    # take_along / scatter_add_along (the backward of sort, cummax, max(dim), ...) on the GPU
    a = RNG.standard_normal((7, 400))
    grads = []
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(a).to(device).requires_grad_()
        y = tc.cummax(x, 1)[0].sum() + tc.max(x, 1)[0].sum() + tc.amax(x, 0).sum() + tc.norm(x, p=3)
        y.backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-10)


def test_prod_and_cumprod_backward_with_zeros():
    a = RNG.standard_normal((6, 300)) / 4 + 1
    a[1, 17] = 0.0
    a[2, 5] = a[2, 250] = 0.0
    grads = []
    for device in ("cpu", "cuda"):
        x = tc.from_numpy(a).to(device).requires_grad_()
        w = tc.from_numpy(np.linspace(-1, 1, 300)).to(device)
        (tc.cumprod(x, 1) * w).sum().backward()  # zeros: the O(n^2) cumprod backward kernel
        g1 = x.grad.cpu().numpy().copy()
        x.grad = None
        tc.prod(x, 1).sum().backward()  # the product of the others (prod_others)
        grads.append((g1, x.grad.cpu().numpy()))
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
