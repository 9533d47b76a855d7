"""WaveRNN with --lpc-order (LPCNet's linear prediction from the mel): Levinson-Durbin against
a direct solve, the training excitation against a naive prediction, the prediction gain on
speech, and a run that trains, evaluates and rejects bad orders."""

import json

import numpy as np
import pytest

import pipeline_testing as pt
import tensorcore as tc
import tensorcore.audio as ta


def _task(root, tmp_path, *extra):
    from tensorcore.pipelines.common.cli import build_parser
    from tensorcore.pipelines.wavernn.task import WaveRNNTask

    args = build_parser(WaveRNNTask, "").parse_args(
        ["--data-root", str(root), "--output-dir", str(tmp_path), *extra]
    )
    return WaveRNNTask(args)


def test_levinson_solves_the_toeplitz_normal_equations():
    from tensorcore.pipelines.wavernn.lpc import levinson

    rng = np.random.default_rng(0)
    x = np.convolve(rng.standard_normal(4000), [1.0, -1.6, 0.9, -0.2], mode="same")
    order = 10
    r = np.array([np.dot(x[: len(x) - k], x[k:]) for k in range(order + 1)])
    a = levinson(np.stack([r, r * 2.0]))  # two frames, the second a scaled copy
    toeplitz = np.array([[r[abs(i - j)] for j in range(order)] for i in range(order)])
    direct = np.linalg.solve(toeplitz, -r[1:])
    np.testing.assert_allclose(a[0, 1:], direct, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a[1], a[0], rtol=1e-10)
    assert a[0, 0] == 1.0


def test_training_excitation_is_the_signal_minus_a_naive_prediction(libritts_root, tmp_path):
    task = _task(libritts_root, tmp_path, "--lpc-order", "8", "--preemphasis", "0.86")
    train, _ = task.datasets()
    wave = task._waveform(train, 0)
    mel = task.normalized_mel(wave)
    emphasized = task.emphasize(wave)
    hop, start, length = task.args.hop_length, 3 * task.args.hop_length + 17, 600
    e = task._excitation(mel, emphasized, start, length).numpy()

    s = emphasized.numpy().astype(np.float64)
    coefficients = task.lpc.coefficients(task.mel_power(mel.numpy()))
    naive = []
    for n in range(start, start + length):
        a = coefficients[min(int(np.rint(n / hop)), len(coefficients) - 1)]
        p = -sum(a[k] * s[n - k] for k in range(1, 9) if n - k >= 0)
        naive.append(np.clip(s[n] - p, -1.0, 1.0))
    np.testing.assert_allclose(e, naive, atol=1e-5)


def test_prediction_from_the_mel_whitens_speech(libritts_root, tmp_path):
    from tensorcore.pipelines.wavernn.lpc import prediction, synthesize

    task = _task(libritts_root, tmp_path, "--lpc-order", "16", "--preemphasis", "0.86")
    _, held_out = task.datasets()
    wave = task._waveform(held_out, 0)
    mel = task.normalized_mel(wave)
    s = task.emphasize(wave).numpy().astype(np.float64)
    filters = task.lpc.sample_filters(
        task.lpc.coefficients(task.mel_power(mel.numpy())), len(s), task.args.hop_length
    )
    e = s - prediction(s, filters)
    gain_db = 10 * np.log10(np.sum(s**2) / np.sum(e**2))
    # filters fitted to the recording itself reach about 15 dB; from the 80-bin mel it must
    # still take out most of the envelope, and never amplify (an unstable filter would)
    assert gain_db > 6.0, gain_db
    # the synthesis recursion undoes the prediction exactly (what generation relies on)
    rebuilt = np.zeros(len(s))
    for n in range(len(s)):
        past = rebuilt[max(0, n - 16) : n][::-1]
        rebuilt[n] = e[n] - np.dot(filters[n, 1 : 1 + len(past)], past)
    np.testing.assert_allclose(rebuilt, s, atol=1e-9)
    np.testing.assert_allclose(synthesize(e, filters), s, atol=1e-9)


@pytest.mark.parametrize(
    "loss,lpc_input,temperature",
    [("crossentropy", "waveform", 0.8), ("crossentropy", "excitation", 1.0),
     ("mol", "excitation", 1.0)],
)  # fmt: skip
def test_wavernn_with_linear_prediction_trains_and_generates(
    libritts_root, tmp_path, loss, lpc_input, temperature
):
    out = tmp_path / loss
    pt.run("wavernn", libritts_root, out, "--loss", loss, "--lpc-order", "16",
           "--lpc-input", lpc_input, "--temperature", temperature, "--preemphasis", "0.86",
           "--max-steps", 6)  # fmt: skip
    losses = [v for _, v in pt.load(out)["train"]["history"]["loss"]]
    assert min(losses[-2:]) < losses[0], losses
    config = json.loads((out / "config.json").read_text())
    assert config["lpc_order"] == 16 and config["lpc_input"] == lpc_input
    assert config["temperature"] == temperature
    final = json.loads((out / "metrics.json").read_text())["final"]
    assert final["mcd"] > 0 and np.isfinite(final["log_mel_l1"])
    # the generated example is finite audio in [-1, 1]
    example, _ = ta.load(str(out / "example_wavernn.wav"))
    assert example.shape[1] > 0 and float(example.abs().max()) <= 1.0


def test_bad_lpc_order_is_rejected(libritts_root, tmp_path):
    bad = pt.run("wavernn", libritts_root, tmp_path / "bad", "--lpc-order", "65", check=False)
    assert bad.returncode != 0 and "--lpc-order 65: must be in [0, 64]" in bad.stderr


def test_vocoder_bounds_rebuilds_from_damaged_excitations(libritts_root, tmp_path):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[3] / "scripts" / "vocoder_bounds.py"
    spec = importlib.util.spec_from_file_location("vocoder_bounds", path)
    bounds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bounds)
    task = _task(libritts_root, tmp_path, "--lpc-order", "16", "--preemphasis", "0.86")
    _, held_out = task.datasets()
    mel, wave = task.load_eval_item(held_out, 0, np.random.default_rng(0))
    s = task.emphasize(wave).numpy().astype(np.float64)
    rebuilt = bounds.excitation_losses(task, mel.numpy(), s, np.random.default_rng(0))

    def snr_db(x):
        return 10 * np.log10(np.sum(s**2) / np.sum((x - s) ** 2))

    # 8-bit levels of the excitation cost little; more spread costs more; white noise keeps
    # only the loudness, so it is no closer to the waveform than silence would be
    snrs = [snr_db(rebuilt[name]) for name in rebuilt]
    assert snrs[0] > 20.0, snrs
    assert snrs[:5] == sorted(snrs[:5], reverse=True), snrs
    assert snrs[-1] < 3.0, snrs


def test_stepwise_sampling_at_temperature_one_draws_as_the_native_loop(libritts_root, tmp_path):
    # --temperature routes generation through the Python loop; at T = 1 it must draw exactly the
    # levels WaveRNN.infer draws from the same generator state
    task = _task(libritts_root, tmp_path, "--n-rnn", "32", "--n-fc", "32", "--n-res-block", "1",
                 "--n-hidden-resblock", "16", "--n-output-melresnet", "16")  # fmt: skip
    tc.manual_seed(3)
    model = task.build_model().eval()
    _, held_out = task.datasets()
    mel, _ = task.load_eval_item(held_out, 0, np.random.default_rng(0))
    mels = mel[:, :8].unsqueeze(0)
    with tc.no_grad():
        tc.manual_seed(7)
        native = model.infer(mels, mulaw=True)[0][0, 0].numpy()
        tc.manual_seed(7)
        stepwise = task._generate_stepwise(model, mels)[0].numpy()
    assert native.shape == stepwise.shape == (8 * task.args.hop_length,)
    np.testing.assert_allclose(stepwise, native, atol=1e-6)


def test_temperature_is_checked(libritts_root, tmp_path):
    bad = pt.run("wavernn", libritts_root, tmp_path / "t0", "--temperature", "0", check=False)
    assert bad.returncode != 0 and "--temperature 0.0: must be > 0" in bad.stderr
    mol = pt.run("wavernn", libritts_root, tmp_path / "mol", "--loss", "mol", "--temperature",
                 "0.8", check=False)  # fmt: skip
    assert mol.returncode != 0 and "applies to --loss crossentropy" in mol.stderr
