"""The WaveRNN pipeline end to end on tiny generated LibriTTS: the loss falls, kill-and-resume
equals an uninterrupted run bit for bit, and the held-out metrics include the Griffin-Lim
baseline's."""

import json

import pipeline_testing as pt


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
