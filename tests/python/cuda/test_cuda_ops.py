"""Every CUDA kernel against the CPU result, per dtype, over contiguous, transposed and
broadcast inputs."""

import numpy as np
import pytest

import tensorcore as tc

FLOATS = [tc.float32, tc.float64, tc.float16, tc.bfloat16]
TOL = {
    tc.float32: (1e-5, 1e-5),
    tc.float64: (1e-12, 1e-12),
    tc.float16: (2e-3, 2e-3),
    tc.bfloat16: (1.6e-2, 1.6e-2),
    tc.complex64: (1e-5, 1e-5),
    tc.complex128: (1e-12, 1e-12),
}


def close(gpu, cpu, dtype=None, rtol=None, atol=None):
    assert gpu.is_cuda, "result should stay on the GPU"
    g, cpu = gpu.detach().cpu(), cpu.detach()
    assert g.dtype == cpu.dtype and tuple(g.shape) == tuple(cpu.shape)
    r, a = TOL.get(dtype or cpu.dtype, (0, 0))
    r, a = rtol if rtol is not None else r, atol if atol is not None else a
    gn, cn = (
        g.to(tc.float64).numpy() if g.dtype in (tc.float16, tc.bfloat16) else g.numpy(),
        cpu.to(tc.float64).numpy() if cpu.dtype in (tc.float16, tc.bfloat16) else cpu.numpy(),
    )
    np.testing.assert_allclose(gn, cn, rtol=r, atol=a, equal_nan=True)


def inputs(dtype, lo=-2.0, hi=2.0, shape=(17, 33)):
    g = tc.Generator().manual_seed(0)
    x = tc.rand(*shape, generator=g, dtype=tc.float64) * (hi - lo) + lo
    return x.to(dtype)


VIEWS = [lambda t: t, lambda t: t.t(), lambda t: t[:1].expand(t.shape[0], t.shape[1])]
"""contiguous, transposed (strided) and broadcast views, applied on each device."""


UNARY = [
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "erf",
    "erfc",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
    "reciprocal",
    "square",
    "relu",
    "expm1",
    "log1p",
    "log2",
    "log10",
    "exp2",
    "rsqrt",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "atanh",
    "sign",
    "isnan",
    "isinf",
    "isfinite",
    "logical_not",
    "lgamma",
    "digamma",
    "erfinv",
]
DOMAIN = {
    "log": (0.1, 3),
    "sqrt": (0.1, 3),
    "log1p": (0.1, 3),
    "log2": (0.1, 3),
    "log10": (0.1, 3),
    "rsqrt": (0.1, 3),
    "asin": (-0.9, 0.9),
    "acos": (-0.9, 0.9),
    "atanh": (-0.9, 0.9),
    "reciprocal": (0.5, 3),
    "lgamma": (0.1, 5),
    "digamma": (0.1, 5),
    "erfinv": (-0.9, 0.9),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", UNARY)
def test_unary_float(op, dtype):
    if dtype in (tc.float16, tc.bfloat16) and op in ("lgamma", "digamma", "erfinv"):
        pytest.skip("the CPU reference computes these in float only")
    x = inputs(dtype, *DOMAIN.get(op, (-2, 2)))
    g = x.cuda()
    for view in VIEWS:
        close(
            getattr(tc, op)(view(g)),
            getattr(tc, op)(view(x)),
            dtype,
            rtol=TOL[dtype][0] * 10,
            atol=TOL[dtype][1] * 10,
        )


@pytest.mark.parametrize("dtype", [tc.complex64, tc.complex128])
@pytest.mark.parametrize(
    "op",
    [
        "neg",
        "exp",
        "log",
        "sqrt",
        "sin",
        "tanh",
        "abs",
        "conj",
        "sigmoid",
        "reciprocal",
        "isnan",
        "angle",
        "sgn",
    ],
)
def test_unary_complex(op, dtype):
    x = tc.complex(inputs(tc.float64, 0.2, 2), inputs(tc.float64, -1, 1, (17, 33)).flip(0)).to(
        dtype
    )
    close(getattr(tc, op)(x.cuda()), getattr(tc, op)(x), dtype, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [tc.int8, tc.int16, tc.int32, tc.int64, tc.uint8])
@pytest.mark.parametrize(
    "op", ["neg", "abs", "square", "sign", "bitwise_not", "logical_not", "relu"]
)
def test_unary_int(op, dtype):
    if op == "neg" and dtype == tc.uint8:
        pytest.skip("neg of uint8 wraps identically; covered by int8")
    x = (inputs(tc.float64, -50, 50) if dtype != tc.uint8 else inputs(tc.float64, 0, 200)).to(dtype)
    close(getattr(tc, op)(x.cuda()), getattr(tc, op)(x))


BINARY = [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "atan2",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "fmod",
    "remainder",
    "hypot",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", BINARY)
def test_binary_float(op, dtype):
    a = inputs(dtype, 0.5, 2) if op == "pow" else inputs(dtype)
    b = inputs(dtype, 0.5, 2, (33,)).to(dtype)  # broadcast over rows
    f = getattr(tc, op)
    tol = TOL[dtype]
    close(f(a.cuda(), b.cuda()), f(a, b), dtype, rtol=tol[0] * 10, atol=tol[1] * 10)
    ga = a.cuda()
    close(f(ga.t(), ga.t()), f(a.t(), a.t()), dtype, rtol=tol[0] * 10, atol=tol[1] * 10)
    close(f(ga.t(), b.cuda()[:17]), f(a.t(), b[:17]), dtype, rtol=tol[0] * 10, atol=tol[1] * 10)


@pytest.mark.parametrize("dtype", [tc.int32, tc.int64, tc.int16, tc.uint8])
@pytest.mark.parametrize(
    "op",
    [
        "add",
        "sub",
        "mul",
        "maximum",
        "minimum",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "remainder",
        "fmod",
        "eq",
        "lt",
        "ge",
        "floor_divide",
    ],
)
def test_binary_int(op, dtype):
    lo = 0 if dtype == tc.uint8 else -100
    a = inputs(tc.float64, lo, 100).to(dtype)
    b = inputs(tc.float64, 1, 9, (33,)).to(dtype)
    f = getattr(tc, op)
    close(f(a.cuda(), b.cuda()), f(a, b))


def test_scalars_division_modes_and_inplace():
    a = inputs(tc.float32, -5, 5)
    g = a.cuda()
    close(g * 2.5 + 1, a * 2.5 + 1)
    close(3 - g, 3 - a)
    close(tc.div(g, 0.7, rounding_mode="floor"), tc.div(a, 0.7, rounding_mode="floor"))
    close(tc.div(g, 0.7, rounding_mode="trunc"), tc.div(a, 0.7, rounding_mode="trunc"))
    close(tc.add(g, g, alpha=-2), tc.add(a, a, alpha=-2))
    h = g.clone()
    h.mul_(3).add_(1).clamp_(min=-2, max=4)
    close(h, (a * 3 + 1).clamp(min=-2, max=4))
    close(tc.clamp(g, min=g * 0.5, max=g * 0 + 1), tc.clamp(a, min=a * 0.5, max=a * 0 + 1))
    close(tc.lerp(g, g * 2, 0.3), tc.lerp(a, a * 2, 0.3))
    close(tc.where(g > 0, g, g * -1), tc.where(a > 0, a, a * -1))
    close(tc.nan_to_num(tc.log(g)), tc.nan_to_num(tc.log(a)))
    i = tc.arange(-20, 20).cuda()
    assert (i // 3).cpu().tolist() == [v // 3 for v in range(-20, 20)]
    assert (i % 7).cpu().tolist() == [v % 7 for v in range(-20, 20)]


def test_complex_arithmetic():
    a = tc.complex(inputs(tc.float32), inputs(tc.float32).flip(1))
    b = tc.complex(inputs(tc.float32, 1, 2), inputs(tc.float32, 1, 2))
    for op in ("add", "sub", "mul", "div", "eq"):
        close(getattr(tc, op)(a.cuda(), b.cuda()), getattr(tc, op)(a, b))
    close(a.cuda().real, a.real)
    close(a.cuda().imag, a.imag)


REDUCE_DIMS = [None, 0, 1, (0, 2), -1]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod", "nansum", "logsumexp"])
@pytest.mark.parametrize("dim", REDUCE_DIMS)
def test_reductions(op, dtype, dim):
    if op == "logsumexp" and dim is None:
        dim = (0, 1, 2)
    if op == "prod" and isinstance(dim, tuple):
        pytest.skip("prod takes a single dim (as in torch)")
    x = inputs(tc.float64, 0.5, 1.5, (6, 35, 9)).to(dtype)
    f = getattr(tc, op)
    gx = x.cuda()
    for v, gv in ((x, gx), (x.transpose(0, 2), gx.transpose(0, 2))):
        kw = {} if dim is None else {"dim": dim}
        ref, got = f(v, **kw), f(gv, **kw)
        r = {tc.float32: 1e-4, tc.float64: 1e-10, tc.float16: 1e-2, tc.bfloat16: 5e-2}[dtype]
        close(got, ref, dtype, rtol=r, atol=r)
        if dim is not None:
            close(f(gv, keepdim=True, **kw), f(v, keepdim=True, **kw), dtype, rtol=r, atol=r)


@pytest.mark.parametrize("dtype", [tc.int64, tc.int32, tc.uint8, tc.bool])
def test_integer_sum_and_logical(dtype):
    x = inputs(tc.float64, 0, 3, (40, 50)).to(dtype)
    for dim in (None, 0, 1):
        kw = {} if dim is None else {"dim": dim}
        close(tc.sum(x.cuda(), **kw), tc.sum(x, **kw))
        close(tc.all(x.cuda(), **kw), tc.all(x, **kw))
        close(tc.any(x.cuda(), **kw), tc.any(x, **kw))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_var_std_norm_max_argmax(dim):
    x = inputs(tc.float32, -3, 3, (64, 129))
    g = x.cuda()
    close(tc.var(g, dim=dim), tc.var(x, dim=dim), rtol=1e-4, atol=1e-5)
    close(tc.std(g, dim=dim, correction=0), tc.std(x, dim=dim, correction=0), rtol=1e-4, atol=1e-5)
    for p in (1, 2, 3, float("inf"), 0):
        close(tc.norm(g, p=p, dim=dim), tc.norm(x, p=p, dim=dim), rtol=1e-4, atol=1e-4)
    v, i = tc.max(g, dim=dim)
    rv, ri = tc.max(x, dim=dim)
    close(v, rv)
    close(i, ri)
    close(tc.argmin(g, dim=dim), tc.argmin(x, dim=dim))
    assert tc.argmax(g).item() == tc.argmax(x).item()
    assert abs(tc.var(g).item() - tc.var(x).item()) < 1e-4


def test_large_full_reduction_uses_split_path():
    x = tc.rand(1 << 24, dtype=tc.float64)
    assert abs(x.cuda().sum().item() - x.sum().item()) < 1e-6 * x.numel()
    assert x.cuda().max().item() == x.max().item()


@pytest.mark.parametrize(
    "dtype", [tc.float32, tc.float64, tc.float16, tc.bfloat16, tc.complex64, tc.int64]
)
def test_matmul(dtype):
    g = tc.Generator().manual_seed(1)
    a = (tc.rand(3, 65, 47, generator=g, dtype=tc.float64) - 0.5).to(dtype)
    b = (tc.rand(3, 47, 31, generator=g, dtype=tc.float64) - 0.5).to(dtype)
    if dtype == tc.int64:
        a = (tc.rand(3, 65, 47, generator=g) * 20 - 10).to(dtype)
        b = (tc.rand(3, 47, 31, generator=g) * 20 - 10).to(dtype)
    tol = {
        tc.float32: 1e-4,
        tc.float64: 1e-12,
        tc.float16: 1e-2,
        tc.bfloat16: 5e-2,
        tc.complex64: 1e-4,
        tc.int64: 0,
    }[dtype]
    ref = tc.bmm(
        a.to(tc.float64) if dtype in (tc.float16, tc.bfloat16) else a,
        b.to(tc.float64) if dtype in (tc.float16, tc.bfloat16) else b,
    ).to(dtype)
    close(tc.bmm(a.cuda(), b.cuda()), ref, rtol=tol, atol=tol * 10)
    # transposed operands go to cuBLAS as transposes
    ga, gb = a.cuda(), b.cuda()
    at, bt = (
        ga.transpose(1, 2).contiguous().transpose(1, 2),
        gb.transpose(1, 2).contiguous().transpose(1, 2),
    )
    assert not at.is_contiguous()
    close(tc.matmul(at, bt), ref, rtol=tol, atol=tol * 10)
    close(
        tc.matmul(ga, gb.transpose(1, 2).contiguous().transpose(1, 2)), ref, rtol=tol, atol=tol * 10
    )
    close(tc.mm(a[0].cuda(), b[0].cuda()), ref[0], rtol=tol, atol=tol * 10)


def test_addmm_and_tf32_switch():
    a, b, c = tc.randn(64, 32), tc.randn(32, 16), tc.randn(16)
    close(
        tc.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2),
        tc.addmm(c, a, b, beta=0.5, alpha=2),
        rtol=1e-4,
        atol=1e-4,
    )
    tc.backends.cuda.matmul.allow_tf32 = True
    try:
        close(a.cuda() @ b.cuda(), a @ b, rtol=1e-2, atol=2e-2)
    finally:
        tc.backends.cuda.matmul.allow_tf32 = False


def test_random_distributions():
    tc.cuda.manual_seed(7)
    u = tc.empty(1 << 20, device="cuda").uniform_(2, 5)
    assert 2 <= u.min().item() and u.max().item() < 5 and abs(u.mean().item() - 3.5) < 0.01
    n = tc.randn(1 << 20, device="cuda")
    assert abs(n.mean().item()) < 0.01 and abs(n.std().item() - 1) < 0.01
    r = tc.randint(3, 10, (10000,), device="cuda")
    assert r.dtype == tc.int64 and r.min().item() == 3 and r.max().item() == 9
    b = tc.bernoulli(tc.full((100000,), 0.3, device="cuda"))
    assert abs(b.mean().item() - 0.3) < 0.01
    h = tc.rand(1000, device="cuda", dtype=tc.float16)
    assert h.dtype == tc.float16 and h.max().item() < 1
    p = tc.randperm(100, device="cuda")
    assert sorted(p.cpu().tolist()) == list(range(100))


def test_autograd_step_matches_cpu():
    g = tc.Generator().manual_seed(3)
    w1 = tc.rand(20, 32, generator=g) - 0.5
    w2 = tc.rand(32, 4, generator=g) - 0.5
    x = tc.rand(16, 20, generator=g)
    y = tc.rand(16, 4, generator=g)

    def step(dev):
        a = w1.to(dev).detach().requires_grad_(True)  # fresh leaves on each device
        b = w2.to(dev).detach().requires_grad_(True)
        h = tc.tanh(x.to(dev) @ a)
        out = tc.sigmoid(h @ b)
        loss = ((out - y.to(dev)) ** 2).mean() + (a * a).sum() * 1e-3
        loss.backward()
        return loss, a.grad, b.grad

    cl, ca, cb = step("cpu")
    gl, ga, gb = step("cuda")
    assert ga.is_cuda and gb.is_cuda
    close(gl, cl, rtol=1e-5, atol=1e-6)
    close(ga, ca, rtol=1e-4, atol=1e-6)
    close(gb, cb, rtol=1e-4, atol=1e-6)
