"""WaveRNN.infer, the native sampling loop (models/audio/wavernn_infer.cpp).

Two random streams: torch_seed=s reproduces torch's CPU generator after torch.manual_seed(s)
(MT19937, consumed as torch.multinomial does), so the samples are compared with torchaudio's
infer sample for sample. The default stream is tensorcore's Philox generator, which cannot
produce torch's numbers; it is compared sample for sample with the same loop written in
tensorcore ops (tc.multinomial per step), and statistically with torchaudio's samples.
Fold mode is checked for alignment with the unfolded output (torchaudio's fold shifted it,
audio#1742)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore.nn import functional as F

SMALL = dict(
    upsample_scales=[2, 3],
    n_classes=16,
    hop_length=6,
    n_res_block=2,
    n_rnn=16,
    n_fc=12,
    kernel_size=5,
    n_freq=8,
    n_hidden=6,
    n_output=8,
)


def _pair(ta_ref, bridge, dtype="float32", **kw):
    ref = ta_ref.models.WaveRNN(**dict(SMALL, **kw)).eval()
    ours = ta.models.WaveRNN(**dict(SMALL, **kw)).eval()
    if dtype == "float64":
        ref, ours = ref.double(), ours.double()
    return ref, bridge.load_weights(ref, ours)


def _torchaudio_infer(torch, ref, spec, seed, lengths=None):
    torch.manual_seed(seed)
    with torch.no_grad():
        return ref.infer(spec, lengths)


def reference_infer(model, specgram, generator):
    """torchaudio's infer loop, step by step in tensorcore ops, drawing with tc.multinomial."""
    with tc.no_grad():
        specgram = F.pad(specgram, (model._pad, model._pad))
        specgram, aux = model.upsample(specgram)
        b, _, steps = specgram.shape
        h1 = tc.zeros(1, b, model.n_rnn, dtype=specgram.dtype)
        h2 = tc.zeros(1, b, model.n_rnn, dtype=specgram.dtype)
        x = tc.zeros(b, 1, dtype=specgram.dtype)
        a = [aux[:, model.n_aux * i : model.n_aux * (i + 1), :] for i in range(4)]
        out = []
        for i in range(steps):
            x = model.fc(tc.cat([x, specgram[:, :, i], a[0][:, :, i]], dim=1))
            _, h1 = model.rnn1(x.unsqueeze(1), h1)
            x = x + h1[0]
            _, h2 = model.rnn2(tc.cat([x, a[1][:, :, i]], dim=1).unsqueeze(1), h2)
            x = x + h2[0]
            x = F.relu(model.fc1(tc.cat([x, a[2][:, :, i]], dim=1)))
            x = F.relu(model.fc2(tc.cat([x, a[3][:, :, i]], dim=1)))
            posterior = F.softmax(model.fc3(x), dim=1)
            x = tc.multinomial(posterior, 1, generator=generator).float()
            x = 2 * x / (2**model.n_bits - 1.0) - 1.0
            out.append(x)
        return tc.stack(out).permute(1, 2, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_seed_gives_torchaudios_samples(ta_ref, bridge, dtype):
    torch = bridge.torch
    torch.manual_seed(0)
    ref, ours = _pair(ta_ref, bridge, dtype)
    spec = torch.randn(3, 8, 20, dtype=getattr(torch, dtype))
    expected, _ = _torchaudio_infer(torch, ref, spec, seed=1234)
    got, lengths = ours.infer(bridge.to_tc(spec), torch_seed=1234)
    assert lengths is None
    assert got.dtype == tc.float32 and expected.dtype == torch.float32  # torchaudio's .float()
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert len(np.unique(got.numpy())) > 8  # really sampling, not a constant


def test_torch_seed_default_size_model(ta_ref, bridge):
    # n_rnn = n_fc = 512, 256 classes: the sizes the vectorized products are tuned for.
    torch = bridge.torch
    torch.manual_seed(1)
    kw = dict(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275)
    ref = ta_ref.models.WaveRNN(**kw).eval()
    ours = bridge.load_weights(ref, ta.models.WaveRNN(**kw).eval())
    spec = torch.rand(1, 128, 1)
    expected, _ = _torchaudio_infer(torch, ref, spec, seed=99)
    got, _ = ours.infer(bridge.to_tc(spec), torch_seed=99)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_lengths_are_honoured(ta_ref, bridge):
    torch = bridge.torch
    torch.manual_seed(2)
    ref, ours = _pair(ta_ref, bridge)
    spec = torch.randn(3, 8, 9)
    frames = torch.tensor([9, 4, 0])
    expected, expected_len = _torchaudio_infer(torch, ref, spec, seed=5, lengths=frames)
    got, got_len = ours.infer(bridge.to_tc(spec), bridge.to_tc(frames), torch_seed=5)
    np.testing.assert_array_equal(got_len.numpy(), expected_len.numpy())
    got, expected = got.numpy(), expected.numpy()
    for b, n in enumerate(expected_len.tolist()):
        # Inside its length an utterance is torchaudio's (the skipped rows still advance the
        # stream); past it nothing is generated.
        np.testing.assert_array_equal(got[b, 0, :n], expected[b, 0, :n])
        assert not got[b, 0, n:].any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_generator_stream_matches_reference_loop(dtype):
    tc.manual_seed(3)
    model = ta.models.WaveRNN(**SMALL).eval()
    if dtype == "float64":
        model = model.double()
    spec = tc.randn(2, 8, 16, dtype=getattr(tc, dtype))
    g_native, g_ref = tc.Generator().manual_seed(77), tc.Generator().manual_seed(77)
    got, _ = model.infer(spec, generator=g_native)
    expected = reference_infer(model, spec, g_ref)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    # The loop consumed the generator exactly as the per-step draws did.
    np.testing.assert_array_equal(g_native.get_state().numpy(), g_ref.get_state().numpy())


def test_default_generator_and_seeding():
    tc.manual_seed(4)
    model = ta.models.WaveRNN(**SMALL).eval()
    spec = tc.randn(1, 8, 12)
    tc.manual_seed(10)
    a, _ = model.infer(spec)
    b, _ = model.infer(spec)
    tc.manual_seed(10)
    c, _ = model.infer(spec)
    np.testing.assert_array_equal(a.numpy(), c.numpy())
    assert (a.numpy() != b.numpy()).any()


def _constant_posterior_pair(ta_ref, bridge, logits):
    """A model whose posterior is softmax(logits) at every step (recurrent and input weights
    zero), so its samples are independent draws from a known distribution."""
    torch = bridge.torch
    ref = ta_ref.models.WaveRNN(**SMALL).eval()
    with torch.no_grad():
        for name, p in ref.named_parameters():
            if not name.startswith("upsample"):
                p.zero_()
        ref.fc3.bias.copy_(torch.tensor(logits))
    return ref, bridge.load_weights(ref, ta.models.WaveRNN(**SMALL).eval())


def test_generator_stream_has_torchaudios_distribution(ta_ref, bridge):
    # Chi-square tests, seeds fixed: both samplers against the exact distribution and against
    # each other (df = 15; 37.7 is the 0.1% critical value).
    torch = bridge.torch
    logits = np.linspace(-2.0, 1.0, 16).astype(np.float32)
    ref, ours = _constant_posterior_pair(ta_ref, bridge, logits)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    spec = torch.randn(8, 8, 60)  # 8 x 360 = 2880 draws per sampler
    theirs, _ = _torchaudio_infer(torch, ref, spec, seed=6)
    g = tc.Generator().manual_seed(6)
    mine, _ = ours.infer(bridge.to_tc(spec), generator=g)

    def counts(w):
        labels = np.rint((w.numpy().ravel() + 1.0) * 15 / 2).astype(int)
        return np.bincount(labels, minlength=16).astype(float)

    c_ours, c_ref = counts(mine), counts(theirs)
    n = c_ours.sum()
    for c in (c_ours, c_ref):
        assert ((c - n * p) ** 2 / (n * p)).sum() < 37.7
    pooled = (c_ours + c_ref) / 2
    assert (((c_ours - pooled) ** 2 + (c_ref - pooled) ** 2) / pooled).sum() < 37.7


def test_mulaw_output_matches_torchaudios_vocoder_pipeline(ta_ref, bridge):
    torch = bridge.torch
    torch.manual_seed(7)
    ref, ours = _pair(ta_ref, bridge)
    spec = torch.randn(2, 8, 10)
    linear, _ = _torchaudio_infer(torch, ref, spec, seed=8)
    # torchaudio.pipelines' WaveRNN vocoder: labels back from [-1, 1], then mu-law decoding.
    labels = (linear + 1.0) * (2**ref.n_bits - 1) / 2
    expected = ta_ref.functional.mu_law_decoding(labels, ref.n_classes)
    got, _ = ours.infer(bridge.to_tc(spec), torch_seed=8, mulaw=True)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def _deterministic_model():
    """Each sample depends only on the conditioning at its own time: zero recurrent weights,
    no feedback of the previous sample, and logits so peaked that every other class has
    probability exactly 0."""
    tc.manual_seed(8)
    model = ta.models.WaveRNN(**SMALL).eval()
    with tc.no_grad():
        for gru in (model.rnn1, model.rnn2):
            for p in gru.parameters():
                p.zero_()
        model.fc.weight[:, 0] = 0.0
        model.fc3.weight.mul_(1e6)
    return model


@pytest.mark.parametrize("target,overlap", [(40, 10), (37, 11), (25, 0), (30, 30), (500, 10)])
def test_fold_output_aligns_with_unfolded(target, overlap):
    model = _deterministic_model()
    spec = tc.randn(2, 8, 30) * 3
    frames = tc.tensor([30, 17])
    unfolded, len_u = model.infer(spec, frames)
    folded, len_f = model.infer(spec, frames, fold=True, target=target, overlap=overlap)
    u, f = unfolded.numpy(), folded.numpy()
    assert f.shape == u.shape == (2, 1, 180)
    np.testing.assert_array_equal(len_u.numpy(), len_f.numpy())
    assert len(np.unique(u)) > 3 and (np.diff(u[0, 0]) != 0).sum() > 8  # a signal whose shifts show
    # Same timeline: the cross-faded overlaps average two copies of the same samples.
    np.testing.assert_allclose(f, u, rtol=0, atol=2e-7)
    for shift in (1, -1):
        assert np.abs(np.roll(f, shift, axis=-1) - u).max() > 0.05
    assert not f[1, 0, 17 * 6 :].any()


def test_fold_keeps_a_random_models_first_segment():
    # With the Philox stream, utterance 0's first segment draws exactly what the unfolded run
    # draws, so everything before the first cross-fade's second half is the same samples.
    tc.manual_seed(9)
    model = ta.models.WaveRNN(**SMALL).eval()
    spec = tc.randn(1, 8, 40)
    u, _ = model.infer(spec, generator=tc.Generator().manual_seed(3))
    f, _ = model.infer(
        spec, generator=tc.Generator().manual_seed(3), fold=True, target=100, overlap=20
    )
    keep = 100 - 20 + 10
    np.testing.assert_array_equal(f.numpy()[..., :keep], u.numpy()[..., :keep])
    assert (f.numpy()[..., keep + 20 :] != u.numpy()[..., keep + 20 :]).any()
    assert f.shape == u.shape and np.abs(f.numpy()).max() <= 1.0


def test_bad_input_names_the_argument():
    model = ta.models.WaveRNN(**SMALL).eval()
    spec = tc.randn(2, 8, 6)
    with pytest.raises(ValueError, match="n_freq=8"):
        model.infer(tc.randn(2, 7, 6))
    with pytest.raises(ValueError, match="specgram must be"):
        model.infer(tc.randn(8, 6))
    with pytest.raises(ValueError, match="specgram is empty"):
        model.infer(tc.randn(2, 8, 0))
    with pytest.raises(ValueError, match="specgram is empty"):
        model.infer(tc.randn(0, 8, 6))
    with pytest.raises(TypeError, match="specgram has dtype"):
        model.infer(spec.double())
    with pytest.raises(ValueError, match="lengths must be"):
        model.infer(spec, tc.tensor([6]))
    with pytest.raises(ValueError, match="lengths must be in"):
        model.infer(spec, tc.tensor([6, 7]))
    with pytest.raises(TypeError, match="lengths must be an integer"):
        model.infer(spec, tc.tensor([6.0, 2.0]))
    with pytest.raises(ValueError, match="target"):
        model.infer(spec, fold=True, target=10, overlap=11)
    with pytest.raises(ValueError, match="target"):
        model.infer(spec, fold=True, target=0, overlap=0)
    with pytest.raises(ValueError, match="not both"):
        model.infer(spec, generator=tc.Generator(), torch_seed=1)
    with pytest.raises(TypeError, match="specgram must be a Tensor"):
        model.infer(None)


def test_native_loop_checks_its_weights():
    model = ta.models.WaveRNN(**SMALL).eval()
    weights = model._sampling_weights()
    cond, aux = tc.zeros(1, 8, 12), tc.zeros(1, 8, 12)
    native = tc._C._models_audio.wavernn_infer
    bad = dict(weights)
    bad["rnn2.weight_hh_l0"] = tc.zeros(48, 15)
    with pytest.raises(
        ValueError, match=r"rnn2.weight_hh_l0 has shape \[48, 15\], expected \[48, 16\]"
    ):
        native(bad, cond, aux)
    bad = dict(weights)
    del bad["fc3.bias"]
    with pytest.raises(ValueError, match="fc3.bias"):
        native(bad, cond, aux)
    with pytest.raises(ValueError, match="aux has 7 channels"):
        native(weights, cond, tc.zeros(1, 7, 12))
    with pytest.raises(ValueError, match="lengths must be in"):
        native(weights, cond, aux, [13])
    with pytest.raises(TypeError, match="dtype"):
        native(weights, cond.double(), aux.double())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_batch_linear_matches_matmul(dtype):
    # The product kernel of the loop (also what the benchmark times alone).
    linear = tc._C._models_audio.small_batch_linear
    tc.manual_seed(11)
    for m in (1, 3, 4, 6, 17):
        for k in (5, 16, 45):
            x = tc.randn(m, k, dtype=getattr(tc, dtype))
            w = tc.randn(9, k, dtype=getattr(tc, dtype))
            np.testing.assert_allclose(
                linear(x, w).numpy(), (x @ w.t()).numpy(), rtol=1e-5, atol=1e-5
            )
    with pytest.raises(ValueError, match="features"):
        linear(tc.randn(2, 3), tc.randn(4, 5))
    with pytest.raises(TypeError, match="float32 or float64"):
        linear(tc.randn(2, 3), tc.randn(4, 3).double())
