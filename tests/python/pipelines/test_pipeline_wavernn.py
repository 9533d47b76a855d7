"""The WaveRNN pipeline end to end on tiny generated LibriTTS: the loss falls, kill-and-resume
equals an uninterrupted run bit for bit, and the held-out metrics include the Griffin-Lim
baseline's."""

import json
import math

import numpy as np
import pytest

import pipeline_testing as pt
import tensorcore as tc


def test_wavernn_trains_and_resumes_bit_exactly(libritts_root, tmp_path):
    pt.check_pipeline("wavernn", libritts_root, tmp_path, steps=8)
    metrics = json.loads((tmp_path / "straight" / "metrics.json").read_text())["final"]
    for name in ("log_mel_l1", "mcd", "gl_log_mel_l1", "gl_mcd"):
        assert metrics[name] > 0, name
    # Griffin-Lim rebuilds the mel it was given, so its loudness follows the recording's
    assert -1.0 <= metrics["loudness_corr"] <= 1.0 and metrics["gl_loudness_corr"] > 0.5
    assert (tmp_path / "straight" / "example_wavernn.wav").exists()


def test_wavernn_mixture_of_logistics_loss_trains(libritts_root, tmp_path):
    out = tmp_path / "mol"
    pt.run("wavernn", libritts_root, out, "--loss", "mol", "--max-steps", 6)
    ckpt = pt.load(out)
    losses = [v for _, v in ckpt["train"]["history"]["loss"]]
    assert min(losses[-2:]) < losses[0], losses
    assert ckpt["model"]["fc3.weight"].shape[0] == 30
    metrics = json.loads((out / "metrics.json").read_text())["final"]
    assert metrics["log_mel_l1"] > 0


def test_wavernn_input_noise_trains_and_is_checked(libritts_root, tmp_path):
    out = tmp_path / "noise"
    pt.run("wavernn", libritts_root, out, "--input-noise", "0.02", "--max-steps", 4,
           "--no-final-eval")  # fmt: skip
    losses = [v for _, v in pt.load(out)["train"]["history"]["loss"]]
    assert len(losses) == 4 and all(v == v for v in losses), losses
    assert json.loads((out / "config.json").read_text())["input_noise"] == 0.02
    # the same seed without noise trains on other inputs: a different first loss
    plain = tmp_path / "plain"
    pt.run("wavernn", libritts_root, plain, "--max-steps", 1, "--no-final-eval")
    assert pt.load(plain)["train"]["history"]["loss"][0][1] != losses[0]
    bad = pt.run("wavernn", libritts_root, tmp_path / "bad", "--input-noise", "-1", check=False)
    assert bad.returncode != 0 and "--input-noise -1.0: must be >= 0" in bad.stderr


def _naive_mol_nll(out, target, num_classes, num_mixtures=10, log_scale_min=math.log(1e-14)):
    """The discretized logistic mixture's likelihood, one sample at a time in float64."""
    total = 0.0
    half_bin = 1.0 / (num_classes - 1)
    sigmoid = lambda v: 1.0 / (1.0 + math.exp(-v))  # noqa: E731
    for row, y in zip(out.reshape(-1, 3 * num_mixtures), target.reshape(-1)):
        logits = row[:num_mixtures] - row[:num_mixtures].max()
        weights = np.exp(logits) / np.exp(logits).sum()
        p = 0.0
        for w, mean, log_scale in zip(weights, row[num_mixtures:20], row[20:30]):
            s = math.exp(max(log_scale, log_scale_min))
            upper = 1.0 if y > 0.999 else sigmoid((y - mean + half_bin) / s)
            lower = 0.0 if y < -0.999 else sigmoid((y - mean - half_bin) / s)
            p += w * (upper - lower)
        total -= math.log(p)
    return total / target.size


def test_mixture_of_logistics_loss_matches_a_naive_likelihood():
    from tensorcore.pipelines.wavernn.mol import mol_loss

    rng = np.random.default_rng(0)
    out = rng.normal(size=(2, 7, 30))
    out[..., 20:] = rng.uniform(-4, 0, size=(2, 7, 10))  # scales wide enough for no underflow
    target = rng.uniform(-1, 1, size=(2, 7))
    target[0, :2] = [-1.0, 1.0]  # the edge bins take the whole tail
    ours = float(
        mol_loss(
            tc.as_tensor(out.astype(np.float32)),
            tc.as_tensor(target.astype(np.float32)),
            num_classes=256,
        )
    )
    assert ours == pytest.approx(_naive_mol_nll(out, target, 256), rel=1e-4)


def test_preemphasis_round_trips_and_stays_in_range(libritts_root, tmp_path):
    from tensorcore.pipelines.common.cli import build_parser
    from tensorcore.pipelines.wavernn.task import WaveRNNTask

    args = build_parser(WaveRNNTask, "").parse_args(
        ["--data-root", str(libritts_root), "--output-dir", str(tmp_path), "--preemphasis", "0.86"]
    )
    task = WaveRNNTask(args)
    x = np.random.default_rng(1).uniform(-1, 1, 4000).astype(np.float32)
    emphasized = task.emphasize(tc.as_tensor(x)).numpy()
    naive = np.array([x[n] - 0.86 * (x[n - 1] if n else 0.0) for n in range(len(x))]) / 1.86
    np.testing.assert_allclose(emphasized, naive, atol=1e-6)
    assert np.abs(emphasized).max() <= 1.0
    restored = task.deemphasize(tc.as_tensor(emphasized).unsqueeze(0))[0].numpy()
    np.testing.assert_allclose(restored, x, atol=1e-5)


def test_preemphasis_with_continuous_mol_trains_and_is_checked(libritts_root, tmp_path):
    out = tmp_path / "emph"
    pt.run("wavernn", libritts_root, out, "--loss", "mol", "--preemphasis", "0.86",
           "--max-steps", 6)  # fmt: skip
    losses = [v for _, v in pt.load(out)["train"]["history"]["loss"]]
    assert min(losses[-2:]) < losses[0], losses
    config = json.loads((out / "config.json").read_text())
    # mol defaults to the continuous, linear waveform (torchaudio's example), resolved in the config
    assert config["preemphasis"] == 0.86 and config["mulaw"] is False
    assert json.loads((out / "metrics.json").read_text())["final"]["mcd"] > 0
    bad = pt.run("wavernn", libritts_root, tmp_path / "bad", "--preemphasis", "1", check=False)
    assert bad.returncode != 0 and "--preemphasis 1.0: must be in [0, 1)" in bad.stderr
