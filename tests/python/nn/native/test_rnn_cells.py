import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(3)


def randn(*shape, dtype=np.float64):
    return (RNG.standard_normal(shape) * 0.5).astype(dtype)


def leaf(a):
    return tc.tensor(a).requires_grad_(True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind,gates", [("lstm", 4), ("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(F, torch_ref, dtype, kind, gates, bias):
    N, I, H = 3, 5, 4
    x, h, c = randn(N, I, dtype=dtype), randn(N, H, dtype=dtype), randn(N, H, dtype=dtype)
    w_ih, w_hh = randn(gates * H, I, dtype=dtype), randn(gates * H, H, dtype=dtype)
    b_ih, b_hh = randn(gates * H, dtype=dtype), randn(gates * H, dtype=dtype)
    ours = [leaf(a) for a in (x, h, c, w_ih, w_hh, b_ih, b_hh)]
    refs = [torch_ref.tensor(a, requires_grad=True) for a in (x, h, c, w_ih, w_hh, b_ih, b_hh)]

    def run(mod, t, vf):
        bi, bh = (t[5], t[6]) if bias else (None, None)
        if kind == "lstm":
            return getattr(mod, "lstm_cell")(t[0], (t[1], t[2]), t[3], t[4], bi, bh)
        return getattr(mod, f"{kind}_cell")(t[0], t[1], t[3], t[4], bi, bh)

    out = run(F, ours, False)
    ref = run(torch_ref._VF, refs, True)
    outs = out if isinstance(out, tuple) else (out,)
    rs = ref if isinstance(ref, tuple) else (ref,)
    loss = sum(
        (o * tc.tensor(np.arange(o.numel()).reshape(o.shape).astype(dtype) / 10)).sum()
        for o in outs
    )
    rloss = sum(
        (o * torch_ref.tensor(np.arange(o.numel()).reshape(o.shape).astype(dtype) / 10)).sum()
        for o in rs
    )
    loss.backward()
    rloss.backward()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for o, r in zip(outs, rs):
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=tol, atol=tol)
    used = [0, 1, 3, 4] + ([5, 6] if bias else []) + ([2] if kind == "lstm" else [])
    for i in used:
        np.testing.assert_allclose(ours[i].grad.numpy(), refs[i].grad.numpy(), rtol=tol, atol=tol)


def test_cells_gradcheck_and_gradgradcheck(F):
    N, I, H = 2, 3, 2
    x, h, c = leaf(randn(N, I)), leaf(randn(N, H)), leaf(randn(N, H))
    w4, u4 = leaf(randn(4 * H, I)), leaf(randn(4 * H, H))
    w3, u3 = leaf(randn(3 * H, I)), leaf(randn(3 * H, H))
    b3 = leaf(randn(3 * H))
    lstm = lambda x, h, c, w, u: F.lstm_cell(x, (h, c), w, u)
    assert tc.autograd.gradcheck(lstm, (x, h, c, w4, u4))
    assert tc.autograd.gradgradcheck(lstm, (x, h, c, w4, u4))
    gru = lambda x, h, w, u, b: F.gru_cell(x, h, w, u, b, b)
    assert tc.autograd.gradcheck(gru, (x, h, w3, u3, b3))
    assert tc.autograd.gradgradcheck(gru, (x, h, w3, u3, b3))


def test_cell_unbatched_and_default_state(F, torch_ref):
    x, w, u = randn(5), randn(12, 5), randn(12, 4)
    h = F.gru_cell(tc.tensor(x), None, tc.tensor(w), tc.tensor(u))
    rh = torch_ref._VF.gru_cell(
        torch_ref.tensor(x)[None],
        torch_ref.zeros(1, 4, dtype=torch_ref.float64),
        torch_ref.tensor(w),
        torch_ref.tensor(u),
        None,
        None,
    )[0]
    assert tuple(h.shape) == (4,)
    np.testing.assert_allclose(h.numpy(), rh.numpy(), rtol=1e-12)


def test_cell_errors(F):
    with pytest.raises(
        ValueError, match=r"lstm_cell: expected weight_ih of shape \[16, 5\], got \[16, 6\]"
    ):
        F.lstm_cell(tc.zeros(2, 5), None, tc.zeros(16, 6), tc.zeros(16, 4))
    with pytest.raises(
        ValueError, match=r"gru_cell: expected hidden state of shape \[2, 4\], got \[3, 4\]"
    ):
        F.gru_cell(tc.zeros(2, 5), tc.zeros(3, 4), tc.zeros(12, 5), tc.zeros(12, 4))


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("reverse", [False, True])
def test_sequence_layers_match_torch(F, torch_ref, kind, reverse):
    T, N, I, H = 5, 3, 4, 6
    G = 4 if kind == "lstm" else 3
    ref = getattr(torch_ref.nn, kind.upper())(I, H, bidirectional=reverse).double()
    x = randn(T, N, I)
    h0, c0 = randn(1 + reverse, N, H), randn(1 + reverse, N, H)
    sfx = "_reverse" if reverse else ""
    params = [
        getattr(ref, f"{n}_l0{sfx}").detach().numpy()
        for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    ]
    tp = [leaf(p) for p in params]
    tx = leaf(x)
    d = 1 if reverse else 0
    if kind == "lstm":
        out, h, c = F.lstm_layer(tx, tc.tensor(h0[d]), tc.tensor(c0[d]), *tp, reverse=reverse)
        rout, (rh, rc) = ref(
            torch_ref.tensor(x, requires_grad=True), (torch_ref.tensor(h0), torch_ref.tensor(c0))
        )
        np.testing.assert_allclose(
            c.detach().numpy(), rc[d].detach().numpy(), rtol=1e-10, atol=1e-12
        )
    else:
        out, h = F.gru_layer(tx, tc.tensor(h0[d]), *tp, reverse=reverse)
        rout, rh = ref(torch_ref.tensor(x, requires_grad=True), torch_ref.tensor(h0))
    rout_dir = rout[..., d * H : (d + 1) * H]
    np.testing.assert_allclose(
        out.detach().numpy(), rout_dir.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(h.detach().numpy(), rh[d].detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    rout_dir.sum().backward()
    w_ref = getattr(ref, f"weight_hh_l0{sfx}").grad.numpy()
    np.testing.assert_allclose(tp[1].grad.numpy(), w_ref, rtol=1e-9, atol=1e-11)
    assert G * H == params[0].shape[0]


def test_sequence_layer_gradcheck(F):
    T, N, I, H = 3, 2, 3, 2
    x = leaf(randn(T, N, I))
    w, u, b = leaf(randn(3 * H, I)), leaf(randn(3 * H, H)), leaf(randn(3 * H))
    assert tc.autograd.gradcheck(
        lambda x, w, u, b: F.gru_layer(x, None, w, u, b, b, reverse=True)[0], (x, w, u, b)
    )
    w4, u4 = leaf(randn(4 * H, I)), leaf(randn(4 * H, H))
    assert tc.autograd.gradcheck(lambda x, w, u: F.lstm_layer(x, None, None, w, u)[0], (x, w4, u4))
