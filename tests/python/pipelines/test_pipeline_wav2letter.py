"""The wav2letter pipeline end to end on tiny generated LibriSpeech: the loss falls, a run
stopped, resumed, SIGKILLed and resumed again equals an uninterrupted one bit for bit, and the
final metrics hold greedy, beam and lexicon CER/WER."""

import json

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
