"""ConvTasNet in tc.jit: its padding to the encoder stride and the cut back to the input length
are native nodes (models/audio/conv_tasnet.cpp, shared with eager), so a traced and saved model
separates inputs of any length exactly as eager does."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.audio.models import ConvTasNet


def small(enc_kernel_size):
    tc.manual_seed(0)
    return ConvTasNet(
        num_sources=2,
        enc_kernel_size=enc_kernel_size,
        enc_num_feats=16,
        msk_kernel_size=3,
        msk_num_feats=8,
        msk_num_hidden_feats=16,
        msk_num_layers=2,
        msk_num_stacks=1,
    ).eval()


@pytest.mark.parametrize("kernel", [16, 7])
def test_saved_graph_follows_the_input_length(kernel, tmp_path):
    model = small(kernel)
    traced = tc.jit.trace(model, tc.randn(1, 1, 400))
    assert traced.ops[0] == "_C._models_audio.conv_tasnet_pad"
    assert "_C._models_audio.conv_tasnet_unpad" in traced.ops
    traced.save(tmp_path / "m.tcj")
    loaded = tc.jit.load(tmp_path / "m.tcj")
    # 400 needs no padding for kernel 16 (the example), the others do; 1 and 2 are the shortest.
    for frames in (400, 403, 1, 2, 9, 517):
        x = tc.randn(1, 1, frames)
        with tc.no_grad():
            want = model(x)
        got = loaded(x)
        assert got.shape == (1, 2, frames)
        assert bool((got == want).all()), frames


def test_padding_matches_torchaudio():
    torch = pytest.importorskip("torch")
    torchaudio = pytest.importorskip("torchaudio")
    for kernel in (16, 7, 2):
        ours = small(kernel)
        ref = torchaudio.models.ConvTasNet(enc_kernel_size=kernel, msk_num_layers=1)
        for frames in (1, 2, 7, 8, 9, 100, 101):
            x = np.random.default_rng(frames).standard_normal((2, 1, frames)).astype(np.float32)
            want, want_pads = ref._align_num_frames_with_strides(torch.from_numpy(x))
            got, got_pads = ours._align_num_frames_with_strides(tc.from_numpy(x))
            assert int(got_pads) == int(want_pads), (kernel, frames)
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="batch, channel, frames"):
        tc._C._models_audio.conv_tasnet_pad(tc.randn(4, 10), 16, 8)
    with pytest.raises(ValueError, match="fewer than the input"):
        tc._C._models_audio.conv_tasnet_unpad(tc.randn(1, 2, 5), tc.randn(1, 1, 9))
