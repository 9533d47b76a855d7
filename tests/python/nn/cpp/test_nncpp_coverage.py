"""The C++ frontend layers added for issue #3's full layer list (tensorcore.nn.cpp over
tc::nn): torch 1.13 weights load strictly into each C++ module (same keys and shapes), and the
forward, the input gradients and the parameter gradients match torch in float64. Without torch
the same cases run against the Python tensorcore.nn layers (weights copied from the C++ module)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as tnn
from tensorcore.nn import cpp

try:
    import torch
except ImportError:  # the Python-layer comparison still runs
    torch = None


def f(*shape):
    return ("float", shape)


def i(high, *shape):
    return ("int", high, shape)


def given(arr):
    return ("given", arr)


def unpool_inputs(out_shape, kernel):
    """Pooled values and valid flat indices for max_unpool (one random position per window)."""
    rng = np.random.default_rng(3)
    vals = rng.standard_normal(out_shape)
    spatial = out_shape[2:]
    in_spatial = [s * k for s, k in zip(spatial, kernel)]
    idx = np.zeros(out_shape, dtype=np.int64)
    for pos in np.ndindex(*out_shape):
        coords = [p * k + rng.integers(k) for p, k in zip(pos[2:], kernel)]
        flat = 0
        for c, size in zip(coords, in_spatial):
            flat = flat * size + c
        idx[pos] = flat
    return [given(vals), given(idx)]


# (module name, args, kwargs, inputs, options). Options: train (default False), ref (reference
# class name when it differs), fwd_kwargs.
CASES = [
    ("Conv3d", (4, 6, (3, 1, 2)), dict(padding=(1, 0, 1), groups=2), [f(2, 4, 5, 4, 6)], {}),
    (
        "Conv3d",
        (3, 4, 3),
        dict(padding="same", padding_mode="circular", dilation=(1, 2, 1)),
        [f(2, 3, 5, 6, 4)],
        {},
    ),
    (
        "Conv2d",
        (3, 5, (3, 4)),
        dict(padding="same", dilation=(2, 1), padding_mode="reflect"),
        [f(2, 3, 7, 8)],
        {},
    ),
    ("Conv2d", (3, 4, 3), dict(padding="valid", bias=False), [f(1, 3, 6, 6)], {}),
    ("Conv1d", (3, 4, 3), dict(stride=2, padding=2, padding_mode="replicate"), [f(2, 3, 9)], {}),
    (
        "ConvTranspose1d",
        (4, 6, 3),
        dict(stride=2, padding=1, output_padding=1, groups=2),
        [f(2, 4, 5)],
        {},
    ),
    ("ConvTranspose2d", (3, 2, 3), dict(stride=2, dilation=2), [f(2, 3, 4, 5)], {}),
    (
        "ConvTranspose3d",
        (2, 3, (2, 3, 2)),
        dict(stride=(2, 1, 2), padding=(0, 1, 0), dilation=(1, 2, 1)),
        [f(1, 2, 3, 4, 3)],
        {},
    ),
    ("MaxPool1d", (3,), dict(stride=2, padding=1, return_indices=True), [f(2, 3, 11)], {}),
    (
        "MaxPool2d",
        ((2, 3),),
        dict(stride=(1, 2), dilation=(1, 2), return_indices=True),
        [f(2, 2, 6, 9)],
        {},
    ),
    ("MaxPool3d", (2,), dict(ceil_mode=True, return_indices=True), [f(1, 2, 5, 4, 5)], {}),
    (
        "AvgPool1d",
        (3,),
        dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True),
        [f(2, 3, 10)],
        {},
    ),
    ("AvgPool2d", (3,), dict(stride=2, padding=1), [f(2, 3, 7, 6)], {}),
    ("AvgPool2d", ((2, 3),), dict(stride=1, divisor_override=4), [f(2, 3, 5, 6)], {}),
    ("AvgPool3d", (2,), dict(stride=1, divisor_override=3), [f(1, 2, 3, 4, 3)], {}),
    ("AdaptiveAvgPool1d", (4,), {}, [f(2, 3, 10)], {}),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, [f(1, 2, 5, 4, 7)], {}),
    ("AdaptiveMaxPool1d", (3,), dict(return_indices=True), [f(2, 3, 10)], {}),
    ("AdaptiveMaxPool2d", ((2, 3),), {}, [f(2, 3, 5, 7)], {}),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), [f(1, 2, 4, 5, 6)], {}),
    ("MaxUnpool1d", (2,), {}, unpool_inputs((2, 3, 4), (2,)), {}),
    ("MaxUnpool2d", (2,), dict(stride=2), unpool_inputs((1, 2, 3, 4), (2, 2)), {}),
    ("MaxUnpool3d", (2,), {}, unpool_inputs((1, 2, 2, 3, 2), (2, 2, 2)), {}),
    ("BatchNorm3d", (3,), {}, [f(4, 3, 2, 3, 2)], dict(train=True)),
    ("BatchNorm3d", (3,), dict(momentum=None, affine=False), [f(4, 3, 2, 3, 2)], dict(train=True)),
    ("SyncBatchNorm", (3,), {}, [f(4, 3, 5)], dict(train=True, ref="BatchNorm1d")),
    (
        "InstanceNorm1d",
        (3,),
        dict(affine=True, track_running_stats=True),
        [f(2, 3, 7)],
        dict(train=True),
    ),
    ("InstanceNorm2d", (3,), {}, [f(3, 5, 4)], {}),
    ("InstanceNorm3d", (2,), dict(affine=True), [f(2, 2, 3, 4, 3)], {}),
    ("LocalResponseNorm", (3,), dict(alpha=0.5, beta=0.75, k=2.0), [f(2, 5, 4, 3)], {}),
    ("ReflectionPad1d", ((2, 1),), {}, [f(2, 3, 5)], {}),
    ("ReflectionPad3d", (1,), {}, [f(1, 2, 3, 4, 3)], {}),
    ("ReplicationPad1d", (2,), {}, [f(2, 3, 5)], {}),
    ("ReplicationPad3d", ((1, 0, 2, 0, 0, 1),), {}, [f(1, 2, 3, 4, 3)], {}),
    ("ConstantPad1d", ((1, 2), 0.5), {}, [f(2, 3, 5)], {}),
    ("ConstantPad3d", (1, -1.0), {}, [f(2, 3, 2, 2)], {}),
    ("ZeroPad2d", ((1, 0, 2, 1),), {}, [f(2, 3, 4, 4)], {}),
    ("Bilinear", (3, 4, 5), {}, [f(6, 3), f(6, 4)], {}),
    ("Bilinear", (2, 3, 4), dict(bias=False), [f(2, 5, 2), f(2, 5, 3)], {}),
    (
        "EmbeddingBag",
        (10, 3),
        dict(mode="sum", padding_idx=0),
        [given(np.array([1, 0, 4, 5, 4, 9, 2])), given(np.array([0, 2, 2, 5]))],
        {},
    ),
    (
        "EmbeddingBag",
        (10, 3),
        dict(mode="sum"),
        [given(np.array([1, 3, 4, 3, 7])), given(np.array([0, 3])), f(5)],
        {},
    ),
    ("EmbeddingBag", (10, 3), dict(mode="max"), [i(10, 4, 3)], {}),
    (
        "EmbeddingBag",
        (10, 3),
        dict(include_last_offset=True),
        [given(np.array([1, 3, 4, 3, 7, 8])), given(np.array([0, 1, 4, 6]))],
        {},
    ),
    (
        "Embedding",
        (10, 3),
        dict(padding_idx=2, scale_grad_by_freq=True),
        [given(np.array([[1, 2, 1], [4, 1, 9]]))],
        {},
    ),
    ("Embedding", (10, 3), dict(max_norm=1.0, norm_type=1.5), [given(np.array([0, 3, 3, 7]))], {}),
    ("RNN", (3, 4), dict(num_layers=2, bidirectional=True), [f(5, 2, 3), f(4, 2, 4)], {}),
    ("RNN", (3, 4), dict(nonlinearity="relu", batch_first=True, bias=False), [f(2, 5, 3)], {}),
    ("RNN", (3, 4), {}, [f(6, 3)], {}),
    ("Unfold", ((2, 3),), dict(padding=1, stride=(1, 2)), [f(2, 3, 5, 6)], {}),
    ("Fold", ((5, 6), (2, 3)), dict(padding=1), [f(2, 18, 36)], {}),
    ("PixelShuffle", (2,), {}, [f(1, 8, 3, 3)], {}),
    ("PixelUnshuffle", (2,), {}, [f(1, 2, 6, 4)], {}),
    ("Unflatten", (1, (2, 3)), {}, [f(4, 6, 2)], {}),
    (
        "Upsample",
        (),
        dict(scale_factor=2, mode="bilinear", align_corners=False),
        [f(1, 2, 3, 4)],
        {},
    ),
    ("Upsample", (), dict(size=(5, 7), mode="bicubic", align_corners=True), [f(1, 2, 3, 4)], {}),
    ("Upsample", (), dict(scale_factor=1.5, mode="nearest"), [f(1, 2, 4, 4)], {}),
    ("Upsample", (), dict(scale_factor=3, mode="linear"), [f(1, 2, 4)], {}),
    ("CosineSimilarity", (), dict(dim=1), [f(4, 5), f(4, 5)], {}),
    ("PairwiseDistance", (), dict(p=1.5, keepdim=True), [f(4, 5), f(4, 5)], {}),
    ("ReLU6", (), {}, [f(3, 7)], {}),
    ("SELU", (), {}, [f(3, 7)], {}),
    ("Hardswish", (), {}, [f(3, 7)], {}),
    # torch 1.13's CPU backward kernels use float constants here (1.0f / 6.0f; CELU's 1 / alpha as
    # float), so its float64 gradients carry ~3e-8 relative error.
    ("Hardsigmoid", (), {}, [f(3, 7)], dict(grad_rtol=1e-7)),
    ("Mish", (), {}, [f(3, 7)], {}),
    ("Softsign", (), {}, [f(3, 7)], {}),
    ("Tanhshrink", (), {}, [f(3, 7)], {}),
    ("Identity", (), {}, [f(3, 7)], {}),
    ("LeakyReLU", (0.2,), {}, [f(3, 7)], {}),
    ("ELU", (0.7,), {}, [f(3, 7)], {}),
    ("CELU", (1.3,), {}, [f(3, 7)], dict(grad_rtol=1e-7)),
    ("Hardtanh", (-0.5, 0.8), {}, [f(3, 7)], {}),
    ("Softplus", (2.0, 1.0), {}, [f(3, 7)], {}),
    ("Threshold", (0.1, -2.0), {}, [f(3, 7)], {}),
    ("PReLU", (3, 0.1), {}, [f(2, 3, 4)], {}),
    ("Softmax", (1,), {}, [f(2, 6)], {}),
    ("LogSoftmax", (-1,), {}, [f(2, 6)], {}),
    ("Softmin", (0,), {}, [f(2, 6)], {}),
    ("GLU", (1,), {}, [f(2, 6)], {}),
    ("Hardshrink", (0.7,), {}, [f(3, 7)], {}),
    ("Softshrink", (0.3,), {}, [f(3, 7)], {}),
    ("LogSigmoid", (), {}, [f(3, 7)], {}),
    ("Softmax2d", (), {}, [f(2, 3, 4, 2)], {}),
    # torch 1.13 has no derivative for channel_shuffle: forward only against torch, gradients
    # against tensorcore.nn.
    ("ChannelShuffle", (3,), {}, [f(2, 6, 2, 3)], dict(torch_no_grad=True)),
    ("LPPool1d", (2.0, 3), dict(stride=2), [f(2, 3, 9)], {}),
    (
        "LPPool2d",
        (1.5, (2, 3)),
        dict(ceil_mode=True),
        [given(np.abs(np.random.default_rng(4).standard_normal((1, 2, 5, 7))) + 0.1)],
        {},
    ),
]


def case_id(case):
    name, args, kwargs = case[:3]
    extra = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{name}({','.join(map(str, args))}{',' if extra and args else ''}{extra})"


def make_inputs(spec, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in spec:
        if s[0] == "float":
            out.append(rng.standard_normal(s[1]) * 1.5)
        elif s[0] == "int":
            out.append(rng.integers(0, s[1], s[2]).astype(np.int64))
        else:
            out.append(np.asarray(s[1]))
    return out


def flat(out):
    """A module's outputs as a list of tensors (tuples flattened)."""
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flat(o))
        return res
    return [out]


class Side:
    """One implementation (C++, torch or the Python tensorcore layer) run on the same inputs."""

    def __init__(self, lib, module, arrays, input_grads=True):
        self.lib, self.module = lib, module
        make = torch.tensor if lib == "torch" else tc.tensor
        self.inputs = [make(a, requires_grad=input_grads and a.dtype == np.float64) for a in arrays]

    def run(self, gradient_seed):
        outs = flat(self.module(*self.inputs))
        rng = np.random.default_rng(gradient_seed)
        total = None
        for o in outs:
            if str(o.dtype).endswith("float64"):
                g = rng.standard_normal(tuple(o.shape))
                g = torch.tensor(g) if self.lib == "torch" else tc.tensor(g)
                term = (o * g).sum()
                total = term if total is None else total + term
        if total is not None and total.requires_grad:
            total.backward()
        return [o.detach().numpy() for o in outs]

    def params(self):
        return [(n, p) for n, p in self.module.named_parameters()]

    def grads(self):
        g = {f"input{k}": x.grad for k, x in enumerate(self.inputs) if x.grad is not None}
        g.update({n: p.grad for n, p in self.params() if p.grad is not None})
        return {k: v.detach().numpy() for k, v in g.items()}

    def state(self):
        return {k: v.detach().numpy() for k, v in self.module.state_dict().items()}


def build_cpp(name, args, kwargs, train):
    m = getattr(cpp, name)(*args, **kwargs).double()
    return m.train(train)


def compare(cpp_side, ref_side, what, grad_rtol=1e-8):
    outs_c = cpp_side.run(11)
    outs_r = ref_side.run(11)
    assert len(outs_c) == len(outs_r), what
    for k, (a, b) in enumerate(zip(outs_c, outs_r)):
        assert a.shape == b.shape, f"{what}: output {k} shape {a.shape} vs {b.shape}"
        if b.dtype == np.int64:
            np.testing.assert_array_equal(a, b, err_msg=f"{what}: output {k} (indices)")
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11, err_msg=f"{what}: output {k}")
    gc, gr = cpp_side.grads(), ref_side.grads()
    assert sorted(gc) == sorted(gr), f"{what}: gradients of {sorted(gc)} vs {sorted(gr)}"
    for k in gr:
        np.testing.assert_allclose(
            gc[k], gr[k], rtol=grad_rtol, atol=1e-10, err_msg=f"{what}: grad of {k}"
        )
    sc, sr = cpp_side.state(), ref_side.state()
    for k in sr:  # running statistics after a training step
        np.testing.assert_allclose(
            sc[k], sr[k], rtol=1e-10, atol=1e-12, err_msg=f"{what}: state {k}"
        )


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_cpp_layer_matches_torch(case):
    if torch is None:
        pytest.skip("PyTorch reference not installed")
    name, args, kwargs, spec, opts = case
    train = opts.get("train", False)
    ref = getattr(torch.nn, opts.get("ref", name))(*args, **kwargs).double().train(train)
    m = build_cpp(name, args, kwargs, train)
    ref_sd = ref.state_dict()
    cpp_sd = m.state_dict()
    assert list(cpp_sd) == list(ref_sd), f"{name}: keys {list(cpp_sd)} vs torch {list(ref_sd)}"
    for k, v in ref_sd.items():
        assert tuple(cpp_sd[k].shape) == tuple(v.shape), f"{name}: {k} shape"
    # torch's weights (and running stats) into the C++ module, strictly.
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref_sd.items()}, strict=True)
    arrays = make_inputs(spec, 5)
    rtol = opts.get("grad_rtol", 1e-8)
    grads = not opts.get("torch_no_grad", False)
    compare(Side("tc", m, arrays, grads), Side("torch", ref, arrays, grads), case_id(case), rtol)
    if train:  # eval mode uses the (updated, identical) running statistics
        m.eval()
        ref.eval()
        compare(Side("tc", m, arrays), Side("torch", ref, arrays), case_id(case) + " eval", rtol)


PY_CASES = [c for c in CASES if hasattr(tnn, c[4].get("ref", c[0]))]


@pytest.mark.parametrize("case", PY_CASES, ids=[case_id(c) for c in PY_CASES])
def test_cpp_layer_matches_python_layer(case):
    name, args, kwargs, spec, opts = case
    train = opts.get("train", False)
    m = build_cpp(name, args, kwargs, train)
    ref = getattr(tnn, opts.get("ref", name))(*args, **kwargs).double().train(train)
    ref.load_state_dict({k: v.detach().clone() for k, v in m.state_dict().items()}, strict=True)
    arrays = make_inputs(spec, 6)
    compare(Side("tc", m, arrays), Side("tc", ref, arrays), case_id(case) + " vs tensorcore.nn")


def test_cpp_rnn_packed_matches_torch(torch_ref):
    """A packed, unsorted batch through the C++ RNN equals torch's packed RNN (outputs, h_n, grads)."""
    from tensorcore.nn.utils import rnn as tc_rnn

    torch = torch_ref
    ref = torch.nn.RNN(3, 4, num_layers=2, bidirectional=True, nonlinearity="relu").double()
    m = cpp.RNN(3, 4, num_layers=2, bidirectional=True, nonlinearity="relu").double()
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((6, 3, 3))
    lengths = [4, 6, 2]
    xt = torch.tensor(x, requires_grad=True)
    xc = tc.tensor(x, requires_grad=True)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=False)
    pc = tc_rnn.pack_padded_sequence(xc, lengths, enforce_sorted=False)
    ot, ht = ref(pt)
    oc, hc = m(pc)
    pad_t, _ = torch.nn.utils.rnn.pad_packed_sequence(ot)
    pad_c, _ = tc_rnn.pad_packed_sequence(oc)
    np.testing.assert_allclose(
        pad_c.detach().numpy(), pad_t.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(hc.detach().numpy(), ht.detach().numpy(), rtol=1e-10, atol=1e-12)
    (pad_t.sum() + (ht * ht).sum()).backward()
    (pad_c.sum() + (hc * hc).sum()).backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (n, p), (_, q) in zip(m.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=n)


def test_cpp_conv_transpose_output_size(torch_ref):
    """forward(input, output_size) picks output_padding as torch does."""
    ref = torch_ref.nn.ConvTranspose2d(3, 2, 3, stride=3, padding=1).double()
    m = cpp.ConvTranspose2d(3, 2, 3, stride=3, padding=1).double()
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5))
    for size in ([10, 13], [2, 2, 12, 14], None):
        want = ref(torch_ref.tensor(x), output_size=size).detach().numpy()
        got = (m(tc.tensor(x), output_size=size) if size else m(tc.tensor(x))).detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    with pytest.raises(
        ValueError,
        match=r"ConvTranspose2d: requested an output size of \[9, 13\], but valid sizes "
        r"of spatial dim 0 range from 10 to 12",
    ):
        m(tc.tensor(x), output_size=[9, 13])


def test_cpp_layers_errors_name_layer_and_shapes():
    with pytest.raises(
        ValueError,
        match=r"Conv3d: expected input of shape \[N, 4, \*\] with 3 spatial dims, but "
        r"got input of size \[2, 5, 3, 3, 3\]",
    ):
        cpp.Conv3d(4, 2, 3)(tc.randn(2, 5, 3, 3, 3))
    with pytest.raises(
        ValueError, match="padding='same' is not supported for strided convolutions"
    ):
        cpp.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match=r"Bilinear: expected inputs \[\*, 3\] and \[\*, 4\]"):
        cpp.Bilinear(3, 4, 2)(tc.randn(2, 3), tc.randn(2, 5))
    with pytest.raises(TypeError, match="EmbeddingBag: expected integer indices"):
        cpp.EmbeddingBag(5, 2)(tc.randn(2, 3))
    with pytest.raises(
        ValueError, match=r"MaxPool1d: expected a 2-d or 3-d input .* \[1, 2, 3, 4\]"
    ):
        cpp.MaxPool1d(2)(tc.randn(1, 2, 3, 4))
    with pytest.raises(
        ValueError, match=r"RNN: input.size\(-1\) must be equal to input_size. Expected 3, got 2"
    ):
        cpp.RNN(3, 4)(tc.randn(5, 2, 2))
    with pytest.raises(ValueError, match=r"InstanceNorm1d: .*\[2, 4, 5\]"):
        cpp.InstanceNorm1d(3)(tc.randn(2, 4, 5))


def test_cpp_new_layers_nest_in_sequential_and_train():
    """New C++ layers inside a C++ Sequential train with a tensorcore optimizer."""
    tc.manual_seed(0)
    net = cpp.Sequential(
        cpp.Conv1d(2, 4, 3, padding="same", padding_mode="reflect"),
        cpp.Mish(),
        cpp.AdaptiveAvgPool1d(1),
        tnn.Flatten(),
        cpp.PReLU(),
        tnn.Linear(4, 2),
    )
    x = tc.randn(32, 2, 8)
    y = (x.sum((1, 2)) > 0).long()
    opt = tc.optim.Adam(net.parameters(), lr=0.05)
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = tnn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        first = float(loss) if first is None else first
    assert float(loss) < 0.5 * first


def test_cpp_functional_composites_match_torch(torch_ref):
    """The C++-only tc::nn::functional composites (bound in tensorcore._C._nncpp.functional) vs
    torch.nn.functional in float64: values and gradients."""
    Fc = tc._C._nncpp.functional
    Ft = torch_ref.nn.functional
    rng = np.random.default_rng(9)

    def both(*arrays):
        return (
            [tc.tensor(a, requires_grad=a.dtype == np.float64) for a in arrays],
            [torch_ref.tensor(a, requires_grad=a.dtype == np.float64) for a in arrays],
        )

    def same(fc, ft, arrays, rtol=1e-10):
        xc, xt = both(*arrays)
        oc, ot = fc(*xc), ft(*xt)
        np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=rtol, atol=1e-12)
        if ot.dtype == torch_ref.float64:
            g = rng.standard_normal(tuple(ot.shape))
            (oc * tc.tensor(g)).sum().backward()
            (ot * torch_ref.tensor(g)).sum().backward()
            for a, b in zip(xc, xt):
                if b.grad is not None:
                    np.testing.assert_allclose(
                        a.grad.numpy(), b.grad.numpy(), rtol=rtol * 10, atol=1e-11
                    )

    r = rng.standard_normal
    same(Fc.bilinear, Ft.bilinear, [r((2, 5, 3)), r((2, 5, 4)), r((6, 3, 4)), r(6)])
    same(lambda x: Fc.normalize(x, 1.5, 0), lambda x: Ft.normalize(x, 1.5, 0), [r((4, 5))])
    same(Fc.cosine_similarity, Ft.cosine_similarity, [r((4, 5, 2)), r((1, 5, 1))], rtol=1e-9)
    same(
        lambda a, b: Fc.pairwise_distance(a, b, 3.0, 1e-6, True),
        lambda a, b: Ft.pairwise_distance(a, b, 3.0, 1e-6, True),
        [r((4, 6)), r((4, 6))],
    )
    same(lambda x: Fc.glu(x, 1), lambda x: Ft.glu(x, 1), [r((3, 8))])
    same(lambda x: Fc.softmin(x, 0), lambda x: Ft.softmin(x, 0), [r((3, 8))])
    idx = rng.integers(0, 6, (3, 4))
    np.testing.assert_array_equal(
        Fc.one_hot(tc.tensor(idx)).numpy(), Ft.one_hot(torch_ref.tensor(idx)).numpy()
    )
    np.testing.assert_array_equal(
        Fc.one_hot(tc.tensor(idx), 9).numpy(), Ft.one_hot(torch_ref.tensor(idx), 9).numpy()
    )

    # Attention: torch 1.13 has no F.scaled_dot_product_attention, so its formula in torch ops.
    def attention_t(q, k, v, mask=None, causal=False, scale=None):
        s = q @ k.transpose(-2, -1) * (scale if scale is not None else q.shape[-1] ** -0.5)
        if causal:
            s = s.masked_fill(
                ~torch_ref.ones(s.shape[-2], s.shape[-1], dtype=torch_ref.bool).tril(),
                float("-inf"),
            )
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch_ref.bool else s + mask
        return torch_ref.softmax(s, -1) @ v

    q, k, v = r((2, 3, 4, 8)), r((2, 3, 6, 8)), r((2, 3, 6, 5))
    same(Fc.scaled_dot_product_attention, attention_t, [q, k, v])
    same(
        lambda a, b, c: Fc.scaled_dot_product_attention(a, b, c, scale=0.3),
        lambda a, b, c: attention_t(a, b, c, scale=0.3),
        [q, k, v],
    )
    additive = r((4, 6))
    same(
        lambda a, b, c: Fc.scaled_dot_product_attention(a, b, c, tc.tensor(additive)),
        lambda a, b, c: attention_t(a, b, c, torch_ref.tensor(additive)),
        [q, k, v],
    )
    allowed = rng.uniform(size=(4, 6)) < 0.7
    allowed[:, 0] = True
    same(
        lambda a, b, c: Fc.scaled_dot_product_attention(a, b, c, tc.tensor(allowed)),
        lambda a, b, c: attention_t(a, b, c, torch_ref.tensor(allowed)),
        [q, k, v],
    )
    same(
        lambda a, b, c: Fc.scaled_dot_product_attention(a, b, c, is_causal=True),
        lambda a, b, c: attention_t(a, b, c, causal=True),
        [q, r((2, 3, 4, 8)), r((2, 3, 4, 5))],
    )

    img = r((1, 2, 5, 7))
    for kw in (
        dict(scale_factor=1.7, mode="bilinear"),
        dict(size=(4, 9), mode="bicubic", align_corners=True),
        dict(scale_factor=0.5, mode="bilinear", antialias=True),
        dict(scale_factor=1.5, mode="nearest", recompute_scale_factor=True),
        dict(size=(3, 3), mode="area"),
        dict(scale_factor=(2, 0.5), mode="nearest-exact"),
    ):
        same(lambda x: Fc.interpolate(x, **kw), lambda x: Ft.interpolate(x, **kw), [img])
    same(
        lambda x: Fc.interpolate(x, scale_factor=2.0, mode="trilinear", align_corners=True),
        lambda x: Ft.interpolate(x, scale_factor=2.0, mode="trilinear", align_corners=True),
        [r((1, 1, 2, 3, 2))],
    )

    logits, target = r((5, 4, 3)), rng.dirichlet(np.ones(4), (5, 3)).transpose(0, 2, 1).copy()
    w = rng.uniform(0.5, 2.0, 4)
    for red in ("mean", "sum", "none"):
        same(
            lambda x, y: Fc.cross_entropy(x, y, tc.tensor(w), reduction=red, label_smoothing=0.2),
            lambda x, y: Ft.cross_entropy(
                x, y, torch_ref.tensor(w), reduction=red, label_smoothing=0.2
            ),
            [logits, target],
        )
