"""ConvTasNet against torchaudio 0.13: module tree of the default and conv_tasnet_base models,
strict state-dict loading, outputs and every gradient in float32 and float64 for lengths that
hit every remainder of the encoder stride (the end padding); bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}
SMALL = dict(
    num_sources=3,
    enc_kernel_size=8,
    enc_num_feats=12,
    msk_kernel_size=3,
    msk_num_feats=6,
    msk_num_hidden_feats=10,
    msk_num_layers=3,
    msk_num_stacks=2,
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activate", ["sigmoid", "relu"])
def test_forward_and_gradients_match_torchaudio(ta_ref, bridge, dtype, activate):
    torch = bridge.torch
    torch.manual_seed(2)
    ref = ta_ref.models.ConvTasNet(**SMALL, msk_activate=activate)
    ours = ta.models.ConvTasNet(**SMALL, msk_activate=activate)
    if dtype == "float64":
        ref, ours = ref.double(), ours.double()
    bridge.load_weights(ref, ours)
    rtol, atol = TOL[dtype]
    # stride 4: lengths 64..67 leave every remainder, 1 and 5 are shorter than a kernel.
    for length in (64, 65, 66, 67, 1, 5):
        for p in list(ref.parameters()) + list(ours.parameters()):
            p.grad = None
        x = torch.randn(2, 1, length, dtype=getattr(torch, dtype))
        bridge.check_forward_backward(ref, ours, [x], rtol=rtol, atol=atol, seed=length)


def test_odd_kernel_alignment_matches_torchaudio(ta_ref, bridge):
    torch = bridge.torch
    torch.manual_seed(3)
    kw = dict(
        SMALL, enc_kernel_size=7
    )  # stride 3, odd kernel: the other branch of the padding rule
    ref, ours = ta_ref.models.ConvTasNet(**kw), ta.models.ConvTasNet(**kw)
    bridge.load_weights(ref, ours)
    for length in (30, 31, 32, 33):
        for p in list(ref.parameters()) + list(ours.parameters()):
            p.grad = None
        x = torch.randn(1, 1, length)
        bridge.check_forward_backward(ref, ours, [x], rtol=2e-4, atol=2e-5)


def test_default_and_base_models_have_torchaudio_module_trees(ta_ref, bridge):
    for ref, ours in (
        (ta_ref.models.ConvTasNet(), ta.models.ConvTasNet()),
        (ta_ref.models.conv_tasnet_base(num_sources=3), ta.models.conv_tasnet_base(num_sources=3)),
    ):
        bridge.check_module_tree(ref, ours)
        assert ours.mask_generator.receptive_field == ref.mask_generator.receptive_field
        assert (
            type(ours.mask_generator.mask_activate).__name__
            == type(ref.mask_generator.mask_activate).__name__
        )


def test_base_model_forward_matches_torchaudio(ta_ref, bridge):
    torch = bridge.torch
    torch.manual_seed(4)
    ref, ours = ta_ref.models.conv_tasnet_base(), ta.models.conv_tasnet_base()
    bridge.load_weights(ref, ours)
    x = torch.randn(1, 1, 203)
    with torch.no_grad():
        expected = ref(x).numpy()
    with tc.no_grad():
        got = ours(bridge.to_tc(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "shape,match",
    [((2, 2, 64), "channel==1"), ((2, 64), "channel==1"), ((2, 1, 0), "input is empty"),
     ((0, 1, 16), "input is empty")],
)  # fmt: skip
def test_bad_input_shape_names_the_problem(shape, match):
    with pytest.raises(ValueError, match=match):
        ta.models.ConvTasNet(**SMALL)(tc.randn(*shape))


def test_bad_input_names_the_argument():
    m = ta.models.ConvTasNet(**SMALL)
    with pytest.raises(TypeError, match="input must be a Tensor"):
        m(np.zeros((1, 1, 16), np.float32))
    with pytest.raises(ValueError, match="msk_activate"):
        ta.models.ConvTasNet(**SMALL, msk_activate="tanh")
    with pytest.raises(ValueError, match="enc_kernel_size"):
        ta.models.ConvTasNet(**dict(SMALL, enc_kernel_size=1))
