"""YESNO, SPEECHCOMMANDS, LJSPEECH and VCTK_092 on tiny corpora laid out as the real ones."""

import os

import numpy as np
import pytest
from datasets_testing import assert_same_items

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore.audio.datasets import LJSPEECH, SPEECHCOMMANDS, VCTK_092, YESNO


def _tone(path, sr, seconds, freq, fmt=None):
    t = np.arange(int(sr * seconds)) / sr
    x = (0.3 * np.sin(2 * np.pi * freq * t) * 32767).astype(np.int16)[None]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ta.save(path, tc.from_numpy(x), sr, format=fmt)


@pytest.fixture
def yesno_root(tmp_path):
    for k, name in enumerate(["0_0_1_0_1_1_0_1", "1_1_1_0_0_0_1_0", "0_1_0_1_0_1_0_1"]):
        _tone(str(tmp_path / "waves_yesno" / f"{name}.wav"), 8000, 0.5, 200 + 50 * k)
    return str(tmp_path)


def test_yesno(yesno_root):
    ds = YESNO(yesno_root)
    wave, sr, labels = ds[0]
    assert sr == 8000 and labels == [0, 0, 1, 0, 1, 1, 0, 1] and wave.shape == (1, 4000)
    assert ds.get_metadata(2) == ("1_1_1_0_0_0_1_0.wav", 8000, [1, 1, 1, 0, 0, 0, 1, 0])
    torchaudio = pytest.importorskip("torchaudio")
    assert_same_items(ds, torchaudio.datasets.YESNO(yesno_root))


@pytest.fixture
def commands_root(tmp_path):
    base = tmp_path / "SpeechCommands" / "speech_commands_v0.02"
    files = [
        ("yes", "aa11_nohash_0"),
        ("yes", "bb22_nohash_1"),
        ("no", "aa11_nohash_0"),
        ("no", "cc33_nohash_0"),
        ("up", "dd44_nohash_2"),
    ]
    for k, (label, stem) in enumerate(files):
        _tone(str(base / label / f"{stem}.wav"), 16000, 0.25, 300 + 40 * k)
    _tone(str(base / "_background_noise_" / "white_noise.wav"), 16000, 0.25, 50)
    (base / "validation_list.txt").write_text("no/cc33_nohash_0.wav\n")
    (base / "testing_list.txt").write_text("up/dd44_nohash_2.wav\nyes/bb22_nohash_1.wav\n")
    return str(tmp_path)


def test_speechcommands(commands_root):
    torchaudio = pytest.importorskip("torchaudio")
    for subset in (None, "training", "validation", "testing"):
        ours = SPEECHCOMMANDS(commands_root, subset=subset)
        ref = torchaudio.datasets.SPEECHCOMMANDS(commands_root, subset=subset)
        assert_same_items(ours, ref)
        assert [ours.get_metadata(i) for i in range(len(ours))] == [
            ref.get_metadata(i) for i in range(len(ref))
        ]
    assert len(SPEECHCOMMANDS(commands_root)) == 5
    assert len(SPEECHCOMMANDS(commands_root, subset="training")) == 2
    with pytest.raises(ValueError, match="subset"):
        SPEECHCOMMANDS(commands_root, subset="train")


def test_speechcommands_malformed_list(commands_root):
    path = os.path.join(
        commands_root, "SpeechCommands", "speech_commands_v0.02", "testing_list.txt"
    )
    with open(path, "w") as f:
        f.write("up/dd44_nohash_2.wav\nbroken-line\n")
    with pytest.raises(ValueError, match=rf"{path}:2: malformed list line"):
        SPEECHCOMMANDS(commands_root, subset="testing")


@pytest.fixture
def ljspeech_root(tmp_path):
    base = tmp_path / "LJSpeech-1.1"
    rows = [
        "LJ001-0001|Printing, in 1 sense.|Printing, in one sense.",
        "LJ001-0002|in being comparatively modern.|in being comparatively modern.",
    ]
    for k, row in enumerate(rows):
        _tone(str(base / "wavs" / (row.split("|")[0] + ".wav")), 22050, 0.3, 250 + 30 * k)
    (base / "metadata.csv").write_text("\n".join(rows) + "\n")
    return str(tmp_path)


def test_ljspeech(ljspeech_root):
    ds = LJSPEECH(ljspeech_root)
    assert ds[0][1:] == (22050, "Printing, in 1 sense.", "Printing, in one sense.")
    assert ds.get_metadata(1)[0] == os.path.join("wavs", "LJ001-0002.wav")
    torchaudio = pytest.importorskip("torchaudio")
    assert_same_items(ds, torchaudio.datasets.LJSPEECH(ljspeech_root))


def test_ljspeech_malformed_line(ljspeech_root):
    path = os.path.join(ljspeech_root, "LJSpeech-1.1", "metadata.csv")
    with open(path, "a") as f:
        f.write("LJ001-0003|only two fields\n")
    with pytest.raises(ValueError, match=rf"{path}:3: malformed metadata line"):
        LJSPEECH(ljspeech_root)
    with pytest.raises(RuntimeError, match="dataset not found"):
        LJSPEECH(os.path.join(ljspeech_root, "nowhere"))


@pytest.fixture
def vctk_root(tmp_path):
    base = tmp_path / "VCTK-Corpus-0.92"
    for spk, utts in (("p225", ["001", "002"]), ("p226", ["001"]), ("p280", ["001"])):
        for k, utt in enumerate(utts):
            os.makedirs(base / "txt" / spk, exist_ok=True)
            (base / "txt" / spk / f"{spk}_{utt}.txt").write_text(f"Please call Stella {k}.\n")
            for mic in ("mic1", "mic2"):
                _tone(
                    str(base / "wav48_silence_trimmed" / spk / f"{spk}_{utt}_{mic}.flac"),
                    48000,
                    0.2,
                    220 + 20 * k + (mic == "mic2") * 7,
                )
    return str(tmp_path)


def test_vctk(vctk_root):
    torchaudio = pytest.importorskip("torchaudio")
    for mic in ("mic1", "mic2"):
        ours, ref = (
            VCTK_092(vctk_root, mic_id=mic),
            torchaudio.datasets.VCTK_092(vctk_root, mic_id=mic),
        )
        assert_same_items(ours, ref)
    assert len(VCTK_092(vctk_root, mic_id="mic2")) == 3  # p280 has no mic2 recordings
    assert VCTK_092(vctk_root).get_metadata(0)[1:] == (
        48000,
        "Please call Stella 0.\n",
        "p225",
        "001",
    )
    with pytest.raises(RuntimeError, match="mic_id"):
        VCTK_092(vctk_root, mic_id="mic3")
