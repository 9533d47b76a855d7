"""C++ tc::nn modules inside Python nn.Modules and Python modules inside C++ ones
(tensorcore.nn.cpp): parameters, state_dict, gradients, optimizers, hooks, dtype conversion."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.nn import cpp


def np_(t):
    return t.detach().numpy()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = cpp.Linear(4, 3)
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(F.relu(self.inner(x)))


def test_cpp_module_inside_python_module():
    tc.manual_seed(0)
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["inner.weight", "inner.bias", "head.weight", "head.bias"]
    assert list(net.state_dict().keys()) == names
    w, b = net.inner.weight, net.inner.bias
    assert isinstance(w, nn.Parameter) and w.requires_grad
    # The Parameter is the C++ module's own tensor (same object when C++ hands it back).
    assert dict(net.inner.cpp.own_parameters())["weight"] is w

    x = tc.randn(5, 4)
    ref = np.maximum(np_(x) @ np_(w).T + np_(b), 0) @ np_(net.head.weight).T + np_(net.head.bias)
    np.testing.assert_allclose(np_(net(x)), ref, rtol=1e-5, atol=1e-6)

    # Gradients land on the Parameters the optimizer holds; the C++ forward sees the update.
    opt = tc.optim.SGD(net.parameters(), lr=0.5)
    loss = net(x).pow(2).sum()
    loss.backward()
    assert w.grad is not None and float(w.grad.abs().sum()) > 0
    before = np_(net.inner(x)).copy()
    opt.step()
    after = np_(net.inner(x))
    expect = np_(x) @ np_(w).T + np_(b)  # w, b already updated in place
    np.testing.assert_allclose(after, expect, rtol=1e-5, atol=1e-6)
    assert not np.allclose(before, after)

    # load_state_dict writes into the C++ tensors; .double() converts them in place.
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    sd["inner.bias"] = tc.ones(3)
    net.load_state_dict(sd)
    np.testing.assert_array_equal(np_(net.inner.cpp.state_dict()["bias"]), np.ones(3, np.float32))
    net.double()
    assert net.inner.weight.dtype == tc.float64 and net.inner.weight is w
    assert net(x.double()).dtype == tc.float64


def test_python_hooks_and_modes_on_cpp_modules():
    bn = cpp.BatchNorm1d(3)
    seen = []
    handle = bn.register_forward_hook(lambda m, args, out: seen.append(tuple(out.shape)))
    x = tc.randn(8, 3)
    bn(x)
    assert seen == [(8, 3)]
    handle.remove()
    # Running stats are the C++ buffers, updated in place by the C++ forward.
    assert int(bn.num_batches_tracked) == 1
    np.testing.assert_allclose(np_(bn.running_mean), 0.1 * np_(x).mean(0), rtol=1e-5, atol=1e-6)
    assert "num_batches_tracked" in bn.state_dict()
    bn.eval()
    assert not bn.cpp.is_training()
    y = bn(x)
    expect = (np_(x) - np_(bn.running_mean)) / np.sqrt(np_(bn.running_var) + 1e-5)
    np.testing.assert_allclose(np_(y), expect, rtol=1e-4, atol=1e-5)


def test_python_module_inside_cpp_sequential():
    tc.manual_seed(1)
    block = nn.Sequential(nn.Linear(6, 5), nn.Tanh())  # Python
    seq = cpp.Sequential(cpp.Linear(4, 6), cpp.GELU(), block, cpp.Linear(5, 2))
    py_keys = list(seq.state_dict().keys())
    assert py_keys == ["0.weight", "0.bias", "2.0.weight", "2.0.bias", "3.weight", "3.bias"]
    # The C++ Sequential lists the Python block's parameters under the same keys, same tensors.
    cpp_sd = seq.cpp.state_dict()
    assert list(cpp_sd.keys()) == py_keys
    with tc.no_grad():
        block[0].weight.fill_(0.25)  # visible through the C++ side: same storage
    assert float(seq.cpp.state_dict()["2.0.weight"].sum()) == 0.25 * 30
    tc.manual_seed(1)
    block[0].reset_parameters()
    assert seq[2] is block

    x = tc.randn(3, 4)
    h = F.gelu(seq[0](x))
    ref = seq[3](block(h))
    np.testing.assert_allclose(np_(seq(x)), np_(ref), rtol=1e-5, atol=1e-6)
    seq(x).sum().backward()  # through C++ -> Python -> C++
    for name, p in seq.named_parameters():
        assert p.grad is not None and float(p.grad.abs().sum()) > 0, name

    with pytest.raises(TypeError, match="entry 1"):
        cpp.Sequential(cpp.ReLU(), lambda t: t)


def test_mixed_model_trains():
    tc.manual_seed(2)
    g = tc.Generator().manual_seed(3)
    x = tc.randn(256, 2, generator=g)
    y = ((x[:, 0] * x[:, 1]) > 0).long()  # XOR-like quadrants
    model = nn.Sequential(
        cpp.Linear(2, 32), cpp.ReLU(), nn.Linear(32, 32), nn.ReLU(), cpp.Linear(32, 2)
    )
    opt = tc.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(150):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    acc = float((model(x).argmax(1) == y).float().mean())
    assert acc > 0.9, acc


def test_cpp_rnn_matches_python_layer():
    tc.manual_seed(4)
    ref = nn.LSTM(3, 5, num_layers=2, batch_first=True, bidirectional=True)
    lstm = cpp.LSTM(3, 5, 2, batch_first=True, bidirectional=True)
    assert list(lstm.state_dict().keys()) == list(ref.state_dict().keys())
    lstm.load_state_dict(ref.state_dict())
    x = tc.randn(2, 4, 3)
    out, (h, c) = lstm(x)
    rout, (rh, rc) = ref(x)
    np.testing.assert_allclose(np_(out), np_(rout), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_(h), np_(rh), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_(c), np_(rc), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="LSTM"):
        lstm(tc.randn(2, 4, 7))


def test_cpp_rnn_takes_packed_sequences():
    tc.manual_seed(5)
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    x = tc.randn(4, 6, 3)
    lengths = [3, 6, 2, 5]
    for kind in ("LSTM", "GRU"):
        ref = getattr(nn, kind)(3, 4, num_layers=2, batch_first=True, bidirectional=True)
        mod = getattr(cpp, kind)(3, 4, 2, batch_first=True, bidirectional=True)
        mod.load_state_dict(ref.state_dict())
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, state = mod(packed)
        rout, rstate = ref(packed)
        assert type(out).__name__ == "PackedSequence"
        np.testing.assert_array_equal(np_(out.batch_sizes), np_(rout.batch_sizes))
        np.testing.assert_allclose(np_(out.data), np_(rout.data), rtol=1e-5, atol=1e-6)
        hs = state if kind == "GRU" else state[0]
        rhs = rstate if kind == "GRU" else rstate[0]
        np.testing.assert_allclose(np_(hs), np_(rhs), rtol=1e-5, atol=1e-6)
        padded, lens = pad_packed_sequence(out, batch_first=True)
        assert lens.tolist() == lengths


def test_cpp_transformer_and_attention_match_python_layers():
    tc.manual_seed(6)
    ref = nn.Transformer(
        d_model=8,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=1,
        dim_feedforward=16,
        dropout=0.0,
        batch_first=True,
    )
    mod = cpp.Transformer(8, 2, 2, 1, 16, 0.0, batch_first=True)
    assert list(mod.state_dict().keys()) == list(ref.state_dict().keys())
    mod.load_state_dict(ref.state_dict())
    src, tgt = tc.randn(3, 5, 8), tc.randn(3, 4, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    kpm = tc.zeros(3, 5, dtype=tc.bool)
    kpm[1, 3:] = True
    out = mod(src, tgt, tgt_mask=mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    want = ref(src, tgt, tgt_mask=mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    np.testing.assert_allclose(np_(out), np_(want), rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        mod(src, tgt, bogus=1)

    mha_ref = nn.MultiheadAttention(8, 2)
    mha = cpp.MultiheadAttention(8, 2)
    mha.load_state_dict(mha_ref.state_dict())
    q = tc.randn(4, 3, 8)
    o, w = mha(q, q, q, need_weights=True)
    ro, rw = mha_ref(q, q, q)
    np.testing.assert_allclose(np_(o), np_(ro), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_(w), np_(rw), rtol=1e-5, atol=1e-6)
