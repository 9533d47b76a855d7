"""Packed sequences and LSTM projections through the whole-layer RNN node (rnn_layer.cpp):
modules against torch in float64 (outputs, h_n/c_n and every gradient), the packed layer ops'
gradcheck/gradgradcheck, and argument errors."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as tnn
import tensorcore.nn.functional as F
from tensorcore.nn import cpp
from tensorcore.nn.utils import rnn as rnn_utils

RNG = np.random.default_rng(3)


def randn(*shape, dtype=np.float64, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def leaf(a):
    return tc.tensor(a).requires_grad_(True)


def copy_weights(ref, ours):
    for name, p in ref.named_parameters():
        with tc.no_grad():
            getattr(ours, name).copy_(tc.tensor(p.detach().numpy().copy()))


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


MODES = [
    ("LSTM", {}),
    ("GRU", {}),
    ("RNN", {"nonlinearity": "tanh"}),
    ("RNN", {"nonlinearity": "relu"}),
    ("LSTM", {"proj_size": 3}),
]


@pytest.mark.parametrize(
    "mode,extra", MODES, ids=["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_proj"]
)
@pytest.mark.parametrize("layers,bidir", [(1, False), (2, True)])
@pytest.mark.parametrize(
    "enforce_sorted,batch_first,with_state",
    [(True, False, True), (False, True, False), (False, False, True)],
)
def test_packed_module_matches_torch(
    torch_ref, mode, extra, layers, bidir, enforce_sorted, batch_first, with_state
):
    torch = torch_ref
    T, N, I, H = 6, 5, 4, 5
    lengths = [6, 6, 4, 3, 1] if enforce_sorted else [3, 6, 1, 6, 4]
    ref = getattr(torch.nn, mode)(
        I, H, layers, bidirectional=bidir, batch_first=batch_first, **extra
    ).double()
    ours = getattr(tnn, mode)(
        I, H, layers, bidirectional=bidir, batch_first=batch_first, **extra
    ).double()
    copy_weights(ref, ours)
    x = randn(N, T, I) if batch_first else randn(T, N, I)
    D = 2 if bidir else 1
    P = extra.get("proj_size", 0) or H
    h0, c0 = randn(layers * D, N, P), randn(layers * D, N, H)
    rx, tx = torch.tensor(x, requires_grad=True), leaf(x)
    rh0, th0 = torch.tensor(h0, requires_grad=True), leaf(h0)
    rc0, tc0 = torch.tensor(c0, requires_grad=True), leaf(c0)
    rpack = torch.nn.utils.rnn.pack_padded_sequence(
        rx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted
    )
    tpack = rnn_utils.pack_padded_sequence(
        tx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted
    )
    lstm = mode == "LSTM"
    if with_state:
        rout, rstate = ref(rpack, (rh0, rc0) if lstm else rh0)
        tout, tstate = ours(tpack, (th0, tc0) if lstm else th0)
    else:
        rout, rstate = ref(rpack)
        tout, tstate = ours(tpack)
    assert isinstance(tout, rnn_utils.PackedSequence)
    close(tout.data, rout.data)
    np.testing.assert_array_equal(tout.batch_sizes.numpy(), rout.batch_sizes.numpy())
    rstates = list(rstate) if lstm else [rstate]
    tstates = list(tstate) if lstm else [tstate]
    for a, b in zip(tstates, rstates):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b)
    # A loss touching the output, h_n and c_n with different weights.
    gout = randn(*tuple(rout.data.shape))
    rloss = (rout.data * torch.tensor(gout)).sum() + sum(
        (s * (k + 2)).sum() for k, s in enumerate(rstates)
    )
    tloss = (tout.data * tc.tensor(gout)).sum() + sum(
        (s * (k + 2)).sum() for k, s in enumerate(tstates)
    )
    rloss.backward()
    tloss.backward()
    close(tx.grad, rx.grad)
    if with_state:
        close(th0.grad, rh0.grad)
        if lstm:
            close(tc0.grad, rc0.grad)
    for name, p in ref.named_parameters():
        close(getattr(ours, name).grad, p.grad)


@pytest.mark.parametrize("layers,bidir", [(1, False), (2, True)])
def test_lstm_proj_padded_matches_torch(torch_ref, layers, bidir):
    torch = torch_ref
    T, N, I, H, P = 7, 3, 4, 6, 2
    ref = torch.nn.LSTM(I, H, layers, bidirectional=bidir, proj_size=P).double()
    ours = tnn.LSTM(I, H, layers, bidirectional=bidir, proj_size=P).double()
    copy_weights(ref, ours)
    D = 2 if bidir else 1
    x, h0, c0 = randn(T, N, I), randn(layers * D, N, P), randn(layers * D, N, H)
    rx, rh0, rc0 = (torch.tensor(a, requires_grad=True) for a in (x, h0, c0))
    tx, th0, tc0 = leaf(x), leaf(h0), leaf(c0)
    rout, (rh, rc) = ref(rx, (rh0, rc0))
    tout, (th, tcs) = ours(tx, (th0, tc0))
    assert tuple(tout.shape) == (T, N, D * P)
    for a, b in ((tout, rout), (th, rh), (tcs, rc)):
        close(a, b)
    g = randn(T, N, D * P)
    (rout * torch.tensor(g)).sum().add((rh * 2).sum() + (rc * 3).sum()).backward()
    ((tout * tc.tensor(g)).sum() + (th * 2).sum() + (tcs * 3).sum()).backward()
    for a, b in ((tx, rx), (th0, rh0), (tc0, rc0)):
        close(a.grad, b.grad)
    for name, p in ref.named_parameters():
        close(getattr(ours, name).grad, p.grad)


def test_packed_float32_and_unbatched_state_defaults(torch_ref):
    torch = torch_ref
    T, N, I, H = 20, 6, 8, 16
    lengths = [20, 17, 15, 10, 10, 11]
    ref = torch.nn.GRU(I, H, 2, bidirectional=True)
    ours = tnn.GRU(I, H, 2, bidirectional=True)
    copy_weights(ref, ours)
    x = randn(T, N, I, dtype=np.float32)
    rx, tx = torch.tensor(x, requires_grad=True), leaf(x)
    ro, rh = ref(torch.nn.utils.rnn.pack_padded_sequence(rx, lengths, enforce_sorted=False))
    to, th = ours(rnn_utils.pack_padded_sequence(tx, lengths, enforce_sorted=False))
    close(to.data, ro.data, 1e-5)
    close(th, rh, 1e-5)
    (ro.data.sum() + rh.sum()).backward()
    (to.data.sum() + th.sum()).backward()
    close(tx.grad, rx.grad, 1e-4)
    for name, p in ref.named_parameters():
        close(getattr(ours, name).grad, p.grad, 1e-4)


def packed_args(kind, lengths, I, H, P=None, proj=False):
    bs = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    G = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    P = P or H
    args = [leaf(randn(sum(bs), I)), leaf(randn(bs[0], P))]
    if kind == "lstm":
        args.append(leaf(randn(bs[0], H)))
    args += [leaf(randn(G * H, I)), leaf(randn(G * H, P)), leaf(randn(G * H)), leaf(randn(G * H))]
    if proj:
        args.append(leaf(randn(P, H)))
    return bs, args


@pytest.mark.parametrize("reverse", [False, True])
def test_packed_layer_ops_gradcheck(reverse):
    lengths = [4, 3, 3, 1]
    bs, a = packed_args("lstm", lengths, 3, 3)
    fn = lambda x, h, c, w, u, b, bh: F.lstm_layer_packed(x, bs, h, c, w, u, b, bh, reverse=reverse)
    assert tc.autograd.gradcheck(fn, tuple(a))
    bs, a = packed_args("lstm", lengths, 3, 3, P=2, proj=True)
    fn = lambda x, h, c, w, u, b, bh, r: F.lstm_layer_packed(
        x, bs, h, c, w, u, b, bh, reverse=reverse, w_hr=r
    )
    assert tc.autograd.gradcheck(fn, tuple(a))
    bs, a = packed_args("gru", lengths, 3, 2)
    assert tc.autograd.gradcheck(
        lambda *t: F.gru_layer_packed(t[0], bs, *t[1:], reverse=reverse), tuple(a)
    )
    for nl in ("tanh", "relu"):
        bs, a = packed_args("rnn", lengths, 3, 2)
        assert tc.autograd.gradcheck(
            lambda *t: F.rnn_layer_packed(t[0], bs, *t[1:], nonlinearity=nl, reverse=reverse),
            tuple(a),
        )


def test_packed_and_proj_gradgradcheck():
    lengths = [3, 2, 1]
    bs, a = packed_args("lstm", lengths, 2, 3, P=2, proj=True)
    x, h, c, w, u, b, bh, r = a
    assert tc.autograd.gradgradcheck(
        lambda x, h, c, u, r: F.lstm_layer_packed(x, bs, h, c, w, u, b, None, reverse=True, w_hr=r),
        (x, h, c, u, r),
    )
    bs, a = packed_args("gru", lengths, 2, 2)
    assert tc.autograd.gradgradcheck(lambda *t: F.gru_layer_packed(t[0], bs, *t[1:]), tuple(a[:4]))
    bs, a = packed_args("rnn", lengths, 2, 2)
    assert tc.autograd.gradgradcheck(
        lambda *t: F.rnn_layer_packed(t[0], bs, *t[1:], reverse=True), tuple(a[:4])
    )
    # lstm_layer (padded) with a projection.
    x, h0, c0 = leaf(randn(3, 2, 2)), leaf(randn(2, 2)), leaf(randn(2, 3))
    w, u, r = leaf(randn(12, 2)), leaf(randn(12, 2)), leaf(randn(2, 3))
    fn = lambda x, h, c, w, u, r: F.lstm_layer(x, h, c, w, u, None, None, reverse=False, w_hr=r)
    assert tc.autograd.gradcheck(fn, (x, h0, c0, w, u, r))
    assert tc.autograd.gradgradcheck(fn, (x, h0, c0, w, u, r))


def test_packed_equals_each_sequence_alone():
    """A packed batch gives each sequence what it gets run alone (no torch needed)."""
    lengths = [5, 4, 2, 2]
    bs, a = packed_args("lstm", lengths, 3, 4, P=2, proj=True)
    x, h0, c0, w, u, b, bh, r = [t.detach() for t in a]
    for reverse in (False, True):
        out, hn, cn = F.lstm_layer_packed(x, bs, h0, c0, w, u, b, bh, reverse=reverse, w_hr=r)
        offs = np.cumsum([0] + bs)
        for n, L in enumerate(lengths):
            rows = [int(offs[t]) + n for t in range(L)]
            xs = x.numpy()[rows][:, None, :]
            o1, h1, c1 = F.lstm_layer(
                tc.tensor(xs), h0[n : n + 1], c0[n : n + 1], w, u, b, bh, reverse=reverse, w_hr=r
            )
            np.testing.assert_allclose(out.numpy()[rows], o1.numpy()[:, 0], rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(hn.numpy()[n], h1.numpy()[0], rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(cn.numpy()[n], c1.numpy()[0], rtol=1e-12, atol=1e-13)


def test_partial_requires_grad_and_no_grad():
    lengths = [4, 2, 1]
    bs, a = packed_args("gru", lengths, 3, 4)
    x, h0, w, u = a[0].detach(), a[1].detach(), a[2], a[3]
    out, h = F.gru_layer_packed(x, bs, h0, w, u)
    (out.sum() + h.sum()).backward()
    assert x.grad is None and w.grad is not None and u.grad is not None
    with tc.no_grad():
        out2, _ = F.gru_layer_packed(x, bs, h0, w, u)
    assert not out2.requires_grad
    np.testing.assert_array_equal(out2.numpy(), out.detach().numpy())
    # batch_sizes as a tensor (a PackedSequence's) and h0=None (zeros).
    out3, _ = F.gru_layer_packed(x, tc.tensor(bs), None, w, u)
    out4, _ = F.gru_layer_packed(x, bs, tc.zeros(3, 4, dtype=tc.float64), w, u)
    np.testing.assert_array_equal(out3.detach().numpy(), out4.detach().numpy())


def test_reduced_precision_packed_runs_in_float32():
    lengths = [3, 1]
    m = tnn.LSTM(3, 4, proj_size=2)
    x = tc.tensor(randn(3, 2, 3, dtype=np.float32))
    p32 = rnn_utils.pack_padded_sequence(x, lengths)
    p16 = rnn_utils.pack_padded_sequence(x.to(tc.bfloat16), lengths)
    out32, (h32, _) = m(p32)
    m16 = tnn.LSTM(3, 4, proj_size=2)
    m16.load_state_dict(m.state_dict())
    m16.to(tc.bfloat16)
    out16, (h16, _) = m16(p16)
    assert out16.data.dtype == tc.bfloat16 and h16.dtype == tc.bfloat16
    np.testing.assert_allclose(
        out16.data.float().detach().numpy(), out32.data.detach().numpy(), atol=0.05
    )


def test_errors():
    x = tc.zeros(6, 3, dtype=tc.float64)
    w, u = tc.zeros(16, 3, dtype=tc.float64), tc.zeros(16, 4, dtype=tc.float64)
    with pytest.raises(
        ValueError, match=r"lstm_layer_packed: batch_sizes must be positive and non-increasing"
    ):
        F.lstm_layer_packed(x, [2, 3, 1], None, None, w, u)
    with pytest.raises(
        ValueError, match=r"lstm_layer_packed: batch_sizes sum to 5 but the packed data has 6 rows"
    ):
        F.lstm_layer_packed(x, [3, 2], None, None, w, u)
    with pytest.raises(ValueError, match=r"batch_sizes is empty"):
        F.lstm_layer_packed(x, [], None, None, w, u)
    with pytest.raises(ValueError, match=r"lstm_layer_packed: expected packed data of shape"):
        F.lstm_layer_packed(tc.zeros(2, 3, 3, dtype=tc.float64), [3, 3], None, None, w, u)
    with pytest.raises(
        ValueError, match=r"expected weight_hr of shape \[proj_size, 4\], got \[2, 3\]"
    ):
        F.lstm_layer_packed(
            x,
            [3, 3],
            None,
            None,
            w,
            tc.zeros(16, 2, dtype=tc.float64),
            w_hr=tc.zeros(2, 3, dtype=tc.float64),
        )
    with pytest.raises(ValueError, match=r"expected weight_hh of shape \[16, 2\], got \[16, 4\]"):
        F.lstm_layer_packed(x, [3, 3], None, None, w, u, w_hr=tc.zeros(2, 4, dtype=tc.float64))
    with pytest.raises(
        ValueError, match=r"gru_layer_packed: expected hidden state of shape \[3, 4\], got \[2, 4\]"
    ):
        F.gru_layer_packed(
            x,
            [3, 3],
            tc.zeros(2, 4, dtype=tc.float64),
            tc.zeros(12, 3, dtype=tc.float64),
            tc.zeros(12, 4, dtype=tc.float64),
        )
    with pytest.raises(ValueError, match=r"rnn_layer_packed: unknown nonlinearity 'gelu'"):
        F.rnn_layer_packed(
            x,
            [3, 3],
            None,
            tc.zeros(4, 3, dtype=tc.float64),
            tc.zeros(4, 4, dtype=tc.float64),
            nonlinearity="gelu",
        )
    with pytest.raises(TypeError, match=r"lstm_layer_packed: expected a float32 or float64 input"):
        F.lstm_layer_packed(x.long(), [3, 3], None, None, w, u)
    m = tnn.LSTM(3, 4)
    with pytest.raises(
        ValueError, match=r"LSTM: Expected hidden size \(1, 2, 4\), got \(1, 3, 4\) for hx"
    ):
        m(
            rnn_utils.pack_padded_sequence(tc.zeros(2, 2, 3), [2, 1]),
            (tc.zeros(1, 3, 4), tc.zeros(1, 2, 4)),
        )
    with pytest.raises(ValueError, match=r"input.size\(-1\) must be equal to input_size"):
        m(rnn_utils.pack_padded_sequence(tc.zeros(2, 2, 5), [2, 1]))


def test_cpp_frontend_packed_matches_python_module():
    """tensorcore.nn.cpp.LSTM on a packed unsorted batch equals the Python module with its weights."""
    lengths = [2, 5, 3]
    ours = cpp.LSTM(3, 4, 2, bidirectional=True)
    py = tnn.LSTM(3, 4, 2, bidirectional=True)
    py.load_state_dict(
        {k: tc.tensor(v.detach().numpy().copy()) for k, v in ours.state_dict().items()}
    )
    x = tc.tensor(randn(5, 3, 3, dtype=np.float32))
    packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
    out_c, (h_c, c_c) = ours(packed)
    out_p, (h_p, c_p) = py(packed)
    close(out_c.data, out_p.data, 1e-6)
    close(h_c, h_p, 1e-6)
    close(c_c, c_p, 1e-6)


@pytest.mark.parametrize("packed", [False, True])
def test_cpp_frontend_lstm_proj_matches_torch(torch_ref, packed):
    torch = torch_ref
    T, N, I, H, P = 6, 3, 4, 5, 2
    ours = cpp.LSTM(I, H, 2, batch_first=True, bidirectional=True, proj_size=P)
    ref = torch.nn.LSTM(I, H, 2, batch_first=True, bidirectional=True, proj_size=P)
    sd = ours.state_dict()
    assert sorted(sd.keys()) == sorted(ref.state_dict().keys())
    ref.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()})
    x = randn(N, T, I, dtype=np.float32)
    h0, c0 = randn(4, N, P, dtype=np.float32), randn(4, N, H, dtype=np.float32)
    tx, rx = leaf(x), torch.tensor(x, requires_grad=True)
    if packed:
        lengths = [4, 6, 2]
        tin = rnn_utils.pack_padded_sequence(tx, lengths, batch_first=True, enforce_sorted=False)
        rin = torch.nn.utils.rnn.pack_padded_sequence(
            rx, lengths, batch_first=True, enforce_sorted=False
        )
    else:
        tin, rin = tx, rx
    tout, (th, tcs) = ours(tin, (tc.tensor(h0), tc.tensor(c0)))
    rout, (rh, rc) = ref(rin, (torch.tensor(h0), torch.tensor(c0)))
    if packed:
        tout, rout = tout.data, rout.data
    for a, b in ((tout, rout), (th, rh), (tcs, rc)):
        close(a, b, 1e-5)
    (tout.sum() + th.sum() + tcs.sum()).backward()
    (rout.sum() + rh.sum() + rc.sum()).backward()
    close(tx.grad, rx.grad, 1e-5)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        cpp.LSTM(I, H, proj_size=H)


def test_module_double_backward_on_packed_input():
    """create_graph through the packed node (it re-runs the per-step path): the gradient of a
    gradient norm matches finite differences in the input."""
    m = tnn.GRU(2, 3, bidirectional=True).double()
    x = randn(3, 2, 2)

    def grad_norm(xa):
        xt = tc.tensor(xa).requires_grad_()
        out, h = m(rnn_utils.pack_padded_sequence(xt, [3, 2]))
        (g,) = tc.autograd.grad([(out.data**2).sum() + h.sum()], [xt], create_graph=True)
        return xt, (g**2).sum()

    xt, gn = grad_norm(x)
    (gg,) = tc.autograd.grad([gn], [xt])
    eps, idx = 1e-6, (1, 1, 0)
    xp, xm = x.copy(), x.copy()
    xp[idx] += eps
    xm[idx] -= eps
    fd = (grad_norm(xp)[1].item() - grad_norm(xm)[1].item()) / (2 * eps)
    np.testing.assert_allclose(gg.numpy()[idx], fd, rtol=1e-5, atol=1e-7)
