"""The audio models traced with tensorcore.fx give the eager models' outputs exactly."""

import pytest

import tensorcore as tc
import tensorcore.fx as fx
from tensorcore.audio.models import ConvTasNet, Wav2Letter, WaveRNN


def test_wav2letter_traces_exactly_and_keeps_its_input_check():
    tc.manual_seed(0)
    model = Wav2Letter(num_classes=5, input_type="mfcc", num_features=8).eval()
    gm = fx.symbolic_trace(model)
    x = tc.randn(2, 8, 20)
    with tc.no_grad():
        assert tc.equal(gm(x), model(x))
    with pytest.raises(ValueError, match="features"):
        gm(tc.randn(2, 7, 20))


def test_wavernn_forward_traces_exactly():
    tc.manual_seed(0)
    model = WaveRNN(
        upsample_scales=[2, 2], n_classes=16, hop_length=4, n_res_block=1, n_rnn=8, n_fc=8,
        kernel_size=3, n_freq=6, n_hidden=4, n_output=4,
    ).eval()  # fmt: skip
    gm = fx.symbolic_trace(model)
    spec = tc.randn(2, 1, 6, 5)
    wav = tc.randn(2, 1, (5 - 3 + 1) * 4)
    with tc.no_grad():
        assert tc.equal(gm(wav, spec), model(wav, spec))
    # The GRUs are leaves; their (output, h_n) results are unpacked with getitem nodes.
    assert "rnn1" in [n.target for n in gm.graph.nodes if n.op == "call_module"]
    with pytest.raises(ValueError, match="waveform"):
        gm(tc.randn(2, 1, 7), spec)


def test_conv_tasnet_traces_exactly_for_any_length():
    tc.manual_seed(0)
    model = ConvTasNet(
        num_sources=2, enc_kernel_size=4, enc_num_feats=8, msk_kernel_size=3, msk_num_feats=4,
        msk_num_hidden_feats=8, msk_num_layers=2, msk_num_stacks=1,
    ).eval()  # fmt: skip
    gm = fx.symbolic_trace(model)
    for frames in (32, 33, 35):  # with and without end padding
        x = tc.randn(1, 1, frames)
        with tc.no_grad():
            out = gm(x)
            assert out.shape == (1, 2, frames)
            assert tc.equal(out, model(x))
    with pytest.raises(ValueError, match="channel==1"):
        gm(tc.randn(1, 2, 9))
