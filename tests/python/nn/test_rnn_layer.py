"""The whole-layer LSTM/GRU path (one autograd node per layer and direction, rnn_layer.cpp)
against the per-step cell composition and torch: outputs, final states and every gradient."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as tnn
import tensorcore.nn.functional as F
from tensorcore.nn import cpp

RNG = np.random.default_rng(11)


def randn(*shape, dtype=np.float64, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def leaf(a):
    return tc.tensor(a).requires_grad_(True)


def steps_reference(kind, x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
    """The layer as a Python loop over the fused cells (the per-step path)."""
    T = x.shape[0]
    h, c = h0, c0
    outs = [None] * T
    for t in range(T - 1, -1, -1) if reverse else range(T):
        if kind == "lstm":
            h, c = F.lstm_cell(x[t], (h, c), w_ih, w_hh, b_ih, b_hh)
        else:
            h = F.gru_cell(x[t], h, w_ih, w_hh, b_ih, b_hh)
        outs[t] = h
    return tc.stack(outs), h, c


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_fused_layer_matches_per_step_cells(kind, reverse, bias, with_state):
    T, N, I, H = 6, 3, 5, 4
    G = 4 if kind == "lstm" else 3
    arrays = [
        randn(T, N, I),
        randn(N, H),
        randn(N, H),
        randn(G * H, I),
        randn(G * H, H),
        randn(G * H),
        randn(G * H),
    ]
    gouts = [randn(T, N, H), randn(N, H), randn(N, H)]

    def run(fused):
        t = [leaf(a) for a in arrays]
        x, h0, c0, w_ih, w_hh, b_ih, b_hh = t
        if not with_state:
            h0 = c0 = None
        if not bias:
            b_ih = b_hh = None
        if fused:
            res = (
                F.lstm_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse=reverse)
                if kind == "lstm"
                else F.gru_layer(x, h0, w_ih, w_hh, b_ih, b_hh, reverse=reverse)
            )
        else:
            z = tc.zeros(N, H, dtype=tc.float64)
            res = steps_reference(
                kind,
                x,
                h0 if with_state else z,
                c0 if with_state else z,
                w_ih,
                w_hh,
                b_ih,
                b_hh,
                reverse,
            )
            res = res if kind == "lstm" else res[:2]
        loss = sum((o * tc.tensor(g)).sum() for o, g in zip(res, gouts))
        loss.backward()
        return [r.detach().numpy() for r in res], [
            None if p.grad is None else p.grad.numpy() for p in t
        ]

    (outs, grads), (routs, rgrads) = run(True), run(False)
    for a, b in zip(outs, routs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    used = (
        [0, 3, 4]
        + ([1] + ([2] if kind == "lstm" else []) if with_state else [])
        + ([5, 6] if bias else [])
    )
    for i in range(7):
        if i in used:
            np.testing.assert_allclose(grads[i], rgrads[i], rtol=1e-11, atol=1e-12)
        else:
            assert grads[i] is None


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("reverse", [False, True])
def test_fused_layer_matches_torch_float32(torch_ref, kind, reverse):
    T, N, I, H = 20, 4, 7, 16
    ref = getattr(torch_ref.nn, kind.upper())(I, H, bidirectional=reverse)
    sfx = "_reverse" if reverse else ""
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    rp = [getattr(ref, f"{n}_l0{sfx}") for n in names]
    tp = [tc.tensor(p.detach().numpy().copy()).requires_grad_() for p in rp]
    x = randn(T, N, I, dtype=np.float32)
    h0 = randn(1 + reverse, N, H, dtype=np.float32)
    c0 = randn(1 + reverse, N, H, dtype=np.float32)
    d = 1 if reverse else 0
    tx, rx = leaf(x), torch_ref.tensor(x, requires_grad=True)
    if kind == "lstm":
        out, h, c = F.lstm_layer(tx, tc.tensor(h0[d]), tc.tensor(c0[d]), *tp, reverse=reverse)
        rout, (rh, rc) = ref(rx, (torch_ref.tensor(h0), torch_ref.tensor(c0)))
        loss = out.sum() + (h * 2).sum() + (c * 3).sum()
        rloss = rout[..., d * H : (d + 1) * H].sum() + (rh[d] * 2).sum() + (rc[d] * 3).sum()
    else:
        out, h = F.gru_layer(tx, tc.tensor(h0[d]), *tp, reverse=reverse)
        rout, rh = ref(rx, torch_ref.tensor(h0))
        loss = out.sum() + (h * 2).sum()
        rloss = rout[..., d * H : (d + 1) * H].sum() + (rh[d] * 2).sum()
    np.testing.assert_allclose(
        out.detach().numpy(), rout[..., d * H : (d + 1) * H].detach().numpy(), rtol=1e-5, atol=1e-6
    )
    loss.backward()
    rloss.backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for p, r in zip(tp, rp):
        np.testing.assert_allclose(p.grad.numpy(), r.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_fused_layer_gradcheck_and_gradgradcheck():
    T, N, I, H = 3, 2, 3, 2
    x, h0, c0 = leaf(randn(T, N, I)), leaf(randn(N, H)), leaf(randn(N, H))
    w4, u4, b4, b4h = (
        leaf(randn(4 * H, I)),
        leaf(randn(4 * H, H)),
        leaf(randn(4 * H)),
        leaf(randn(4 * H)),
    )
    w3, u3, b3 = leaf(randn(3 * H, I)), leaf(randn(3 * H, H)), leaf(randn(3 * H))
    lstm = lambda *a: F.lstm_layer(*a, reverse=False)
    lstm_r = lambda *a: F.lstm_layer(*a, reverse=True)
    for fn in (lstm, lstm_r):
        assert tc.autograd.gradcheck(fn, (x, h0, c0, w4, u4, b4, b4h))
    assert tc.autograd.gradgradcheck(
        lambda x, h, c, w, u, b: lstm_r(x, h, c, w, u, b, None), (x, h0, c0, w4, u4, b4)
    )
    gru = lambda x, h, w, u, b: F.gru_layer(x, h, w, u, b, b, reverse=True)
    assert tc.autograd.gradcheck(gru, (x, h0, w3, u3, b3))
    assert tc.autograd.gradgradcheck(gru, (x, h0, w3, u3, b3))
    assert tc.autograd.gradgradcheck(lambda x, w, u: F.gru_layer(x, None, w, u)[0], (x, w3, u3))


def test_partial_requires_grad_no_grad_and_retain_graph():
    T, N, I, H = 4, 2, 3, 5
    x = tc.tensor(randn(T, N, I))  # no grad: the first layer of a model
    w, u = leaf(randn(4 * H, I)), leaf(randn(4 * H, H))
    out, h, c = F.lstm_layer(x, None, None, w, u)
    assert out.requires_grad and x.grad is None
    loss = out.sum() + c.sum()
    gw1, gu1 = tc.autograd.grad([loss], [w, u], retain_graph=True)
    gw2, gu2 = tc.autograd.grad([loss], [w, u])
    np.testing.assert_array_equal(gw1.numpy(), gw2.numpy())
    np.testing.assert_array_equal(gu1.numpy(), gu2.numpy())
    with tc.no_grad():
        out2, _, _ = F.lstm_layer(x, None, None, w, u)
    assert not out2.requires_grad
    np.testing.assert_array_equal(out2.numpy(), out.detach().numpy())
    # Only the initial state needs a gradient.
    h0 = leaf(randn(N, H))
    out3, h3 = F.gru_layer(x, h0, tc.tensor(randn(3 * H, I)), tc.tensor(randn(3 * H, H)))
    out3.sum().backward()
    assert h0.grad is not None and tuple(h0.grad.shape) == (N, H)


def test_empty_sequence_and_errors():
    out, h = F.gru_layer(tc.zeros(0, 2, 3), None, tc.zeros(12, 3), tc.zeros(12, 4))
    assert tuple(out.shape) == (0, 2, 4) and tuple(h.shape) == (2, 4)
    with pytest.raises(
        ValueError, match=r"lstm_layer: expected weight_ih of shape \[16, 3\], got \[16, 5\]"
    ):
        F.lstm_layer(tc.zeros(4, 2, 3), None, None, tc.zeros(16, 5), tc.zeros(16, 4))
    with pytest.raises(
        ValueError, match=r"gru_layer: expected hidden state of shape \[2, 4\], got \[3, 4\]"
    ):
        F.gru_layer(tc.zeros(4, 2, 3), tc.zeros(3, 4), tc.zeros(12, 3), tc.zeros(12, 4))


def _module_case(
    torch_ref, make_ours, mode, layers, bidir, batch_first, with_state, dtype, **ref_kwargs
):
    T, N, I, H = 5, 3, 4, 6
    D = 2 if bidir else 1
    ref = getattr(torch_ref.nn, mode)(
        I, H, layers, batch_first=batch_first, bidirectional=bidir, **ref_kwargs
    )
    ref = ref.double() if dtype == np.float64 else ref
    ours = make_ours(I, H, layers, batch_first, bidir)
    ours.load_state_dict(
        {k: tc.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()}
    )
    if dtype == np.float64 and hasattr(ours, "double"):
        ours = ours.double()
    x = randn(*((N, T, I) if batch_first else (T, N, I)), dtype=dtype)
    tx, rx = leaf(x), torch_ref.tensor(x, requires_grad=True)
    states = [randn(layers * D, N, H, dtype=dtype) for _ in range(2)]
    ts = [leaf(s) for s in states]
    rs = [torch_ref.tensor(s, requires_grad=True) for s in states]
    if with_state:
        out, hn = ours(tx, (ts[0], ts[1]) if mode == "LSTM" else ts[0])
        rout, rhn = ref(rx, (rs[0], rs[1]) if mode == "LSTM" else rs[0])
    else:
        out, hn = ours(tx)
        rout, rhn = ref(rx)
    hs = list(hn) if mode == "LSTM" else [hn]
    rhs = list(rhn) if mode == "LSTM" else [rhn]
    tol = 1e-11 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(out.detach().numpy(), rout.detach().numpy(), rtol=tol, atol=tol)
    for a, b in zip(hs, rhs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    wo = randn(*out.shape, dtype=dtype)
    loss = (out * tc.tensor(wo)).sum() + sum((h * (k + 2)).sum() for k, h in enumerate(hs))
    rloss = (rout * torch_ref.tensor(wo)).sum() + sum(
        (h * (k + 2)).sum() for k, h in enumerate(rhs)
    )
    loss.backward()
    rloss.backward()
    gtol = 1e-10 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=gtol, atol=gtol)
    if with_state:
        for k in range(2 if mode == "LSTM" else 1):
            np.testing.assert_allclose(ts[k].grad.numpy(), rs[k].grad.numpy(), rtol=gtol, atol=gtol)
    params = dict(ours.named_parameters())
    for name, p in ref.named_parameters():
        np.testing.assert_allclose(
            params[name].grad.numpy(), p.grad.numpy(), rtol=gtol, atol=gtol, err_msg=name
        )


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidir", [(1, False), (2, False), (1, True), (2, True)])
@pytest.mark.parametrize("batch_first,with_state", [(False, True), (True, False)])
def test_python_modules_match_torch(torch_ref, mode, layers, bidir, batch_first, with_state):
    make = lambda I, H, L, bf, bi: getattr(tnn, mode)(
        I, H, L, batch_first=bf, bidirectional=bi, dtype=tc.float64
    )
    _module_case(torch_ref, make, mode, layers, bidir, batch_first, with_state, np.float64)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize(
    "layers,bidir,batch_first,with_state", [(1, False, False, True), (2, True, True, False)]
)
def test_python_rnn_module_matches_torch(
    torch_ref, nonlinearity, layers, bidir, batch_first, with_state
):
    def make(I, H, L, bf, bi):
        return tnn.RNN(
            I, H, L, nonlinearity=nonlinearity, batch_first=bf, bidirectional=bi, dtype=tc.float64
        )

    _module_case(
        torch_ref,
        make,
        "RNN",
        layers,
        bidir,
        batch_first,
        with_state,
        np.float64,
        nonlinearity=nonlinearity,
    )


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_layer_matches_cells_and_gradchecks(nonlinearity, reverse):
    T, N, I, H = 5, 3, 4, 3
    arrays = [randn(T, N, I), randn(N, H), randn(H, I), randn(H, H), randn(H), randn(H)]
    cell = F.rnn_relu_cell if nonlinearity == "relu" else F.rnn_tanh_cell
    gouts = [randn(T, N, H), randn(N, H)]

    def run(fused):
        t = [leaf(a) for a in arrays]
        if fused:
            res = F.rnn_layer(*t, nonlinearity=nonlinearity, reverse=reverse)
        else:
            h, outs = t[1], [None] * T
            for k in range(T - 1, -1, -1) if reverse else range(T):
                h = cell(t[0][k], h, *t[2:])
                outs[k] = h
            res = (tc.stack(outs), h)
        sum((o * tc.tensor(g)).sum() for o, g in zip(res, gouts)).backward()
        return [r.detach().numpy() for r in res] + [p.grad.numpy() for p in t]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    t = [leaf(a) for a in arrays]
    fn = lambda *a: F.rnn_layer(*a, nonlinearity=nonlinearity, reverse=reverse)
    assert tc.autograd.gradcheck(fn, tuple(t))
    assert tc.autograd.gradgradcheck(fn, tuple(t))
    with pytest.raises(ValueError, match="rnn_layer: unknown nonlinearity 'gelu'"):
        F.rnn_layer(t[0], None, t[2], t[3], nonlinearity="gelu")


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_python_modules_match_torch_float32(torch_ref, mode):
    make = lambda I, H, L, bf, bi: getattr(tnn, mode)(I, H, L, batch_first=bf, bidirectional=bi)
    _module_case(torch_ref, make, mode, 2, True, False, True, np.float32)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("bidir,batch_first", [(False, True), (True, False)])
def test_cpp_frontend_matches_torch(torch_ref, mode, bidir, batch_first):
    make = lambda I, H, L, bf, bi: getattr(cpp, mode)(I, H, L, batch_first=bf, bidirectional=bi)
    _module_case(torch_ref, make, mode, 2, bidir, batch_first, True, np.float64)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_packed_sequences_still_match_torch(torch_ref, mode):
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    T, N, I, H = 6, 3, 4, 5
    ref = getattr(torch_ref.nn, mode)(I, H, 2, bidirectional=True).double()
    ours = getattr(tnn, mode)(I, H, 2, bidirectional=True, dtype=tc.float64)
    ours.load_state_dict(
        {k: tc.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()}
    )
    x = randn(T, N, I)
    lengths = [6, 2, 4]
    tx, rx = leaf(x), torch_ref.tensor(x, requires_grad=True)
    out, _ = ours(pack_padded_sequence(tx, lengths, enforce_sorted=False))
    rout, _ = ref(torch_ref.nn.utils.rnn.pack_padded_sequence(rx, lengths, enforce_sorted=False))
    pout, _ = pad_packed_sequence(out)
    rpout, _ = torch_ref.nn.utils.rnn.pad_packed_sequence(rout)
    np.testing.assert_allclose(
        pout.detach().numpy(), rpout.detach().numpy(), rtol=1e-11, atol=1e-12
    )
    pout.sum().backward()
    rpout.sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=1e-10, atol=1e-11)


def test_dropout_between_layers_still_applies():
    tc.manual_seed(0)
    m = tnn.LSTM(4, 8, 2, dropout=0.5)
    x = tc.tensor(randn(5, 3, 4, dtype=np.float32))
    m.train()
    a, _ = m(x)
    b, _ = m(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    m.eval()
    c, _ = m(x)
    d, _ = m(x)
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_bfloat16_and_autocast_precision(mode):
    # bfloat16 input runs the cell ops per step: float32 compute with bfloat16 results; under CPU
    # autocast the layers stay float32 (torch 1.13's CPU autocast leaves nn.LSTM/GRU and the
    # cells in float32 too).
    tc.manual_seed(1)
    m = getattr(tnn, mode)(5, 4, 2, bidirectional=True)
    x = tc.tensor(randn(6, 2, 5, dtype=np.float32))
    ref, _ = m(x)
    with tc.autocast("cpu"):
        out, _ = m(x)
    assert out.dtype == tc.float32
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-6)
    mb = getattr(tnn, mode)(5, 4, 2, bidirectional=True)
    mb.load_state_dict(m.state_dict())
    mb = mb.to(tc.bfloat16)
    outb, _ = mb(x.to(tc.bfloat16))
    assert outb.dtype == tc.bfloat16
    np.testing.assert_allclose(outb.float().detach().numpy(), ref.detach().numpy(), atol=0.05)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_cpu_autocast_widens_bfloat16_input_into_the_whole_layer_node(mode):
    # Under CPU autocast a bfloat16 input (an autocast linear's output) meets float32 weights: the
    # layer computes in float32 as one node, as it does on float32 input, and gradients reach the
    # bfloat16 input in its dtype.
    tc.manual_seed(2)
    m = getattr(tnn, mode)(6, 5)
    xb = tc.tensor(randn(40, 3, 6, dtype=np.float32)).bfloat16()
    x32 = xb.float().requires_grad_(True)
    ref, _ = m(x32)
    ref.sum().backward()
    ref_grads = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    xb.requires_grad_(True)
    with tc.autocast("cpu"):
        out, h_n = m(xb)
    h_n = h_n[0] if mode == "LSTM" else h_n
    assert out.dtype == tc.float32 and h_n.dtype == tc.float32
    assert "LayerBackward" in out.grad_fn.name()  # not a chain of per-step cell nodes
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-6)
    out.sum().backward()
    assert xb.grad.dtype == tc.bfloat16
    np.testing.assert_allclose(xb.grad.float().numpy(), x32.grad.numpy(), rtol=1e-2, atol=1e-2)
    for p, g in zip(m.parameters(), ref_grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_cpu_autocast_widens_a_bfloat16_packed_sequence_like_a_padded_one(mode):
    from tensorcore.nn.utils.rnn import pack_padded_sequence

    tc.manual_seed(3)
    m = getattr(tnn, mode)(6, 5)
    xb = tc.tensor(randn(7, 3, 6, dtype=np.float32)).bfloat16()
    lengths = [7, 5, 2]
    ref, ref_h = m(pack_padded_sequence(xb.float(), lengths))
    with tc.autocast("cpu"):
        out, h_n = m(pack_padded_sequence(xb, lengths))
    h_n, ref_h = (h_n[0], ref_h[0]) if mode == "LSTM" else (h_n, ref_h)
    # float32 out, as the padded path (before: the float32 result rounded back to bfloat16)
    assert out.data.dtype == tc.float32 and h_n.dtype == tc.float32
    assert "LayerBackward" in out.data.grad_fn.name()
    np.testing.assert_allclose(out.data.detach().numpy(), ref.data.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(h_n.detach().numpy(), ref_h.detach().numpy(), atol=1e-6)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_non_contiguous_output_gradients(kind):
    # Gradients arriving as transposed / expanded views (h_n used through .t(), output summed).
    T, N, I, H = 4, 3, 2, 5
    G = 4 if kind == "lstm" else 3
    arrays = [randn(T, N, I), randn(G * H, I), randn(G * H, H)]
    wt = tc.tensor(randn(H, N))

    def run(fused):
        x, w, u = [leaf(a) for a in arrays]
        if fused:
            res = (
                F.lstm_layer(x, None, None, w, u) if kind == "lstm" else F.gru_layer(x, None, w, u)
            )
        else:
            z = tc.zeros(N, H, dtype=tc.float64)
            res = steps_reference(kind, x, z, z, w, u, None, None, False)
        loss = (
            res[0].sum() + (res[1].t() * wt).sum() + (res[2].t() * wt * 2).sum()
            if kind == "lstm"
            else res[0].sum() + (res[1].t() * wt).sum()
        )
        loss.backward()
        return [p.grad.numpy() for p in (x, w, u)]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
