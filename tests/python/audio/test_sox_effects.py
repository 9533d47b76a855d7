import threading

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta

CHAINS = [
    [["gain", "-n"]],
    [["rate", "8000"]],
    [["speed", "0.8"], ["rate", "16000"]],
    [["tempo", "1.2"]],
    [["pitch", "200"], ["rate", "16000"]],
    [["reverb", "50"]],
    [["channels", "1"]],
    [["trim", "0.1", "0.5"]],
    [["lowpass", "1000"], ["highpass", "-2", "300"]],
    [["vol", "0.5"], ["remix", "2", "1"], ["pad", "0.1", "0.05"]],
    [["fade", "q", "0.1", "0", "0.1"], ["gain", "-3"], ["reverse"]],
    [
        ["equalizer", "1000", "1q", "6"],
        ["bass", "5"],
        ["treble", "-3"],
        ["compand", "0.3,1", "6:-70,-60,-20", "-5"],
    ],
]


def _wave(channels=2, n=16000):
    rng = np.random.default_rng(1)
    t = np.arange(n) / 16000
    x = 0.3 * np.sin(2 * np.pi * 440 * t)[None] + 0.05 * rng.standard_normal((channels, n))
    return x.astype(np.float32)


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: "+".join(e[0] for e in c))
def test_tensor_matches_torchaudio(ta_ref, chain):
    import torch

    x = _wave()
    ours, sr = ta.sox_effects.apply_effects_tensor(tc.from_numpy(x), 16000, chain)
    ref, ref_sr = ta_ref.sox_effects.apply_effects_tensor(torch.from_numpy(x), 16000, chain)
    assert sr == ref_sr
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=0, atol=1e-6)


def test_channels_last():
    x = _wave()
    a, _ = ta.sox_effects.apply_effects_tensor(tc.from_numpy(x), 16000, [["gain", "-6"]])
    b, _ = ta.sox_effects.apply_effects_tensor(
        tc.from_numpy(x.T.copy()), 16000, [["gain", "-6"]], channels_first=False
    )
    np.testing.assert_array_equal(a.numpy(), b.numpy().T)
    np.testing.assert_allclose(a.numpy(), x * 10 ** (-6 / 20), atol=1e-6)


@pytest.mark.parametrize("name", ["pcm_s16.wav", "s24.flac", "t.mp3"])
def test_file_matches_torchaudio(ta_ref, audio_dir, name):
    chain = [["rate", "8000"], ["gain", "-n", "-1"]]
    path = str(audio_dir[name])
    ours, sr = ta.sox_effects.apply_effects_file(path, chain)
    ref, ref_sr = ta_ref.sox_effects.apply_effects_file(path, chain)
    assert sr == ref_sr == 8000
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=0, atol=1e-6)
    from_bytes, _ = ta.sox_effects.apply_effects_file(audio_dir[name].read_bytes(), chain)
    np.testing.assert_array_equal(from_bytes.numpy(), ours.numpy())


def test_file_without_normalize(audio_dir):
    ours, _ = ta.sox_effects.apply_effects_file(audio_dir["pcm_s16.wav"], [], normalize=False)
    assert ours.dtype == tc.int16
    loaded, _ = ta.load(audio_dir["pcm_s16.wav"], normalize=False)
    np.testing.assert_array_equal(ours.numpy(), loaded.numpy())


def test_errors(audio_dir):
    x = tc.zeros(1, 100)
    with pytest.raises(ValueError, match="unsupported effect 'nosuch'"):
        ta.sox_effects.apply_effects_tensor(x, 8000, [["nosuch"]])
    with pytest.raises(ValueError, match="invalid arguments for effect 'gain'"):
        ta.sox_effects.apply_effects_tensor(x, 8000, [["gain", "abc"]])
    with pytest.raises(ValueError, match="'input'"):
        ta.sox_effects.apply_effects_tensor(x, 8000, [["input"]])
    with pytest.raises(ValueError, match="empty list"):
        ta.sox_effects.apply_effects_tensor(x, 8000, [[]])
    with pytest.raises(TypeError):
        ta.sox_effects.apply_effects_tensor(x, 8000, ["gain"])
    with pytest.raises(ValueError, match="2-d"):
        ta.sox_effects.apply_effects_tensor(tc.zeros(3), 8000, [])
    with pytest.raises(RuntimeError):
        ta.sox_effects.apply_effects_file(b"garbage bytes that are not audio", [])
    assert "reverb" in ta.sox_effects.effect_names()


def test_threads():
    x = tc.from_numpy(_wave())
    chain = [["reverb", "40"], ["rate", "11025"], ["tempo", "0.9"]]
    expected, _ = ta.sox_effects.apply_effects_tensor(x, 16000, chain)
    out, errors = [None] * 8, []

    def work(i):
        try:
            for _ in range(3):
                out[i] = ta.sox_effects.apply_effects_tensor(x, 16000, chain)[0].numpy()
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for o in out:
        np.testing.assert_array_equal(o, expected.numpy())
