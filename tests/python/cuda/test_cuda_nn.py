"""nn on CUDA: convolution through cuDNN, pooling and normalization kernels, the composite
functionals, layers and losses, against the CPU result (gradients included), plus the
tc.backends.cudnn switches. Without a GPU only the tests marked `nogpu` run."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

# (rtol, atol) against a CPU reference computed in float64 (float32 for 16-bit inputs, whose CPU
# kernels do not exist): cuDNN sums in a different order, and 16-bit outputs round once more.
TOL = {
    tc.float32: (1e-4, 1e-4),
    tc.float64: (1e-10, 1e-10),
    tc.float16: (1e-2, 1e-2),
    tc.bfloat16: (5e-2, 5e-2),
}
FLOATS = [tc.float32, tc.float64, tc.float16, tc.bfloat16]


@pytest.fixture(autouse=True)
def exact_cudnn():
    """float32 comparisons need full-precision math: TF32 off, then restore every switch."""
    cudnn = tc.backends.cudnn
    saved = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    cudnn.allow_tf32 = False
    yield
    cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = saved
    tc.use_deterministic_algorithms(False)


def randn(*shape, seed=0, dtype=tc.float64):
    g = tc.Generator().manual_seed(seed)
    return tc.randn(*shape, generator=g, dtype=tc.float64).to(dtype)


def ref_dtype(dtype):
    return tc.float32 if dtype in (tc.float16, tc.bfloat16) else tc.float64


def close(gpu, cpu, dtype, scale=1.0):
    assert gpu.is_cuda, "result should stay on the GPU"
    r, a = TOL[dtype]
    g = gpu.detach().cpu().to(tc.float64).numpy()
    c = cpu.detach().to(tc.float64).numpy()
    assert g.shape == c.shape
    np.testing.assert_allclose(
        g, c, rtol=r * scale, atol=a * scale * max(1.0, float(np.abs(c).max(initial=0)))
    )


def run_both(fn, tensors, dtype, grad=True):
    """fn on CUDA tensors of `dtype` and on CPU copies in the reference dtype (same rounded values);
    returns (gpu_out, cpu_out, gpu_grads, cpu_grads) with a random output gradient."""
    rd = ref_dtype(dtype)
    gpu_in = [t.detach().to(dtype).cuda().requires_grad_(grad) for t in tensors]
    cpu_in = [t.detach().to(dtype).to(rd).clone().requires_grad_(grad) for t in tensors]
    gy = fn(*gpu_in)
    cy = fn(*cpu_in)
    if not grad:
        return gy, cy, [], []
    w = randn(*cy.shape, seed=7)
    gy.backward(w.to(dtype).cuda())
    cy.backward(w.to(dtype).to(rd))
    return gy, cy, [t.grad for t in gpu_in], [t.grad for t in cpu_in]


def check_fn(fn, tensors, dtype, grad=True, scale=1.0):
    gy, cy, gg, cg = run_both(fn, tensors, dtype, grad)
    assert gy.dtype == dtype
    close(gy, cy, dtype, scale)
    for a, b in zip(gg, cg):
        close(a, b, dtype, scale * 4)


# ------------------------------------------------------------------------------- convolution

CONV_CASES = [
    # (nd, N, Cin, Cout, spatial, kernel, stride, padding, dilation, groups)
    (1, 2, 4, 6, (19,), 3, 1, 1, 1, 1),
    (1, 2, 4, 6, (19,), 5, 2, 0, 2, 2),
    (2, 2, 3, 8, (11, 9), 3, 1, 1, 1, 1),
    (2, 2, 4, 8, (12, 10), (3, 2), (2, 1), (1, 0), (1, 2), 2),
    (2, 1, 6, 6, (9, 9), 3, 1, 1, 1, 6),  # depthwise
    (2, 3, 8, 16, (7, 7), 1, 1, 0, 1, 1),  # 1x1
    (3, 2, 3, 4, (6, 7, 5), 3, 1, 1, 1, 1),
    (3, 1, 4, 4, (7, 6, 6), (1, 3, 3), (1, 2, 2), (0, 1, 1), 1, 2),
]


def conv_fn(nd):
    return getattr(F, f"conv{nd}d")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_forward_backward(case, dtype):
    nd, n, cin, cout, spatial, k, s, p, d, g = case
    ks = (k,) * nd if isinstance(k, int) else k
    x = randn(n, cin, *spatial, seed=1)
    w = randn(cout, cin // g, *ks, seed=2) * 0.3
    b = randn(cout, seed=3)
    check_fn(lambda x, w, b: conv_fn(nd)(x, w, b, s, p, d, g), [x, w, b], dtype)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_conv_without_bias_and_unbatched(dtype):
    x, w = randn(3, 10, 8, seed=1), randn(5, 3, 3, 3, seed=2)
    check_fn(lambda x, w: F.conv2d(x, w, None, 1, 1), [x, w], dtype)


@pytest.mark.parametrize("nd", [1, 2])
def test_conv_same_padding_even_kernel(nd):
    # Even kernels under 'same' pad one more on the right: explicit zeros on the cuDNN path.
    x = randn(2, 3, *(9,) * nd, seed=1)
    w = randn(4, 3, *(4,) * nd, seed=2)
    check_fn(lambda x, w: conv_fn(nd)(x, w, None, 1, "same", 2), [x, w], tc.float64)
    check_fn(lambda x, w: conv_fn(nd)(x, w, None, 1, "valid"), [x, w], tc.float64)


TRANSPOSED_CASES = [
    # (nd, N, Cin, Cout, spatial, kernel, stride, padding, output_padding, groups, dilation)
    (1, 2, 4, 3, (7,), 3, 2, 1, 1, 1, 1),
    (2, 2, 4, 6, (5, 6), 3, 2, 1, 1, 2, 1),
    (2, 1, 3, 2, (4, 4), (4, 3), (2, 3), (1, 0), (0, 2), 1, (1, 2)),
    (3, 1, 2, 3, (3, 4, 3), 3, 2, 1, 1, 1, 1),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", TRANSPOSED_CASES)
def test_conv_transpose(case, dtype):
    nd, n, cin, cout, spatial, k, s, p, op, g, d = case
    ks = (k,) * nd if isinstance(k, int) else k
    x = randn(n, cin, *spatial, seed=1)
    w = randn(cin, cout // g, *ks, seed=2) * 0.3
    b = randn(cout, seed=3)
    fn = getattr(F, f"conv_transpose{nd}d")
    check_fn(lambda x, w, b: fn(x, w, b, s, p, op, g, d), [x, w, b], dtype)


def channels_last(t):
    """An NCHW-shaped view of NHWC memory (what torch calls channels_last)."""
    perm = (0, 2, 3, 1) if t.dim() == 4 else (0, 2, 3, 4, 1)
    back = (0, 3, 1, 2) if t.dim() == 4 else (0, 4, 1, 2, 3)
    return t.permute(*perm).contiguous().permute(*back)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float16])
@pytest.mark.parametrize("nd", [2, 3])
def test_conv_channels_last(nd, dtype):
    x = randn(2, 8, *(6,) * nd, seed=1)
    w = randn(16, 8, *(3,) * nd, seed=2) * 0.2
    b = randn(16, seed=3)
    rd = ref_dtype(dtype)
    xg = channels_last(x.to(dtype).cuda()).requires_grad_()
    wg = w.to(dtype).cuda().requires_grad_()
    y = conv_fn(nd)(xg, wg, b.to(dtype).cuda(), 2, 1)
    # The output keeps the input's layout: channels are the fastest-moving dim.
    assert y.stride(1) == 1 and not y.is_contiguous()
    xc, wc = x.to(dtype).to(rd).requires_grad_(), w.to(dtype).to(rd).requires_grad_()
    yc = conv_fn(nd)(xc, wc, b.to(dtype).to(rd), 2, 1)
    close(y, yc, dtype)
    gy = randn(*yc.shape, seed=5)
    y.backward(gy.to(dtype).cuda())
    yc.backward(gy.to(dtype).to(rd))
    close(xg.grad, xc.grad, dtype, 4)
    close(wg.grad, wc.grad, dtype, 4)


def test_conv_tf32_is_close_and_switchable():
    x, w = randn(4, 64, 16, 16, seed=1), randn(64, 64, 3, 3, seed=2) * 0.05
    ref = F.conv2d(x, w, None, 1, 1)
    tc.backends.cudnn.allow_tf32 = True
    y = F.conv2d(x.float().cuda(), w.float().cuda(), None, 1, 1)
    close(y.to(tc.float64), ref, tc.float16)  # TF32 keeps 10 mantissa bits, like float16
    tc.backends.cudnn.allow_tf32 = False
    y = F.conv2d(x.float().cuda(), w.float().cuda(), None, 1, 1)
    close(y.to(tc.float64), ref, tc.float32)


def second_order(fn, tensors, device):
    """Gradients of |grad(|fn|^2)|^2 w.r.t. the inputs: exercises double backward."""
    xs = [t.to(device).requires_grad_() for t in tensors]
    y = fn(*xs)
    first = tc.autograd.grad(y.square().sum(), xs, create_graph=True)
    total = sum((g * g).sum() for g in first)
    return tc.autograd.grad(total, xs)


def check_second_order(fn, tensors):
    for g, c in zip(second_order(fn, tensors, "cuda"), second_order(fn, tensors, "cpu")):
        close(g, c, tc.float64, 10)


def test_conv_double_backward():
    x, w = randn(2, 3, 7, 7, seed=1), randn(4, 3, 3, 3, seed=2)
    check_second_order(lambda x, w: F.conv2d(x, w, None, 2, 1), [x, w])
    check_second_order(
        lambda x, w: F.conv_transpose2d(x[:, :3], w.transpose(0, 1), None, 2, 1, 1), [x, w]
    )


def test_conv_benchmark_mode_caches_and_matches():
    x, w = randn(2, 16, 20, 20, seed=1), randn(32, 16, 3, 3, seed=2) * 0.1
    ref = F.conv2d(x, w, None, 1, 1)
    tc.backends.cudnn.benchmark = True
    tc.backends.cudnn.clear_algorithm_cache()
    xg, wg = x.float().cuda().requires_grad_(), w.float().cuda().requires_grad_()
    y = F.conv2d(xg, wg, None, 1, 1)
    y.sum().backward()
    assert tc.backends.cudnn.algorithm_cache_size() == 3  # forward, backward data, backward weight
    y2 = F.conv2d(xg, wg, None, 1, 1)
    assert tc.backends.cudnn.algorithm_cache_size() == 3  # reused
    close(y.double(), ref, tc.float32)
    close(y2.double(), ref, tc.float32)


@pytest.mark.parametrize("how", ["cudnn.deterministic", "use_deterministic_algorithms"])
def test_conv_deterministic_is_bitwise_reproducible(how):
    if how == "cudnn.deterministic":
        tc.backends.cudnn.deterministic = True
    else:
        tc.use_deterministic_algorithms(True)
    tc.backends.cudnn.benchmark = True  # timing must still pick among deterministic algorithms
    x, w = randn(8, 32, 28, 28, seed=1).float().cuda(), randn(32, 32, 3, 3, seed=2).float().cuda()
    grads = []
    for _ in range(3):
        xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
        F.conv2d(xg, wg, None, 1, 1).square().sum().backward()
        grads.append((xg.grad.cpu().numpy(), wg.grad.cpu().numpy()))
    for gx, gw in grads[1:]:
        assert np.array_equal(gx, grads[0][0]) and np.array_equal(gw, grads[0][1])


def test_conv_disabled_cudnn_raises():
    tc.backends.cudnn.enabled = False
    x, w = tc.randn(1, 2, 5, 5, device="cuda"), tc.randn(2, 2, 3, 3, device="cuda")
    with pytest.raises(NotImplementedError, match="cudnn.enabled"):
        F.conv2d(x, w)


def test_conv_errors():
    x, w = tc.randn(1, 2, 5, 5, device="cuda"), tc.randn(2, 2, 3, 3)
    with pytest.raises(ValueError, match="same device"):
        F.conv2d(x, w)
    with pytest.raises(TypeError, match="dtype"):
        F.conv2d(x.half(), w.cuda())
    with pytest.raises(ValueError, match="channels"):
        F.conv2d(x, tc.randn(2, 3, 3, 3, device="cuda"))


def test_conv_empty_batch():
    x, w, b = (
        tc.randn(0, 2, 5, 5, device="cuda"),
        tc.randn(3, 2, 3, 3, device="cuda"),
        tc.randn(3, device="cuda"),
    )
    assert tuple(F.conv2d(x, w, b).shape) == (0, 3, 3, 3)


@pytest.mark.parametrize("module", ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d"])
def test_conv_modules(module):
    nd = 2 if module.endswith("2d") else 3 if module.endswith("3d") else 1
    tc.manual_seed(0)
    kwargs = dict(stride=2, padding=1)
    if module == "ConvTranspose2d":
        kwargs["output_padding"] = 1
    m = getattr(tc.nn, module)(4, 6, 3, **kwargs).double()
    mg = getattr(tc.nn, module)(4, 6, 3, **kwargs).double()
    mg.load_state_dict(m.state_dict())
    mg.cuda()
    x = randn(2, 4, *(8,) * nd, seed=1)
    y, yg = m(x), mg(x.cuda())
    close(yg, y, tc.float64)
    y.sum().backward()
    yg.sum().backward()
    close(mg.weight.grad, m.weight.grad, tc.float64)
    close(mg.bias.grad, m.bias.grad, tc.float64)


# --------------------------------------------------------------------------------- pooling


def distinct(*shape, seed=0):
    """Values without ties (a permutation of 0..n-1, scaled), so max indices are unambiguous."""
    n = int(np.prod(shape))
    perm = tc.randperm(n, generator=tc.Generator().manual_seed(seed)).to(tc.float64)
    return (perm / 64.0).reshape(*shape)


MAX_CASES = [
    (1, (2, 3, 17), 3, 2, 1, 1, False),
    (1, (3, 20), 4, 3, 2, 2, True),
    (2, (2, 3, 9, 11), 3, 2, 1, 1, False),
    (2, (2, 2, 10, 9), (3, 2), (2, 1), (1, 0), (2, 1), True),
    (3, (1, 2, 6, 7, 8), 3, 2, 1, 1, False),
    (3, (2, 5, 6, 7), 2, 1, 0, 1, True),
]


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16])
@pytest.mark.parametrize("case", MAX_CASES)
def test_max_pool_with_indices(case, dtype):
    nd, shape, k, s, p, d, ceil = case
    x = distinct(*shape, seed=1) / (8.0 if dtype == tc.float16 else 1.0)
    fn = getattr(F, f"max_pool{nd}d_with_indices")
    gx, gc = x.to(dtype).cuda(), x.to(dtype).to(ref_dtype(dtype))
    (yg, ig), (yc, ic) = fn(gx, k, s, p, d, ceil), fn(gc, k, s, p, d, ceil)
    close(yg, yc, dtype)
    assert ig.is_cuda and np.array_equal(ig.cpu().numpy(), ic.numpy())
    check_fn(lambda t: getattr(F, f"max_pool{nd}d")(t, k, s, p, d, ceil), [x], dtype)


AVG_CASES = [
    (1, (2, 3, 17), 3, 2, 1, False, True, None),
    (2, (2, 3, 9, 11), 3, 2, 1, False, True, None),
    (2, (2, 3, 9, 11), 3, 2, 1, True, False, None),
    (2, (1, 2, 8, 8), (2, 3), (2, 2), (1, 1), True, True, 5),
    (3, (1, 2, 6, 7, 8), 3, 2, 1, False, False, None),
    (3, (2, 5, 6, 7), 2, 1, 0, True, True, 3),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", AVG_CASES)
def test_avg_pool(case, dtype):
    nd, shape, k, s, p, ceil, cip, div = case
    x = randn(*shape, seed=1)
    fn = getattr(F, f"avg_pool{nd}d")
    if nd == 1:
        check_fn(lambda t: fn(t, k, s, p, ceil, cip), [x], dtype)
    else:
        check_fn(lambda t: fn(t, k, s, p, ceil, cip, div), [x], dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "nd,shape,out",
    [
        (1, (2, 3, 17), 5),
        (2, (2, 3, 9, 11), (4, 3)),
        (2, (1, 2, 7, 7), 1),
        (3, (1, 2, 6, 7, 5), (2, 3, 4)),
    ],
)
def test_adaptive_pool(nd, shape, out, dtype):
    x = distinct(*shape, seed=2) / (8.0 if dtype in (tc.float16, tc.bfloat16) else 1.0)
    check_fn(lambda t: getattr(F, f"adaptive_avg_pool{nd}d")(t, out), [x], dtype)
    check_fn(lambda t: getattr(F, f"adaptive_max_pool{nd}d")(t, out), [x], dtype)


def test_max_unpool_and_pool_modules():
    x = distinct(2, 3, 8, 8, seed=3)
    pool, unpool = tc.nn.MaxPool2d(2, 2, return_indices=True), tc.nn.MaxUnpool2d(2, 2)
    y, i = pool(x.cuda())
    close(unpool(y, i), unpool(*pool(x)), tc.float64)
    for m in [tc.nn.AvgPool2d(3, 2, 1), tc.nn.AdaptiveAvgPool2d((1, 1)), tc.nn.MaxPool2d(3, 2, 1)]:
        close(m(x.cuda()), m(x), tc.float64)


def test_pool_double_backward():
    x = distinct(1, 2, 6, 6, seed=4)
    check_second_order(lambda t: F.avg_pool2d(t, 3, 2, 1), [x])
    check_second_order(lambda t: F.max_pool2d(t, 3, 2, 1), [x])


# --------------------------------------------------------------------------- normalization


@pytest.mark.parametrize("use_cudnn", [True, False], ids=["cudnn", "composite"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 10), (2, 5, 6, 7), (2, 3, 4, 5, 3)])
def test_batch_norm_training(shape, dtype, use_cudnn):
    tc.backends.cudnn.enabled = use_cudnn
    c = shape[1]
    x, w, b = randn(*shape, seed=1) * 2 + 1, randn(c, seed=2), randn(c, seed=3)
    rm, rv = randn(c, seed=4), randn(c, seed=5).abs() + 0.5
    rmg, rvg = rm.to(dtype).cuda(), rv.to(dtype).cuda()
    rmc, rvc = rm.to(dtype).to(ref_dtype(dtype)), rv.to(dtype).to(ref_dtype(dtype))

    def fn(x, w, b):
        cuda = x.is_cuda
        return F.batch_norm(x, rmg if cuda else rmc, rvg if cuda else rvc, w, b, True, 0.2, 1e-5)

    check_fn(fn, [x, w, b], dtype)
    close(rmg, rmc, dtype)
    close(rvg, rvc, dtype)


@pytest.mark.parametrize("use_cudnn", [True, False], ids=["cudnn", "composite"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_eval(dtype, use_cudnn):
    tc.backends.cudnn.enabled = use_cudnn
    x = randn(3, 4, 5, 5, seed=1)
    rm, rv = randn(4, seed=4), randn(4, seed=5).abs() + 0.5
    w, b = randn(4, seed=2), randn(4, seed=3)
    rmc, rvc = rm.to(dtype).to(ref_dtype(dtype)), rv.to(dtype).to(ref_dtype(dtype))
    rmg, rvg = rm.to(dtype).cuda(), rv.to(dtype).cuda()
    check_fn(
        lambda x, w, b: F.batch_norm(
            x, rmg if x.is_cuda else rmc, rvg if x.is_cuda else rvc, w, b, False, 0.1, 1e-5
        ),
        [x, w, b],
        dtype,
    )


def test_batch_norm_half_input_float_params():
    x = randn(4, 3, 6, 6, seed=1)
    rm, rv = tc.zeros(3, device="cuda"), tc.ones(3, device="cuda")
    w, b = tc.ones(3, device="cuda"), tc.zeros(3, device="cuda")
    y = F.batch_norm(x.half().cuda(), rm, rv, w, b, True)
    assert y.dtype == tc.float16
    ref = F.batch_norm(x.half().float(), tc.zeros(3), tc.ones(3), tc.ones(3), tc.zeros(3), True)
    close(y, ref, tc.float16)
    close(rm, tc.zeros(3) * 0.9 + 0.1 * x.half().float().mean((0, 2, 3)), tc.float16)


@pytest.mark.parametrize("module", ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm2d"])
def test_norm_modules_train_step(module):
    nd = {"1d": 1, "2d": 2, "3d": 3}[module[-2:]]
    shape = (4, 3, 7)[:2] + (5,) * nd if nd > 1 else (4, 3, 7)
    kwargs = {"affine": True, "track_running_stats": True} if module.startswith("Instance") else {}
    m = getattr(tc.nn, module)(3, **kwargs).double()
    mg = getattr(tc.nn, module)(3, **kwargs).double()
    mg.load_state_dict(m.state_dict())
    mg.cuda()
    x = randn(*shape, seed=1)
    for _ in range(2):
        y, yg = m(x), mg(x.cuda())
        close(yg, y, tc.float64)
        (y * y).sum().backward()
        (yg * yg).sum().backward()
    close(mg.weight.grad, m.weight.grad, tc.float64)
    for name, buf in m.state_dict().items():
        close(mg.state_dict()[name].double(), buf.double(), tc.float64)
    m.eval()
    mg.eval()
    close(mg(x.cuda()), m(x), tc.float64)


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_and_group_norm(dtype):
    x = randn(3, 6, 5, 4, seed=1) * 3 + 1
    w, b = randn(5, 4, seed=2), randn(5, 4, seed=3)
    check_fn(lambda x, w, b: F.layer_norm(x, (5, 4), w, b, 1e-5), [x, w, b], dtype)
    check_fn(lambda x: F.layer_norm(x, (4,)), [x], dtype)
    gw, gb = randn(6, seed=4), randn(6, seed=5)
    check_fn(lambda x, w, b: F.group_norm(x, 3, w, b, 1e-5), [x, gw, gb], dtype)


@pytest.mark.parametrize("use_cudnn", [True, False], ids=["cudnn", "composite"])
def test_norm_double_backward(use_cudnn):
    tc.backends.cudnn.enabled = use_cudnn
    x, w = randn(4, 3, 5, seed=1), randn(3, seed=2)
    check_second_order(lambda x, w: F.batch_norm(x, None, None, w, None, True), [x, w])
    check_second_order(lambda x: F.layer_norm(x, (5,)), [x])


# ------------------------------------------------------------- layers, losses, composites


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_recurrent_modules(name):
    tc.manual_seed(0)
    m = getattr(tc.nn, name)(5, 7, num_layers=2, bidirectional=True).double()
    mg = getattr(tc.nn, name)(5, 7, num_layers=2, bidirectional=True).double()
    mg.load_state_dict(m.state_dict())
    mg.cuda()
    x = randn(6, 3, 5, seed=1)
    y, yg = m(x)[0], mg(x.cuda())[0]
    close(yg, y, tc.float64)
    y.square().sum().backward()
    yg.square().sum().backward()
    for (n, p), (_, pg) in zip(m.named_parameters(), mg.named_parameters()):
        close(pg.grad, p.grad, tc.float64)


def test_recurrent_cells():
    x, h, c = randn(3, 4, seed=1), randn(3, 6, seed=2), randn(3, 6, seed=3)
    w_ih, w_hh = randn(24, 4, seed=4), randn(24, 6, seed=5)
    b_ih, b_hh = randn(24, seed=6), randn(24, seed=7)
    check_fn(
        lambda *a: F.lstm_cell(a[0], (a[1], a[2]), *a[3:])[0],
        [x, h, c, w_ih, w_hh, b_ih, b_hh],
        tc.float64,
    )
    check_fn(
        lambda *a: F.gru_cell(*a), [x, h, w_ih[:18], w_hh[:18], b_ih[:18], b_hh[:18]], tc.float64
    )


LOSSES = {
    "mse_loss": lambda x, t: F.mse_loss(x, t),
    "l1_loss": lambda x, t: F.l1_loss(x, t),
    "smooth_l1_loss": lambda x, t: F.smooth_l1_loss(x, t, beta=0.5),
    "huber_loss": lambda x, t: F.huber_loss(x, t, delta=0.7),
    "bce_with_logits": lambda x, t: F.binary_cross_entropy_with_logits(x, t.sigmoid()),
    "bce": lambda x, t: F.binary_cross_entropy(x.sigmoid(), t.sigmoid()),
    "kl_div": lambda x, t: F.kl_div(F.log_softmax(x, 1), F.softmax(t, 1), reduction="batchmean"),
    "soft_margin": lambda x, t: F.soft_margin_loss(x, t.sign()),
    "cosine_similarity": lambda x, t: F.cosine_similarity(x, t).sum(),
    "gaussian_nll": lambda x, t: F.gaussian_nll_loss(x, t, t.square() + 0.5),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_losses(name):
    x, t = randn(6, 5, seed=1), randn(6, 5, seed=2)
    check_fn(lambda x: LOSSES[name](x, t.cuda() if x.is_cuda else t), [x], tc.float64)


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss", "multi_margin_loss"])
def test_class_losses(name):
    x = randn(7, 5, seed=1)
    t = tc.tensor([0, 4, 2, 1, 3, 2, 0])
    w = randn(5, seed=3).abs() + 0.1
    fn = getattr(F, name)
    if name == "nll_loss":
        check_fn(lambda x: fn(F.log_softmax(x, 1), t.to(x.device), w.to(x.device)), [x], tc.float64)
    else:
        check_fn(lambda x: fn(x, t.to(x.device), weight=w.to(x.device)), [x], tc.float64)


COMPOSITES = {
    "relu": F.relu,
    "gelu": F.gelu,
    "silu": F.silu,
    "elu": F.elu,
    "leaky_relu": F.leaky_relu,
    "hardswish": F.hardswish,
    "mish": F.mish,
    "softplus": F.softplus,
    "logsigmoid": F.logsigmoid,
    "softmax": lambda x: F.softmax(x, 1),
    "log_softmax": lambda x: F.log_softmax(x, 1),
    "normalize": lambda x: F.normalize(x, dim=1),
    "glu": lambda x: F.glu(x, 1),
    "dropout_eval": lambda x: F.dropout(x, 0.5, training=False),
    "pad_constant": lambda x: F.pad(x, (1, 2, 0, 1), value=0.5),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda x: F.pixel_unshuffle(x, 2),
    "local_response_norm": lambda x: F.local_response_norm(x, 3),
    "channel_shuffle": lambda x: F.channel_shuffle(x, 2),
    "affine_grid": lambda x: F.affine_grid(x[:, 0, :2, :3], (2, 1, 5, 4), align_corners=False),
    "lp_pool2d": lambda x: F.lp_pool2d(x.abs() + 0.1, 2, 2),
    "instance_norm": lambda x: F.instance_norm(x),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composite_functionals(name):
    x = randn(2, 4, 6, 6, seed=1)
    check_fn(COMPOSITES[name], [x], tc.float64)


def test_linear_and_bilinear():
    x, w, b = randn(5, 4, seed=1), randn(3, 4, seed=2), randn(3, seed=3)
    check_fn(F.linear, [x, w, b], tc.float64)
    check_fn(F.linear, [x, w, b], tc.float32)
    x2, w2 = randn(5, 6, seed=4), randn(3, 4, 6, seed=5)
    check_fn(F.bilinear, [x, x2, w2, b], tc.float64)


def test_sequential_training_step_matches_cpu():
    tc.manual_seed(0)

    def model():
        return tc.nn.Sequential(
            tc.nn.Conv2d(3, 8, 3, padding=1),
            tc.nn.BatchNorm2d(8),
            tc.nn.ReLU(),
            tc.nn.MaxPool2d(2),
            tc.nn.Conv2d(8, 8, 3, stride=2),
            tc.nn.AdaptiveAvgPool2d(1),
            tc.nn.Flatten(),
            tc.nn.Linear(8, 5),
        ).double()

    m, mg = model(), model()
    mg.load_state_dict(m.state_dict())
    mg.cuda()
    x, t = randn(4, 3, 16, 16, seed=1), tc.tensor([0, 1, 4, 2])
    for _ in range(3):
        for mod, xx, tt in ((m, x, t), (mg, x.cuda(), t.cuda())):
            mod.zero_grad()
            F.cross_entropy(mod(xx), tt).backward()
            with tc.no_grad():  # plain SGD in tensor ops (the fused optimizers are CPU kernels)
                for p in mod.parameters():
                    p.sub_(p.grad * 0.1)
    for (n, p), (_, pg) in zip(m.state_dict().items(), mg.state_dict().items()):
        close(pg.double(), p.double(), tc.float64, 100)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes(mode):
    x = randn(2, 3, 5, 6, seed=1)
    check_fn(lambda t: F.pad(t, (2, 1, 1, 3), mode=mode), [x], tc.float64)
    check_fn(lambda t: F.pad(t, (-1, 2), value=0.25), [x], tc.float64)


@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding(padding_idx, freq):
    w = randn(6, 4, seed=1)
    idx = tc.tensor([[0, 2, 5], [2, 2, 1]])

    def fn(w):
        return F.embedding(idx.to(w.device), w, padding_idx=padding_idx, scale_grad_by_freq=freq)

    check_fn(fn, [w], tc.float64)
    m = tc.nn.Embedding(6, 4).cuda()
    assert m(idx.cuda()).is_cuda
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(tc.tensor([6], device="cuda"), w.cuda())


INTERP = [
    ((2, 3, 7), dict(scale_factor=2.5, mode="nearest")),
    ((2, 3, 7), dict(size=11, mode="linear", align_corners=True)),
    ((2, 3, 6, 7), dict(size=(9, 5), mode="nearest-exact")),
    ((2, 3, 6, 7), dict(scale_factor=2, mode="bilinear", align_corners=False)),
    ((2, 3, 6, 7), dict(size=(4, 10), mode="bicubic", align_corners=True)),
    ((1, 2, 16, 12), dict(size=(5, 4), mode="bilinear", antialias=True)),
    ((1, 2, 9, 9), dict(size=(4, 3), mode="area")),
    ((1, 2, 4, 5, 3), dict(scale_factor=(2, 1.5, 2), mode="trilinear")),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,kwargs", INTERP)
def test_interpolate(shape, kwargs, dtype):
    x = randn(*shape, seed=1)
    check_fn(lambda t: F.interpolate(t, **kwargs), [x], dtype)


def test_unfold_fold():
    x = randn(2, 3, 6, 7, seed=1)
    check_fn(
        lambda t: F.unfold(t, (3, 2), dilation=(1, 2), padding=1, stride=(2, 1)), [x], tc.float64
    )
    cols = randn(2, 3 * 4, 9, seed=2)
    check_fn(lambda t: F.fold(t, (4, 4), 2, padding=0, stride=1), [cols], tc.float64)


# grid_sample, embedding_bag, ctc_loss and embedding's max_norm, formerly CPU-only here, have
# CUDA paths now: test_cuda_nn_kernels.py compares them with the CPU.


# ---------------------------------------------------------------- switches (no GPU needed)


@pytest.mark.nogpu
def test_cudnn_flags_roundtrip():
    cudnn = tc.backends.cudnn
    for name, default in (("enabled", True), ("benchmark", False), ("deterministic", False)):
        old = getattr(cudnn, name)
        setattr(cudnn, name, not default)
        assert getattr(cudnn, name) is (not default)
        setattr(cudnn, name, old)
    cudnn.allow_tf32 = True
    assert cudnn.allow_tf32 is True
    with cudnn.flags(enabled=True, benchmark=True, deterministic=True, allow_tf32=False):
        assert cudnn.benchmark and cudnn.deterministic and not cudnn.allow_tf32
    assert not cudnn.benchmark and not cudnn.deterministic and cudnn.allow_tf32


@pytest.mark.nogpu
def test_cudnn_availability_is_consistent():
    cudnn = tc.backends.cudnn
    if cudnn.is_built():
        assert cudnn.version() >= 8000
        assert cudnn.is_available() == tc.cuda.is_available()
    else:
        assert cudnn.version() is None and not cudnn.is_available()
    assert not cudnn.is_acceptable(tc.ones(2))


@pytest.mark.nogpu
def test_cpu_conv_ignores_cudnn_flags():
    x, w = randn(1, 2, 6, 6, seed=1), randn(3, 2, 3, 3, seed=2)
    ref = F.conv2d(x, w, None, 1, 1)
    with tc.backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert np.array_equal(F.conv2d(x, w, None, 1, 1).numpy(), ref.numpy())
    # Half inputs on the CPU compute in float32 (autocast hands them to conv): same values,
    # rounded to half.
    y = F.conv2d(x.half(), w.half(), None, 1, 1)
    assert y.dtype == tc.float16
    ref_half = F.conv2d(x.half().float(), w.half().float(), None, 1, 1)
    assert np.allclose(y.float().numpy(), ref_half.numpy(), rtol=2e-3, atol=2e-3)
    with pytest.raises(TypeError, match="conv2d"):
        F.conv2d(x.int(), w.int())
