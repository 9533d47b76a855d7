import os

import pytest
from datasets_testing import assert_same_items

from tensorcore.audio.datasets import LIBRITTS


def test_layout_text_files_and_rate(libritts_root):
    ds = LIBRITTS(libritts_root, "train-clean-100")
    assert len(ds) >= 2
    for i in range(len(ds)):
        path, sr, original, normalized, spk, chap, utt = ds.get_metadata(i)
        assert sr == 24000
        assert utt.startswith(f"{spk}_{chap}_") and len(utt.split("_")) == 4
        base = os.path.join(libritts_root, "LibriTTS", path)[: -len(".wav")]
        assert open(base + ".original.txt").read() == original
        assert open(base + ".normalized.txt").read() == normalized
        assert not any(c.isdigit() for c in normalized)
    wave, sr = ds[0][:2]
    assert sr == 24000 and wave.shape[0] == 1 and ds.num_frames(0) == wave.shape[1]
    trans = os.path.join(
        libritts_root,
        "LibriTTS",
        "train-clean-100",
        str(ds[0][4]),
        str(ds[0][5]),
        f"{ds[0][4]}_{ds[0][5]}.trans.tsv",
    )
    assert len(open(trans).read().splitlines()[0].split("\t")) == 3


def test_splits_have_disjoint_speakers(libritts_root):
    train = LIBRITTS(libritts_root, "train-clean-100")
    dev = LIBRITTS(libritts_root, "dev-clean")
    assert not {train.get_metadata(i)[4] for i in range(len(train))} & {
        dev.get_metadata(i)[4] for i in range(len(dev))
    }


def test_same_items_as_torchaudio(libritts_root):
    torchaudio = pytest.importorskip("torchaudio")
    for split in ("train-clean-100", "dev-clean"):
        ours = LIBRITTS(libritts_root, split)
        ref = torchaudio.datasets.LIBRITTS(libritts_root, split)
        assert_same_items(ours, ref)


def test_numbers_are_spelled_out_in_normalized_text():
    from tensorcore.datasets import _text

    assert (
        _text.normalized("Mr. Darcy paid 10,000 pounds in 1811.")
        == "Mister Darcy paid ten thousand pounds in eighteen eleven."
    )
    assert (
        _text.librispeech_transcript("Mrs. Bennet's 2 daughters--at once!")
        == "MISSUS BENNET'S TWO DAUGHTERS AT ONCE"
    )


def test_missing_text_file_is_named(libritts_root, tmp_path):
    import shutil

    shutil.copytree(os.path.join(libritts_root, "LibriTTS"), tmp_path / "LibriTTS")
    ds = LIBRITTS(str(tmp_path), "dev-clean")
    base = os.path.join(str(tmp_path), "LibriTTS", ds.get_metadata(0)[0])[: -len(".wav")]
    os.remove(base + ".normalized.txt")
    with pytest.raises(FileNotFoundError, match=base + ".normalized.txt"):
        ds[0]
    with pytest.raises(RuntimeError, match="dataset not found"):
        LIBRITTS(str(tmp_path), "test-clean")
