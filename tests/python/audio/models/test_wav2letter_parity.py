"""Wav2Letter against torchaudio 0.13: module tree, strict state-dict loading, outputs and every
gradient for the three input types in float32 and float64; bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}
# (input_type, num_features, time steps): the waveform one gives 3 frames after the front end.
CASES = [("waveform", 1, 500), ("power_spectrum", 21, 9), ("mfcc", 13, 7)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("input_type,num_features,length", CASES)
def test_forward_and_gradients_match_torchaudio(
    ta_ref, bridge, input_type, num_features, length, dtype
):
    torch = bridge.torch
    torch.manual_seed(1)
    ref = ta_ref.models.Wav2Letter(num_classes=7, input_type=input_type, num_features=num_features)
    ours = ta.models.Wav2Letter(num_classes=7, input_type=input_type, num_features=num_features)
    if dtype == "float64":
        ref = ref.double()
        ours = ours.double()
    bridge.load_weights(ref, ours)
    x = torch.randn(2, num_features, length, dtype=getattr(torch, dtype))
    rtol, atol = TOL[dtype]
    bridge.check_forward_backward(ref, ours, [x], rtol=rtol, atol=atol)


def test_module_tree_and_defaults_match(ta_ref, bridge):
    for kwargs in (
        {},
        {"input_type": "mfcc", "num_features": 40},
        {"input_type": "power_spectrum", "num_features": 201, "num_classes": 29},
    ):
        ref = ta_ref.models.Wav2Letter(**kwargs)
        bridge.check_module_tree(ref, ta.models.Wav2Letter(**kwargs))


def test_output_is_log_probabilities_over_classes():
    tc.manual_seed(0)
    m = ta.models.Wav2Letter(num_classes=5, input_type="mfcc", num_features=3)
    out = m(tc.randn(1, 3, 11))
    assert tuple(out.shape) == (1, 5, 6)  # the first acoustic convolution has stride 2
    np.testing.assert_allclose(out.exp().sum(1).detach().numpy(), 1.0, rtol=1e-5)


def test_bad_input_names_the_argument():
    m = ta.models.Wav2Letter(num_classes=5, input_type="mfcc", num_features=13)
    with pytest.raises(ValueError, match="num_features=13"):
        m(tc.randn(1, 12, 20))
    with pytest.raises(ValueError, match="x must be"):
        m(tc.randn(13, 20))
    with pytest.raises(ValueError, match="empty"):
        m(tc.randn(0, 13, 20))
    with pytest.raises(ValueError, match="at least 2"):
        m(tc.randn(1, 13, 1))
    with pytest.raises(TypeError, match="x must be a Tensor"):
        m([1.0, 2.0])
    w = ta.models.Wav2Letter(num_classes=5)
    with pytest.raises(ValueError, match="at least 320"):
        w(tc.randn(1, 1, 319))
    with pytest.raises(ValueError, match="input_type"):
        ta.models.Wav2Letter(input_type="spectrogram")
