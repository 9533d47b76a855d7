"""The ConvTasNet pipeline end to end on tiny generated LibriMix: the loss falls, kill-and-resume
equals an uninterrupted run bit for bit, held-out SI-SNRi/SDRi are reported."""

import json

import pipeline_testing as pt


def test_convtasnet_trains_and_resumes_bit_exactly(librimix_root, tmp_path):
    pt.check_pipeline("convtasnet", librimix_root, tmp_path, steps=8)
    metrics = json.loads((tmp_path / "straight" / "metrics.json").read_text())["final"]
    for name in ("si_snr", "si_snri", "sdr", "sdri"):
        assert name in metrics, name
