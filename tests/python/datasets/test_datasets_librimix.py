import csv
import os

import numpy as np
import pytest

from tensorcore.audio.datasets import LibriMix

TASKS = ["sep_clean", "sep_noisy", "enh_single", "enh_both"]


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x.astype(np.float64)))))


def test_layout_and_metadata(librimix_root):
    root = os.path.join(librimix_root, "Libri2Mix")
    for sr in ("wav8k", "wav16k"):
        for mode in ("min", "max"):
            for subset in ("train-100", "dev", "test"):
                folder = os.path.join(root, sr, mode, subset)
                names = sorted(os.listdir(os.path.join(folder, "mix_clean")))
                assert names
                for kind in ("s1", "s2", "noise", "mix_both", "mix_single"):
                    assert sorted(os.listdir(os.path.join(folder, kind))) == names
                with open(
                    os.path.join(root, sr, mode, "metadata", f"mixture_{subset}_mix_both.csv")
                ) as f:
                    rows = list(csv.DictReader(f))
                assert sorted(r["mixture_ID"] + ".wav" for r in rows) == names
                assert all(os.path.isfile(r["noise_path"]) for r in rows)


def test_mixtures_are_sums_of_sources_within_the_snr_range(librimix_root):
    for task in TASKS:
        for mode in ("min", "max"):
            ds = LibriMix(librimix_root, "dev", sample_rate=16000, task=task, mode=mode)
            assert len(ds) >= 1
            sr, mix, sources = ds[0]
            assert sr == 16000
            if task == "sep_clean":
                total = sum(s.numpy() for s in sources)
                np.testing.assert_allclose(mix.numpy(), total, atol=2.5 / 32768)
    with open(os.path.join(librimix_root, "Libri2Mix", "metadata", "libri2mix_train-100.csv")) as f:
        for row in csv.DictReader(f):
            assert 5.0 <= float(row["noise_snr_db"]) <= 10.0
    ds = LibriMix(librimix_root, "train-100", sample_rate=16000, task="sep_clean", mode="max")
    for i in range(len(ds)):
        _, _, (s1, s2) = ds[i]
        # sources differ in length: the ratio over the common part is the drawn SNR (-3..3 dB)
        n = min(np.flatnonzero(s1.numpy()[0]).max(), np.flatnonzero(s2.numpy()[0]).max())
        snr = 20 * np.log10(_rms(s1.numpy()[0][:n]) / _rms(s2.numpy()[0][:n]))
        assert -6 < snr < 6


def test_same_items_as_torchaudio(librimix_root):
    torchaudio = pytest.importorskip("torchaudio")
    for sr in (8000, 16000):
        for mode in ("min", "max"):
            for task in TASKS:
                ours = LibriMix(librimix_root, "test", sample_rate=sr, task=task, mode=mode)
                ref = torchaudio.datasets.LibriMix(
                    librimix_root, "test", sample_rate=sr, task=task, mode=mode
                )
                assert len(ours) == len(ref)
                for i in range(len(ours)):
                    a, b = ours[i], ref[i]
                    assert a[0] == b[0] and len(a[2]) == len(b[2])
                    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
                    for x, y in zip(a[2], b[2]):
                        np.testing.assert_array_equal(x.numpy(), y.numpy())
                    assert ours.get_metadata(i) == ref.get_metadata(i)


def test_bad_arguments(librimix_root):
    with pytest.raises(ValueError, match="mode"):
        LibriMix(librimix_root, "dev", mode="mean")
    with pytest.raises(ValueError, match="sample rate"):
        LibriMix(librimix_root, "dev", sample_rate=22050)
    with pytest.raises(RuntimeError, match="train-360"):
        LibriMix(librimix_root, "train-360")
