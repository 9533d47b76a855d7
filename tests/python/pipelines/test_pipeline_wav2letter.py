"""The wav2letter pipeline end to end on tiny generated LibriSpeech: the loss falls, a run
stopped, resumed, SIGKILLed and resumed again equals an uninterrupted one bit for bit, and the
final metrics hold greedy, beam and lexicon CER/WER."""

import json

import tensorcore as tc

import pipeline_testing as pt


def test_wav2letter_trains_and_resumes_bit_exactly(librispeech_root, tmp_path):
    proc = pt.check_pipeline("wav2letter", librispeech_root, tmp_path, steps=10)
    metrics = json.loads((tmp_path / "straight" / "metrics.json").read_text())["final"]
    for name in ("cer", "wer", "beam_cer", "beam_wer", "lexicon_cer", "lexicon_wer", "loss"):
        assert name in metrics and metrics[name] >= 0, name
    assert "cer=" in proc.stdout
    config = json.loads((tmp_path / "straight" / "config.json").read_text())
    assert config["pipeline"] == "wav2letter" and config["features"] == "mfcc"
    assert config["model_config"]["num_classes"] == 29


def test_wav2letter_on_raw_waveforms(librispeech_root, tmp_path):
    pt.run("wav2letter", librispeech_root, tmp_path, "--features", "waveform", "--max-steps", 2,
           "--no-final-eval")  # fmt: skip
    ckpt = pt.load(tmp_path)
    assert ckpt["model_config"]["features"] == "waveform"
    assert ckpt["model"]["acoustic_model.0.0.weight"].shape == (16, 1, 250)  # the front end


def test_final_relu_and_kaiming_init_options(librispeech_root, tmp_path):
    import math

    from tensorcore import nn
    from tensorcore.pipelines.wav2letter.task import build_wav2letter

    # torchaudio's module (final ReLU) by default; without it the class scores may go negative.
    assert isinstance(list(build_wav2letter(29, "mfcc", 13, 32, 64).modules())[-1], nn.ReLU)
    plain = build_wav2letter(29, "mfcc", 13, 32, 64, final_relu=False)
    assert isinstance(list(plain.modules())[-1], nn.Conv1d)
    x = tc.randn(2, 13, 120)
    assert float(plain(x).exp().sum(1).sub(1).abs().max()) < 1e-5  # still log-probabilities

    pt.run("wav2letter", librispeech_root, tmp_path, "--no-final-relu", "--init", "kaiming",
           "--max-steps", 1, "--no-final-eval", "--learning-rate", "1e-9")  # fmt: skip
    ckpt = pt.load(tmp_path)
    assert ckpt["model_config"]["final_relu"] is False
    weights = [v for k, v in ckpt["model"].items() if k.endswith(".weight")]
    assert len(weights) == 11
    for w in weights[:-1]:  # He-normal: std sqrt(2 / fan_in), within sampling error
        fan_in = w.shape[1] * w.shape[2]
        assert abs(float(w.std()) / math.sqrt(2 / fan_in) - 1) < 0.15, tuple(w.shape)
    biases = [v for k, v in ckpt["model"].items() if k.endswith(".bias")]
    assert all(float(b.abs().max()) < 1e-6 for b in biases[:-1])  # zeros, one tiny step on


def test_n_mels_sets_the_bands_apart_from_the_coefficients(librispeech_root, tmp_path):
    import argparse

    import tensorcore.audio as ta
    from tensorcore.pipelines.wav2letter.task import Wav2LetterTask

    parser = argparse.ArgumentParser()
    Wav2LetterTask.add_arguments(parser)
    task = Wav2LetterTask(parser.parse_args(["--n-bins", "13", "--n-mels", "40"]))
    wave = tc.randn(1, 8000)
    mfcc = ta.transforms.MFCC(16000, n_mfcc=13,
                              melkwargs={"n_fft": 400, "n_mels": 40, "hop_length": 160})  # fmt: skip
    feats = mfcc(wave)[0]
    want = (feats - feats.mean(1, keepdim=True)) / (feats.std(1, keepdim=True) + 1e-5)
    assert tc.allclose(task._features(wave), want, atol=1e-5)
    assert task.model_config()["n_mels"] == 40

    proc = pt.run("wav2letter", librispeech_root, tmp_path, "--n-bins", 20, "--n-mels", 16,
                  "--max-steps", 1, check=False)  # fmt: skip
    assert proc.returncode != 0 and "--n-mels (16)" in proc.stderr, proc.stderr


def test_amp_log_probabilities_stay_float32(librispeech_root, tmp_path):
    from tensorcore.pipelines.wav2letter.task import build_wav2letter, float32_log_softmax

    model = build_wav2letter(29, "mfcc", 13, 32, 64, final_relu=False)
    x = tc.randn(2, 13, 120)
    with tc.autocast("cpu", dtype=tc.bfloat16):
        plain = model(x)  # torch 1.13's CPU autocast leaves log_softmax in bfloat16
        scores = model.acoustic_model(x)
        widened = float32_log_softmax(model)(x)
    assert plain.dtype == tc.bfloat16 and widened.dtype == tc.float32
    want = tc.nn.functional.log_softmax(scores.float(), dim=1)
    assert float((widened - want).abs().max()) == 0.0
    assert float(widened.exp().sum(1).sub(1).abs().max()) < 1e-5
    # the pipeline's --amp run trains on them
    pt.run("wav2letter", librispeech_root, tmp_path, "--amp", "--max-steps", 3, "--no-final-eval")
    losses = [v for _, v in pt.load(tmp_path)["train"]["history"]["loss"]]
    assert all(v == v for v in losses) and len(losses) == 3, losses
