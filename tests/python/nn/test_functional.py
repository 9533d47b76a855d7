"""Composite layers, activations and losses against torch 1.13, plus float64 gradchecks."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def arr(*shape, lo=-2.0, hi=2.0, dtype=np.float64):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


ACTIVATIONS = [
    ("relu", {}),
    ("relu6", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {"alpha": 0.7}),
    ("selu", {}),
    ("celu", {"alpha": 1.3}),
    ("gelu", {}),
    ("gelu", {"approximate": "tanh"}),
    ("silu", {}),
    ("mish", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 1.5}),
    ("hardswish", {}),
    ("hardsigmoid", {}),
    ("tanh", {}),
    ("sigmoid", {}),
    ("softplus", {"beta": 2.0, "threshold": 3.0}),
    ("softsign", {}),
    ("tanhshrink", {}),
    ("logsigmoid", {}),
    ("hardshrink", {"lambd": 0.3}),
    ("softshrink", {"lambd": 0.3}),
    ("threshold", {"threshold": 0.1, "value": -3.0}),
    ("softmax", {"dim": 1}),
    ("log_softmax", {"dim": 0}),
    ("softmin", {"dim": -1}),
    ("glu", {"dim": 1}),
]


@pytest.mark.parametrize(
    "name,kw", ACTIVATIONS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ACTIVATIONS)]
)
def test_activation_matches_torch_and_gradcheck(torch_ref, name, kw):
    torch = torch_ref
    x = arr(3, 4, 5, lo=-4, hi=4)
    out = getattr(F, name)(tc.from_numpy(x), **kw)
    ref = getattr(torch.nn.functional, name)(torch.from_numpy(x), **kw)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)
    xs = tc.from_numpy(arr(2, 4, 3)).requires_grad_(True)
    assert gradcheck(lambda t: getattr(F, name)(t, **kw), (xs,))


def test_activation_modules_and_prelu(torch_ref):
    torch = torch_ref
    x = arr(2, 3, 4)
    for mod, tmod in [
        (nn.ReLU6(), torch.nn.ReLU6()),
        (nn.ELU(0.5), torch.nn.ELU(0.5)),
        (nn.Softplus(), torch.nn.Softplus()),
        (nn.Hardswish(), torch.nn.Hardswish()),
        (nn.Threshold(0.2, 5.0), torch.nn.Threshold(0.2, 5.0)),
        (nn.Softmax(1), torch.nn.Softmax(1)),
        (nn.LogSoftmax(2), torch.nn.LogSoftmax(2)),
        (nn.GLU(1), torch.nn.GLU(1) if False else None),
    ]:
        if tmod is None:
            continue
        np.testing.assert_allclose(
            mod(tc.from_numpy(x)).numpy(), tmod(torch.from_numpy(x)).numpy(), rtol=1e-10
        )
    p = nn.PReLU(3).double()
    tp = torch.nn.PReLU(3).double()
    with tc.no_grad():
        p.weight.copy_(tc.tensor([0.1, 0.2, 0.3], dtype=tc.float64))
    with torch.no_grad():
        tp.weight.copy_(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64))
    np.testing.assert_allclose(
        p(tc.from_numpy(x)).detach().numpy(), tp(torch.from_numpy(x)).detach().numpy()
    )
    assert gradcheck(
        lambda t, w: F.prelu(t, w),
        (
            tc.from_numpy(x).requires_grad_(True),
            tc.from_numpy(np.array([0.1, 0.2, 0.3])).requires_grad_(True),
        ),
    )
    with pytest.raises(ValueError, match="prelu: weight has 3 parameters but input has 5 channels"):
        F.prelu(tc.zeros(2, 5), p.weight)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape, channels",
    [((4, 64, 500), 1), ((4, 64, 500), 64), ((3, 5), 5), ((2, 3, 4, 5), 3), ((7,), 1)],
)
def test_prelu_kernel_matches_torch(torch_ref, dtype, shape, channels):
    # the fused kernel: values, both gradients, non-finite inputs and a strided input
    torch = torch_ref
    rng = np.random.default_rng(len(shape) * 10 + channels)
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:4] = [0.0, np.nan, np.inf, -np.inf]
    w = rng.uniform(0.05, 0.5, channels).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    ours_x, ours_w = tc.tensor(x, requires_grad=True), tc.tensor(w, requires_grad=True)
    ref_x, ref_w = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out, ref = F.prelu(ours_x, ours_w), torch.nn.functional.prelu(ref_x, ref_w)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), **tol)
    out.backward(tc.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(ours_x.grad.numpy(), ref_x.grad.numpy(), **tol)
    # the weight's gradient sums over non-finite products: compare where torch is finite
    assert np.array_equal(np.isfinite(ours_w.grad.numpy()), np.isfinite(ref_w.grad.numpy()))
    finite = np.isfinite(ref_w.grad.numpy())
    np.testing.assert_allclose(
        ours_w.grad.numpy()[finite],
        ref_w.grad.numpy()[finite],
        rtol=1e-4 if dtype == "float32" else 1e-10,
    )
    if len(shape) >= 2:  # a transposed (non-contiguous) view of the input
        xt = np.ascontiguousarray(np.swapaxes(x, 0, -1))
        view = tc.tensor(xt).transpose(0, -1)
        if view.shape[1] == channels or channels == 1:
            np.testing.assert_allclose(
                F.prelu(view, tc.tensor(w)).numpy(),
                torch.nn.functional.prelu(
                    torch.tensor(xt).transpose(0, -1), torch.tensor(w)
                ).numpy(),
                **tol,
            )


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("channels", [1, 6])
def test_prelu_reduced_input_float32_weight(low, channels):
    # CPU autocast's case (bfloat16 activations, float32 PReLU weight): the promoted float32
    # result and both gradients, against NumPy on the widened input
    rng = np.random.default_rng(channels)
    x = tc.tensor(rng.standard_normal((3, 6, 50)).astype(np.float32)).to(getattr(tc, low))
    x.requires_grad_(True)
    w_np = rng.uniform(0.05, 0.5, channels).astype(np.float32)
    w = tc.tensor(w_np, requires_grad=True)
    g = rng.standard_normal((3, 6, 50)).astype(np.float32)
    out = F.prelu(x, w)
    assert out.dtype == tc.float32
    xw = x.detach().float().numpy()
    slope = np.broadcast_to(w_np.reshape(1, -1, 1), xw.shape)
    np.testing.assert_array_equal(out.detach().numpy(), np.where(xw > 0, xw, slope * xw))
    out.backward(tc.tensor(g))
    assert x.grad.dtype == getattr(tc, low)
    want_gx = tc.tensor(np.where(xw > 0, g, slope * g)).to(getattr(tc, low)).float().numpy()
    np.testing.assert_array_equal(x.grad.float().numpy(), want_gx)
    gw = np.where(xw > 0, 0.0, g.astype(np.float64) * xw)
    want_gw = gw.sum(axis=(0, 2)) if channels > 1 else np.array([gw.sum()])
    np.testing.assert_allclose(w.grad.numpy(), want_gw, rtol=1e-5, atol=1e-5)


def test_prelu_double_backward():
    x = tc.from_numpy(arr(2, 3, 4)).requires_grad_(True)
    w = tc.from_numpy(np.array([0.1, 0.2, 0.3])).requires_grad_(True)
    assert gradgradcheck(lambda t, v: F.prelu(t, v), (x, w))
    one = tc.from_numpy(np.array([0.25])).requires_grad_(True)
    assert gradgradcheck(lambda t, v: F.prelu(t, v), (x, one))


def test_linear_bilinear(torch_ref):
    torch = torch_ref
    lin, tlin = nn.Linear(5, 3).double(), torch.nn.Linear(5, 3).double()
    lin.load_state_dict({k: tc.from_numpy(v.numpy()) for k, v in tlin.state_dict().items()})
    for shape in [(5,), (4, 5), (2, 3, 5)]:
        x = arr(*shape)
        np.testing.assert_allclose(
            lin(tc.from_numpy(x)).detach().numpy(),
            tlin(torch.from_numpy(x)).detach().numpy(),
            rtol=1e-12,
        )
    with pytest.raises(
        ValueError, match="Linear: expected input with last dimension 5, got shape \\(4, 6\\)"
    ):
        lin(tc.zeros(4, 6, dtype=tc.float64))
    bil, tbil = nn.Bilinear(3, 4, 2).double(), torch.nn.Bilinear(3, 4, 2).double()
    bil.load_state_dict({k: tc.from_numpy(v.numpy()) for k, v in tbil.state_dict().items()})
    a, b = arr(6, 3), arr(6, 4)
    np.testing.assert_allclose(
        bil(tc.from_numpy(a), tc.from_numpy(b)).detach().numpy(),
        tbil(torch.from_numpy(a), torch.from_numpy(b)).detach().numpy(),
        rtol=1e-10,
    )
    assert gradcheck(
        lambda x1, x2, w: F.bilinear(x1, x2, w),
        (
            tc.from_numpy(arr(2, 3)).requires_grad_(True),
            tc.from_numpy(arr(2, 4)).requires_grad_(True),
            tc.from_numpy(arr(2, 3, 4)).requires_grad_(True),
        ),
    )


def test_flatten_unflatten_identity_pad():
    x = tc.randn(2, 3, 4, 5)
    assert tuple(nn.Flatten()(x).shape) == (2, 60)
    assert tuple(nn.Flatten(0, 2)(x).shape) == (24, 5)
    assert tuple(nn.Unflatten(1, (3, 1))(tc.randn(2, 3, 5)).shape) == (2, 3, 1, 5)
    assert nn.Identity(7, foo=1)(x) is x
    a = np.arange(12.0).reshape(1, 3, 4)
    out = F.pad(tc.from_numpy(a), (1, 2, -1, 1), value=9.0).numpy()
    ref = np.pad(a[:, 1:, :], ((0, 0), (0, 1), (1, 2)), constant_values=9.0)
    np.testing.assert_array_equal(out, ref)
    z = nn.ZeroPad2d((1, 0, 2, 1))(tc.from_numpy(a[None]))
    assert tuple(z.shape) == (1, 1, 6, 5)
    assert gradcheck(
        lambda t: F.pad(t, (2, 1, 0, 3)), (tc.from_numpy(arr(2, 3)).requires_grad_(True),)
    )


def test_dropout_family():
    x = tc.ones(200, 50)
    d = nn.Dropout(0.3)
    y = d(x).numpy()
    kept = y != 0
    assert 0.6 < kept.mean() < 0.8
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    d.eval()
    assert d(x) is x
    y2 = F.dropout2d(tc.ones(8, 16, 3, 3), 0.5).numpy()
    per_channel = y2.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel != 0).all(-1))
    a = F.alpha_dropout(tc.randn(100000), 0.2, training=True).numpy()
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.03
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_one_hot_normalize_distances(torch_ref):
    torch = torch_ref
    idx = np.array([[0, 3], [2, 1]])
    np.testing.assert_array_equal(
        F.one_hot(tc.from_numpy(idx), 5).numpy(),
        torch.nn.functional.one_hot(torch.from_numpy(idx), 5).numpy(),
    )
    with pytest.raises(ValueError, match="smaller than num_classes"):
        F.one_hot(tc.from_numpy(idx), 3)
    x, y = arr(4, 6), arr(4, 6)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    for p in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(
            F.normalize(tc.from_numpy(x), p, 1).numpy(),
            torch.nn.functional.normalize(tx, p, 1).numpy(),
            rtol=1e-10,
        )
        np.testing.assert_allclose(
            F.pairwise_distance(tc.from_numpy(x), tc.from_numpy(y), p).numpy(),
            torch.nn.functional.pairwise_distance(tx, ty, p).numpy(),
            rtol=1e-10,
        )
    np.testing.assert_allclose(
        F.cosine_similarity(tc.from_numpy(x), tc.from_numpy(y)).numpy(),
        torch.nn.functional.cosine_similarity(tx, ty).numpy(),
        rtol=1e-10,
    )
    assert gradcheck(
        lambda a, b: F.cosine_similarity(a, b, dim=1),
        (tc.from_numpy(x).requires_grad_(True), tc.from_numpy(y).requires_grad_(True)),
    )


def test_scaled_dot_product_attention():
    q, k, v = arr(2, 3, 5, 4), arr(2, 3, 6, 4), arr(2, 3, 6, 7)
    mask = RNG.uniform(size=(5, 6)) > 0.3
    mask[:, 0] = True
    out = F.scaled_dot_product_attention(
        tc.from_numpy(q), tc.from_numpy(k), tc.from_numpy(v), attn_mask=tc.from_numpy(mask)
    ).numpy()
    s = q @ k.swapaxes(-1, -2) / 2.0
    s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(out, w @ v, rtol=1e-10)
    assert gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
        tuple(tc.from_numpy(t[:1, :1, :4]).requires_grad_(True) for t in (q, k, v)),
    )


def _copy_weights(mod, tmod):
    mod.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in tmod.state_dict().items()}
    )


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_matches_torch(torch_ref, batch_first):
    torch = torch_ref
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, kdim=6, vdim=5).double()
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first, kdim=6, vdim=5).double()
    _copy_weights(m, tm)
    L, S, N = 4, 5, 3
    shape = (lambda a, b: (b, a)) if batch_first else (lambda a, b: (a, b))
    q, k, v = arr(*shape(L, N), 8), arr(*shape(S, N), 6), arr(*shape(S, N), 5)
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, 3:] = True
    am = arr(L, S)

    def attend(lib, module):
        q_, k_, v_, kpm_, am_ = (lib.from_numpy(a) for a in (q, k, v, kpm, am))
        return module(q_, k_, v_, key_padding_mask=kpm_, attn_mask=am_)

    (out, w), (tout, tw) = attend(tc, m), attend(torch, tm)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)


LOSSES = [
    ("mse_loss", {}, "float"),
    ("l1_loss", {"reduction": "sum"}, "float"),
    ("smooth_l1_loss", {"beta": 0.5}, "float"),
    ("huber_loss", {"delta": 0.7, "reduction": "none"}, "float"),
    ("binary_cross_entropy", {}, "prob"),
    ("binary_cross_entropy_with_logits", {}, "prob01"),
    ("kl_div", {"reduction": "batchmean"}, "logprob"),
    ("kl_div", {"log_target": True, "reduction": "sum"}, "logt"),
    ("poisson_nll_loss", {}, "count"),
    ("poisson_nll_loss", {"log_input": False, "full": True}, "poscount"),
    ("soft_margin_loss", {}, "sign"),
    ("hinge_embedding_loss", {"margin": 0.5}, "sign"),
    ("multilabel_soft_margin_loss", {}, "prob01"),
]


def _loss_target(kind, shape):
    if kind == "float":
        return arr(*shape)
    if kind in ("prob", "prob01"):
        return RNG.uniform(0, 1, size=shape)
    if kind == "logprob":
        t = RNG.uniform(0, 1, size=shape)
        t[0, 0] = 0.0
        return t / t.sum(-1, keepdims=True)
    if kind == "logt":
        return np.log(RNG.uniform(0.1, 1, size=shape))
    if kind in ("count", "poscount"):
        return RNG.integers(0, 5, size=shape).astype(np.float64)
    return np.where(RNG.uniform(size=shape) > 0.5, 1.0, -1.0)


@pytest.mark.parametrize(
    "name,kw,kind", LOSSES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LOSSES)]
)
def test_losses_match_torch(torch_ref, name, kw, kind):
    torch = torch_ref
    shape = (4, 5)
    x = RNG.uniform(0.05, 0.95, size=shape) if kind in ("prob", "poscount") else arr(*shape)
    t = _loss_target(kind, shape)
    out = getattr(F, name)(tc.from_numpy(x), tc.from_numpy(t), **kw)
    ref = getattr(torch.nn.functional, name)(torch.from_numpy(x), torch.from_numpy(t), **kw)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-9, atol=1e-12)
    assert gradcheck(
        lambda a: getattr(F, name)(a, tc.from_numpy(t), **kw),
        (tc.from_numpy(x).requires_grad_(True),),
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_indices(torch_ref, reduction, smoothing):
    torch = torch_ref
    x = arr(3, 4, 2, 2)
    t = RNG.integers(0, 4, size=(3, 2, 2))
    t[0, 0, 0] = -100
    w = RNG.uniform(0.5, 2, size=4)
    for weight in (None, w):
        kw = dict(reduction=reduction, label_smoothing=smoothing)
        out = F.cross_entropy(
            tc.from_numpy(x),
            tc.from_numpy(t),
            None if weight is None else tc.from_numpy(weight),
            **kw,
        )
        ref = torch.nn.functional.cross_entropy(
            torch.from_numpy(x),
            torch.from_numpy(t),
            None if weight is None else torch.from_numpy(weight),
            **kw,
        )
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-9, atol=1e-12)
    assert gradcheck(
        lambda a: F.cross_entropy(a, tc.from_numpy(t), tc.from_numpy(w), **kw),
        (tc.from_numpy(x).requires_grad_(True),),
    )


def test_cross_entropy_probabilities_and_nll(torch_ref):
    torch = torch_ref
    x = arr(5, 3)
    p = RNG.uniform(size=(5, 3))
    p /= p.sum(1, keepdims=True)
    w = np.array([1.0, 2.0, 0.5])
    for kw in ({}, {"label_smoothing": 0.1}, {"reduction": "sum"}):
        out = F.cross_entropy(tc.from_numpy(x), tc.from_numpy(p), tc.from_numpy(w), **kw)
        ref = torch.nn.functional.cross_entropy(
            torch.from_numpy(x), torch.from_numpy(p), torch.from_numpy(w), **kw
        )
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10)
    t = np.array([0, 2, 1, 1, 0])
    loss = nn.NLLLoss(weight=tc.from_numpy(w), ignore_index=1)
    tloss = torch.nn.NLLLoss(weight=torch.from_numpy(w), ignore_index=1)
    np.testing.assert_allclose(
        loss(tc.from_numpy(x), tc.from_numpy(t)).numpy(),
        tloss(torch.from_numpy(x), torch.from_numpy(t)).numpy(),
        rtol=1e-12,
    )
    # Unbatched input.
    np.testing.assert_allclose(
        F.cross_entropy(tc.from_numpy(x[0]), tc.tensor(2)).numpy(),
        torch.nn.functional.cross_entropy(torch.from_numpy(x[0]), torch.tensor(2)).numpy(),
    )
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(tc.from_numpy(x), tc.tensor([0, 1, 2, 3, 0]))
    with pytest.raises(ValueError, match="expected target of shape \\[5\\]"):
        F.nll_loss(tc.from_numpy(x), tc.tensor([0, 1]))


def test_bce_weights_and_pairwise_losses(torch_ref):
    torch = torch_ref
    x, t = arr(4, 3), RNG.uniform(size=(4, 3))
    pw = np.array([1.0, 3.0, 0.2])
    out = nn.BCEWithLogitsLoss(pos_weight=tc.from_numpy(pw))(tc.from_numpy(x), tc.from_numpy(t))
    ref = torch.nn.BCEWithLogitsLoss(pos_weight=torch.from_numpy(pw))(
        torch.from_numpy(x), torch.from_numpy(t)
    )
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10)
    a, b, c = arr(6, 4), arr(6, 4), arr(6, 4)
    y = np.where(RNG.uniform(size=6) > 0.5, 1.0, -1.0)
    checks = [
        (nn.CosineEmbeddingLoss(0.2), torch.nn.CosineEmbeddingLoss(0.2), (a, b, y)),
        (nn.MarginRankingLoss(0.3), torch.nn.MarginRankingLoss(0.3), (a[:, 0], b[:, 0], y)),
        (
            nn.TripletMarginLoss(1.0, swap=True),
            torch.nn.TripletMarginLoss(1.0, swap=True),
            (a, b, c),
        ),
        (
            nn.GaussianNLLLoss(full=True),
            torch.nn.GaussianNLLLoss(full=True),
            (a, b, RNG.uniform(0.1, 2, (6, 1))),
        ),
    ]
    for mod, tmod, args in checks:
        np.testing.assert_allclose(
            mod(*[tc.from_numpy(v) for v in args]).numpy(),
            tmod(*[torch.from_numpy(v) for v in args]).numpy(),
            rtol=1e-9,
        )
        assert gradcheck(
            lambda p: mod(p, *[tc.from_numpy(v) for v in args[1:]]),
            (tc.from_numpy(args[0]).requires_grad_(True),),
        )
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.binary_cross_entropy(tc.tensor([1.5]), tc.tensor([1.0]))


def _native():
    return hasattr(tc._C, "_nn")


native = pytest.mark.skipif(
    not _native(), reason="needs the native nn kernels (tensorcore._C._nn, wt/nnnative)"
)


def _close(mod, tmod, *inputs, rtol=1e-5, atol=1e-6):
    _copy_weights(mod, tmod)
    out = mod(*[tc.from_numpy(x) for x in inputs])
    ref = tmod(*[torch_from(x) for x in inputs])
    if isinstance(out, tuple):
        out, ref = out[0], ref[0]
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)


def torch_from(x):
    import torch

    return torch.from_numpy(x)


@native
def test_native_layer_modules_match_torch(torch_ref):
    torch = torch_ref
    f = np.float32
    x2 = arr(2, 4, 9, 9, dtype=f)
    cases = [
        (
            nn.Conv2d(4, 6, 3, padding="same", padding_mode="reflect"),
            torch.nn.Conv2d(4, 6, 3, padding="same", padding_mode="reflect"),
            (x2,),
        ),
        (
            nn.Conv2d(4, 6, 3, stride=2, groups=2, dilation=2),
            torch.nn.Conv2d(4, 6, 3, stride=2, groups=2, dilation=2),
            (x2,),
        ),
        (nn.Conv1d(4, 3, 2), torch.nn.Conv1d(4, 3, 2), (arr(2, 4, 7, dtype=f),)),
        (
            nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
            torch.nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
            (x2,),
        ),
        (nn.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d(3, 2, 1), (x2,)),
        (nn.AvgPool2d(2), torch.nn.AvgPool2d(2), (x2,)),
        (nn.AdaptiveAvgPool2d((2, 3)), torch.nn.AdaptiveAvgPool2d((2, 3)), (x2,)),
        (nn.BatchNorm2d(4), torch.nn.BatchNorm2d(4), (x2,)),
        (nn.GroupNorm(2, 4), torch.nn.GroupNorm(2, 4), (x2,)),
        (nn.LayerNorm(9), torch.nn.LayerNorm(9), (x2,)),
        (nn.InstanceNorm2d(4, affine=True), torch.nn.InstanceNorm2d(4, affine=True), (x2,)),
        (nn.PixelShuffle(2), torch.nn.PixelShuffle(2), (x2,)),
        (
            nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
            torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
            (x2,),
        ),
        (nn.ReflectionPad2d((1, 2, 0, 1)), torch.nn.ReflectionPad2d((1, 2, 0, 1)), (x2,)),
        (nn.ReplicationPad1d(2), torch.nn.ReplicationPad1d(2), (arr(2, 3, 5, dtype=f),)),
    ]
    for mod, tmod, inputs in cases:
        _close(mod, tmod, *inputs)
    bn, tbn = nn.BatchNorm2d(4), torch.nn.BatchNorm2d(4)
    _close(bn, tbn, x2)
    np.testing.assert_allclose(bn.running_var.numpy(), tbn.running_var.numpy(), rtol=1e-5)
    emb, temb = nn.Embedding(10, 3, padding_idx=0), torch.nn.Embedding(10, 3, padding_idx=0)
    idx = np.array([[1, 0, 9], [3, 3, 2]])
    _copy_weights(emb, temb)
    np.testing.assert_allclose(
        emb(tc.from_numpy(idx)).detach().numpy(), temb(torch.from_numpy(idx)).detach().numpy()
    )
    with pytest.raises(ValueError, match="expected input with 4 channels, got 3"):
        nn.Conv2d(4, 6, 3)(tc.zeros(1, 3, 9, 9))


@native
def test_native_transformer_and_ctc(torch_ref):
    torch = torch_ref
    tm = torch.nn.Transformer(16, 2, 2, 2, 32, dropout=0.0, batch_first=True)
    m = nn.Transformer(16, 2, 2, 2, 32, dropout=0.0, batch_first=True)
    _copy_weights(m, tm)
    src, tgt = arr(2, 5, 16, dtype=np.float32), arr(2, 4, 16, dtype=np.float32)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    out = m(tc.from_numpy(src), tc.from_numpy(tgt), tgt_mask=mask)
    tout = tm(torch.from_numpy(src), torch.from_numpy(tgt), tgt_mask=torch.from_numpy(mask.numpy()))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    lp = np.log(RNG.dirichlet(np.ones(5), size=(12, 2))).astype(np.float32)
    targets = np.array([[1, 2, 2], [3, 1, 0]])
    args = (lp, targets, np.array([12, 10]), np.array([3, 2]))
    np.testing.assert_allclose(
        nn.CTCLoss()(*[tc.from_numpy(a) for a in args]).numpy(),
        torch.nn.CTCLoss()(*[torch.from_numpy(a) for a in args]).numpy(),
        rtol=1e-4,
    )


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_fused_softmax_family_and_double_backward(torch_ref, dim):
    torch = torch_ref
    from tensorcore.autograd import gradgradcheck

    x = arr(3, 4, 6, lo=-5, hi=5)
    for name in ("softmax", "log_softmax"):
        out = getattr(F, name)(tc.from_numpy(x.astype(np.float32)), dim)
        ref = getattr(torch, name)(torch.from_numpy(x.astype(np.float32)), dim)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        xs = tc.from_numpy(x[:2, :3, :3].copy()).requires_grad_(True)
        assert gradgradcheck(lambda t: getattr(F, name)(t, dim), (xs,))
    for approx in ("none", "tanh"):
        xs = tc.from_numpy(arr(5, 3)).requires_grad_(True)
        assert gradgradcheck(lambda t: F.gelu(t, approximate=approx), (xs,))
        big = arr(1000, lo=-8, hi=8).astype(np.float32)
        tb = torch.from_numpy(big).requires_grad_(True)
        ours = tc.from_numpy(big).requires_grad_(True)
        F.gelu(ours, approx).sum().backward()
        torch.nn.functional.gelu(tb, approximate=approx).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-5)
    # A row of -inf gives NaN like torch; a single -inf entry gets probability 0.
    row = tc.tensor([[0.0, float("-inf"), 1.0]])
    np.testing.assert_allclose(
        F.softmax(row, 1).numpy(), torch.softmax(torch.tensor([[0.0, float("-inf"), 1.0]]), 1)
    )


@native
def test_native_lp_pool_and_upsample_wrappers(torch_ref):
    torch = torch_ref
    x = np.abs(arr(2, 3, 8, 8, dtype=np.float32))
    _close(nn.LPPool2d(2, 2), torch.nn.LPPool2d(2, 2), x)
    np.testing.assert_allclose(
        F.upsample_nearest(tc.from_numpy(x), scale_factor=2).numpy(),
        torch.nn.functional.interpolate(torch.from_numpy(x), scale_factor=2).numpy(),
    )


@native
def test_small_cnn_trains_to_accuracy():
    """Conv/BatchNorm/pool CNN separates images of horizontal from vertical bars (>= 95%)."""
    tc.manual_seed(0)
    rng = np.random.default_rng(0)
    n = 256
    images = rng.normal(0, 0.3, (n, 1, 12, 12)).astype(np.float32)
    labels = rng.integers(0, 2, n)
    for i in range(n):
        pos = rng.integers(1, 11)
        if labels[i]:
            images[i, 0, :, pos] += 1.5
        else:
            images[i, 0, pos, :] += 1.5
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 2),
    )
    opt = tc.optim.Adam(model.parameters(), lr=0.01)
    X, Y = tc.from_numpy(images), tc.from_numpy(labels)
    for _ in range(60):
        opt.zero_grad()
        nn.functional.cross_entropy(model(X), Y).backward()
        opt.step()
    model.eval()
    acc = float((model(X).argmax(1) == Y).float().mean())
    assert acc >= 0.95, acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("channels_last", [False, True])
def test_relu_backward_fused_matches_torch(torch_ref, dtype, channels_last):
    # The fused kernel (one pass, grad where out > 0) against torch's threshold_backward,
    # in place (as ResNet's ReLU(inplace=True)) and not, with zeros in the input and a NaN and
    # an inf in the incoming gradient where the output is 0 (torch gives 0 there). The
    # channels-last input is a view (permuted back), and in-place ops on views get their
    # gradient through CopySlices, which subtracts the region's incoming gradient (NaN - NaN),
    # so that case uses finite gradients.
    torch = torch_ref
    x = arr(2, 3, 4, 5, dtype=dtype)
    x[0, 0, 0, :3] = 0.0
    g = arr(2, 3, 4, 5, dtype=dtype)
    g[x <= 0] = np.where(np.arange((x <= 0).sum()) % 2 == 0, np.nan, np.inf)[: (x <= 0).sum()]
    g_finite = np.where(np.isfinite(g), g, 0.5)
    for inplace in (False, True):
        gi = g_finite if (inplace and channels_last) else g
        tx = tc.tensor(x, requires_grad=True)
        px = torch.tensor(x, requires_grad=True)
        tin, pin = tx * 1.0, px * 1.0
        if channels_last:
            tin = tin.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
            pin = pin.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        out = F.relu(tin, inplace=inplace)
        pout = torch.nn.functional.relu(pin, inplace=inplace)
        out.backward(tc.tensor(gi))
        pout.backward(torch.tensor(gi))
        np.testing.assert_array_equal(tx.grad.numpy(), px.grad.numpy())
        assert not np.isnan(tx.grad.numpy()).any()


def test_relu_double_backward_keeps_graph():
    # With create_graph the gradient stays differentiable in the incoming gradient.
    x = tc.tensor(arr(6), requires_grad=True)
    g = tc.tensor(arr(6), requires_grad=True)
    (gx,) = tc.autograd.grad(F.relu(x), x, g, create_graph=True)
    (gg,) = tc.autograd.grad(gx.sum(), g)
    np.testing.assert_array_equal(gg.numpy(), (x.detach().numpy() > 0).astype(np.float64))
