"""tc.jit traces the recurrent stack and multi-head attention as one node each (the
_C._nn_modules bindings) and replays them through tensorcore/jit/ops_nn_modules.cpp after save
and load: LSTM with projections, bidirectional GRU and attention with a padding mask. (Packed
sequences are built through NumPy, which a trace cannot follow.)"""

import numpy as np

import tensorcore as tc
import tensorcore.nn as nn


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, proj_size=4, batch_first=True)
        self.gru = nn.GRU(4, 5, bidirectional=True, batch_first=True)
        self.attn = nn.MultiheadAttention(10, 2, batch_first=True)

    def forward(self, x, mask):
        y, (h, c) = self.lstm(x)
        z, hz = self.gru(y)
        a, w = self.attn(z, z, z, key_padding_mask=mask)
        return a, w, h, c, hz


def test_rnn_and_attention_replay_after_save_and_load(tmp_path):
    tc.manual_seed(0)
    model = Recurrent().eval()
    x = tc.randn(3, 7, 6)
    mask = tc.tensor([[False] * 7, [False] * 5 + [True] * 2, [False] * 6 + [True]])
    traced = tc.jit.trace(model, (x, mask))
    tc.jit.save(traced, tmp_path / "rnn.pt")
    loaded = tc.jit.load(tmp_path / "rnn.pt")
    x2 = tc.randn(3, 7, 6)
    expected = model(x2, mask)
    for got in (traced(x2, mask), loaded(x2, mask)):
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g.detach().numpy(), e.detach().numpy())
