"""Layers with composite implementations (native kernels replace them when built): norms,
embedding, recurrent layers, Transformer, pixel shuffle, non-constant padding — vs torch."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.autograd import gradcheck

RNG = np.random.default_rng(1)


def arr(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, size=shape).astype(dtype)


def copy_weights(mod, tmod):
    mod.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in tmod.state_dict().items()}
    )


def check(mod, tmod, *inputs, rtol=1e-9, atol=1e-10):
    copy_weights(mod, tmod)
    out = mod(*[tc.from_numpy(x) for x in inputs])
    import torch

    ref = tmod(*[torch.from_numpy(x) for x in inputs])
    if isinstance(out, tuple):
        out, ref = out[0], ref[0]
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)
    return out, ref


def test_normalization_layers(torch_ref):
    torch = torch_ref
    x = arr(4, 6, 5, 3)
    for mod, tmod in [
        (nn.LayerNorm((5, 3)), torch.nn.LayerNorm((5, 3))),
        (nn.GroupNorm(3, 6), torch.nn.GroupNorm(3, 6)),
        (nn.InstanceNorm2d(6, affine=True), torch.nn.InstanceNorm2d(6, affine=True)),
    ]:
        with torch.no_grad():
            for p in tmod.parameters():
                p.uniform_(-1, 1)
        check(mod.double(), tmod.double(), x)
    bn, tbn = (
        nn.BatchNorm2d(6, momentum=None).double(),
        torch.nn.BatchNorm2d(6, momentum=None).double(),
    )
    for _ in range(3):
        out, ref = check(bn, tbn, x) if _ == 0 else (bn(tc.from_numpy(x)), tbn(torch.from_numpy(x)))
        x = arr(4, 6, 5, 3)
    np.testing.assert_allclose(bn.running_mean.numpy(), tbn.running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(bn.running_var.numpy(), tbn.running_var.numpy(), rtol=1e-10)
    assert int(bn.num_batches_tracked.item()) == 3
    bn.eval()
    tbn.eval()
    np.testing.assert_allclose(
        bn(tc.from_numpy(x)).detach().numpy(), tbn(torch.from_numpy(x)).detach().numpy(), rtol=1e-9
    )
    with pytest.raises(ValueError, match="BatchNorm2d: expected 4D input"):
        bn(tc.zeros(2, 6))
    assert gradcheck(
        lambda t, w: F.group_norm(t, 2, w),
        (
            tc.from_numpy(arr(2, 4, 3)).requires_grad_(True),
            tc.from_numpy(arr(4)).requires_grad_(True),
        ),
    )
    assert gradcheck(
        lambda t: F.batch_norm(t, None, None, training=True),
        (tc.from_numpy(arr(3, 2, 2)).requires_grad_(True),),
    )


def test_embedding(torch_ref):
    torch = torch_ref
    emb, temb = (
        nn.Embedding(10, 4, padding_idx=2).double(),
        torch.nn.Embedding(10, 4, padding_idx=2).double(),
    )
    idx = np.array([[1, 2, 9], [2, 3, 1]])
    out, ref = check(emb, temb, idx)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(emb.weight.grad.numpy(), temb.weight.grad.numpy())
    with pytest.raises(IndexError, match="index 10 is out of range"):
        emb(tc.tensor([10]))
    m = nn.Embedding.from_pretrained(tc.from_numpy(arr(5, 3)), max_norm=1.0)
    m(tc.tensor([0, 1]))
    norms = np.linalg.norm(m.weight.detach().numpy()[:2], axis=1)
    assert np.all(norms <= 1.0 + 1e-6)


# float32 runs the kernels models use; float64 checks the formulas tightly.
@pytest.mark.parametrize("dtype,rtol,atol", [("float64", 1e-9, 1e-12), ("float32", 1e-4, 1e-5)])
@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_match_torch(torch_ref, cls, dtype, rtol, atol):
    torch = torch_ref
    m = getattr(nn, cls)(5, 7, num_layers=2, bidirectional=True, batch_first=True)
    tm = getattr(torch.nn, cls)(5, 7, num_layers=2, bidirectional=True, batch_first=True)
    m, tm = m.to(getattr(tc, dtype)), tm.to(getattr(torch, dtype))

    def close(got, ref):
        np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol, atol)

    x = arr(3, 6, 5, dtype=dtype)
    copy_weights(m, tm)
    out, h = m(tc.from_numpy(x))
    tout, th = tm(torch.from_numpy(x))
    close(out, tout)
    close(*((h[1], th[1]) if cls == "LSTM" else (h, th)))
    lengths = [6, 2, 4]
    packed = nn.utils.rnn.pack_padded_sequence(
        tc.from_numpy(x), lengths, batch_first=True, enforce_sorted=False
    )
    tpacked = torch.nn.utils.rnn.pack_padded_sequence(
        torch.from_numpy(x), lengths, batch_first=True, enforce_sorted=False
    )
    out, h = m(packed)
    tout, th = tm(tpacked)
    close(out.data, tout.data)
    close(*((h[0], th[0]) if cls == "LSTM" else (h, th)))
    # Unbatched input with an initial state.
    single = arr(4, 5, dtype=dtype)
    h0 = arr(4, 7, dtype=dtype)
    state = (tc.from_numpy(h0), tc.from_numpy(h0)) if cls == "LSTM" else tc.from_numpy(h0)
    tstate = (torch.from_numpy(h0), torch.from_numpy(h0)) if cls == "LSTM" else torch.from_numpy(h0)
    close(m(tc.from_numpy(single), state)[0], tm(torch.from_numpy(single), tstate)[0])
    with pytest.raises(
        ValueError, match="input.size\\(-1\\) must be equal to input_size. Expected 5, got 3"
    ):
        m(tc.zeros(2, 4, 3, dtype=getattr(tc, dtype)))


@pytest.mark.parametrize("cls", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_torch_and_gradcheck(torch_ref, cls):
    torch = torch_ref
    m, tm = getattr(nn, cls)(3, 4).double(), getattr(torch.nn, cls)(3, 4).double()
    out, ref = check(m, tm, arr(2, 3))
    fn = {"LSTMCell": F.lstm_cell, "GRUCell": F.gru_cell, "RNNCell": F.rnn_tanh_cell}[cls]
    chunks = {"LSTMCell": 4, "GRUCell": 3, "RNNCell": 1}[cls]
    x, h = (
        tc.from_numpy(arr(2, 3)).requires_grad_(True),
        tc.from_numpy(arr(2, 4)).requires_grad_(True),
    )
    w_ih = tc.from_numpy(arr(4 * chunks, 3)).requires_grad_(True)
    w_hh = tc.from_numpy(arr(4 * chunks, 4)).requires_grad_(True)
    state = (h, h * 0.5) if cls == "LSTMCell" else h
    assert gradcheck(
        lambda a, b, c, d: (
            fn(a, (b, b * 0.5) if cls == "LSTMCell" else b, c, d)[0]
            if cls == "LSTMCell"
            else fn(a, b, c, d)
        ),
        (x, h, w_ih, w_hh),
    )
    del state


def test_transformer_matches_torch(torch_ref):
    torch = torch_ref
    torch.manual_seed(0)
    tm = torch.nn.Transformer(
        16, 2, 2, 2, 32, dropout=0.0, batch_first=True, activation="gelu"
    ).double()
    m = nn.Transformer(16, 2, 2, 2, 32, dropout=0.0, batch_first=True, activation="gelu").double()
    copy_weights(m, tm)
    src, tgt = arr(2, 5, 16), arr(2, 4, 16)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=tc.float64)
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[1, 4] = True
    tm.eval()  # torch's eval fast path needs no dropout; ours matches it in both modes
    out = m(
        tc.from_numpy(src),
        tc.from_numpy(tgt),
        tgt_mask=mask,
        src_key_padding_mask=tc.from_numpy(kpm),
    )
    tout = tm(
        torch.from_numpy(src),
        torch.from_numpy(tgt),
        tgt_mask=torch.from_numpy(mask.numpy()),
        src_key_padding_mask=torch.from_numpy(kpm),
    )
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-8, atol=1e-10)
    enc, tenc = (
        nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True).double(),
        torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True).double(),
    )
    check(enc, tenc, arr(5, 3, 8), rtol=1e-8, atol=1e-10)


def test_pixel_shuffle_and_padding_modes(torch_ref):
    torch = torch_ref
    x = arr(2, 8, 3, 5)
    check(nn.PixelShuffle(2), torch.nn.PixelShuffle(2), x)
    check(nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2), arr(1, 2, 4, 6))
    check(nn.ChannelShuffle(4), torch.nn.ChannelShuffle(4), x)
    for mod, tmod in [
        (nn.ReflectionPad2d((1, 2, 2, 0)), torch.nn.ReflectionPad2d((1, 2, 2, 0))),
        (nn.ReplicationPad2d(3), torch.nn.ReplicationPad2d(3)),
        (nn.ReflectionPad1d(2), torch.nn.ReflectionPad1d(2)),
    ]:
        check(mod, tmod, x if "2d" in type(mod).__name__ else x[0])
    ref = torch.nn.functional.pad(torch.from_numpy(x), (1, 2, 0, 3), mode="circular")
    np.testing.assert_array_equal(
        F.pad(tc.from_numpy(x), (1, 2, 0, 3), mode="circular").numpy(), ref.numpy()
    )
    assert gradcheck(
        lambda t: F.pad(t, (2, 1), mode="reflect"), (tc.from_numpy(arr(2, 5)).requires_grad_(True),)
    )
    with pytest.raises(ValueError, match="reflect"):
        F.pad(tc.zeros(1, 3), (3, 0), mode="reflect")


def test_lstm_projections_match_torch(torch_ref):
    torch = torch_ref
    m = nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3).double()
    tm = torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3).double()
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    copy_weights(m, tm)
    x = arr(5, 2, 4)
    h0, c0 = arr(4, 2, 3), arr(4, 2, 6)
    out, (h, c) = m(tc.from_numpy(x), (tc.from_numpy(h0), tc.from_numpy(c0)))
    tout, (th, tc_) = tm(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
    for a, b in ((out, tout), (h, th), (c, tc_)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
    assert repr(m) == repr(tm)
    with pytest.raises(ValueError, match="proj_size has to be smaller"):
        nn.LSTM(4, 3, proj_size=3)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(4, 6, proj_size=2)
