"""WaveRNN's teacher-forced forward and its parts (ResBlock, MelResNet, Stretch2d,
UpsampleNetwork) against torchaudio 0.13: module trees, strict state-dict loading, outputs and
every gradient in float32 and float64; bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore.audio.models import wavernn as ours_wavernn

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}
SMALL = dict(
    upsample_scales=[2, 3],
    n_classes=16,
    hop_length=6,
    n_res_block=2,
    n_rnn=12,
    n_fc=10,
    kernel_size=5,
    n_freq=8,
    n_hidden=6,
    n_output=9,
)  # n_output 9: n_aux 2, one channel unused


def _pair(ta_ref, bridge, dtype, **kw):
    ref = ta_ref.models.WaveRNN(**dict(SMALL, **kw))
    ours = ta.models.WaveRNN(**dict(SMALL, **kw))
    if dtype == "float64":
        ref, ours = ref.double(), ours.double()
    return ref, bridge.load_weights(ref, ours)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_and_gradients_match_torchaudio(ta_ref, bridge, dtype):
    torch = bridge.torch
    torch.manual_seed(5)
    ref, ours = _pair(ta_ref, bridge, dtype)
    td = getattr(torch, dtype)
    n_time = 7
    spec = torch.randn(2, 1, 8, n_time, dtype=td)
    wave = torch.rand(2, 1, (n_time - 4) * 6, dtype=td) * 2 - 1
    rtol, atol = TOL[dtype]
    bridge.check_forward_backward(ref, ours, [wave, spec], rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eval_mode_forward_matches(ta_ref, bridge, dtype):
    # Batch norm with running statistics (what infer uses) after a training step changed them.
    torch = bridge.torch
    torch.manual_seed(6)
    ref, ours = _pair(ta_ref, bridge, dtype, kernel_size=3)
    td = getattr(torch, dtype)
    spec = torch.randn(1, 1, 8, 6, dtype=td)
    wave = torch.rand(1, 1, 4 * 6, dtype=td)
    ref(wave, spec)
    ours(bridge.to_tc(wave), bridge.to_tc(spec))
    ref.eval()
    ours.eval()
    rtol, atol = TOL[dtype]
    bridge.check_forward_backward(ref, ours, [wave, spec], rtol=rtol, atol=atol)


def test_parts_match_torchaudio(ta_ref, bridge):
    torch = bridge.torch
    torch.manual_seed(7)
    ta_wr = ta_ref.models.wavernn
    parts = [
        (ta_wr.ResBlock(6), ours_wavernn.ResBlock(6), [torch.randn(2, 6, 5)]),
        (
            ta_wr.MelResNet(2, 8, 6, 9, 3),
            ours_wavernn.MelResNet(2, 8, 6, 9, 3),
            [torch.randn(2, 8, 7)],
        ),
        (ta_wr.Stretch2d(3, 2), ours_wavernn.Stretch2d(3, 2), [torch.randn(2, 1, 4, 5)]),
    ]
    for ref, ours, inputs in parts:
        if list(ref.parameters()):
            bridge.load_weights(ref, ours)
            bridge.check_forward_backward(ref, ours, inputs, rtol=2e-4, atol=2e-5)
        else:
            np.testing.assert_array_equal(
                ours(bridge.to_tc(inputs[0])).numpy(), ref(inputs[0]).numpy()
            )
    ref = ta_wr.UpsampleNetwork([2, 3], 2, 8, 6, 9, 5)
    ours = bridge.load_weights(ref, ours_wavernn.UpsampleNetwork([2, 3], 2, 8, 6, 9, 5))
    assert ours.total_scale == ref.total_scale == 6 and ours.indent == ref.indent
    x = torch.randn(2, 8, 7)
    (ru, ra), (ou, oa) = ref(x), ours(bridge.to_tc(x))
    np.testing.assert_allclose(ou.detach().numpy(), ru.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(oa.detach().numpy(), ra.detach().numpy(), rtol=1e-5, atol=1e-6)
    # The moving-average upsampling convolutions start at the average, as torchaudio's.
    for layer in ours.upsample_layers:
        if isinstance(layer, tc.nn.Conv2d):
            np.testing.assert_allclose(
                layer.weight.detach().numpy(), 1.0 / layer.weight.shape[-1], rtol=1e-7
            )


def test_default_module_tree_matches(ta_ref, bridge):
    ref = ta_ref.models.WaveRNN(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275)
    ours = ta.models.WaveRNN(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275)
    bridge.check_module_tree(ref, ours)
    for attr in ("n_bits", "n_aux", "n_rnn", "hop_length", "n_classes", "kernel_size", "_pad"):
        assert getattr(ours, attr) == getattr(ref, attr), attr


def test_bad_input_names_the_argument():
    m = ta.models.WaveRNN(**SMALL)
    spec = tc.randn(2, 1, 8, 7)
    wave = tc.randn(2, 1, 3 * 6)
    with pytest.raises(ValueError, match="hop_length must equal the product of upsample_scales"):
        ta.models.WaveRNN(**dict(SMALL, hop_length=5))
    with pytest.raises(
        ValueError,
        match=r"waveform has 17 samples.*\(n_time - kernel_size \+ 1\) \* hop_length = 18",
    ):
        m(tc.randn(2, 1, 17), spec)
    with pytest.raises(ValueError, match="n_freq=8"):
        m(wave, tc.randn(2, 1, 9, 7))
    with pytest.raises(ValueError, match="input channel of waveform"):
        m(tc.randn(2, 2, 18), spec)
    with pytest.raises(ValueError, match="input channel of specgram"):
        m(wave, tc.randn(2, 8, 7))
    with pytest.raises(ValueError, match="batch size"):
        m(tc.randn(1, 1, 18), spec)
    with pytest.raises(ValueError, match="kernel_size=5 frames"):
        m(tc.randn(2, 1, 0), tc.randn(2, 1, 8, 3))
    with pytest.raises(TypeError, match="specgram must be a Tensor"):
        m(wave, None)
    with pytest.raises(ValueError, match="upsample_scales"):
        ours_wavernn.UpsampleNetwork([2, 0])
