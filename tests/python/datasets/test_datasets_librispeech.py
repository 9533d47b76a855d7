import os
import shutil

import pytest
from datasets_testing import assert_same_items

from tensorcore.audio.datasets import LIBRISPEECH

SPLITS = ["train-clean-100", "dev-clean", "test-clean"]


def _copy(src, dst):
    shutil.copytree(os.path.join(src, "LibriSpeech"), os.path.join(dst, "LibriSpeech"))
    return str(dst)


def test_layout_and_splits(librispeech_root):
    root = os.path.join(librispeech_root, "LibriSpeech")
    for name in ("SPEAKERS.TXT", "CHAPTERS.TXT", "BOOKS.TXT"):
        assert os.path.isfile(os.path.join(root, name))
    speakers = {}
    for split in SPLITS:
        ds = LIBRISPEECH(librispeech_root, split)
        assert len(ds) >= 2
        speakers[split] = {ds.get_metadata(i)[3] for i in range(len(ds))}
        assert len(speakers[split]) >= 2
        for i in range(len(ds)):
            path, sr, text, spk, chap, utt = ds.get_metadata(i)
            assert path == os.path.join(split, str(spk), str(chap), f"{spk}-{chap}-{utt:04d}.flac")
            assert sr == 16000 and text == text.upper() and len(text.split()) >= 3
            assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ' ")
    # speaker-disjoint splits
    assert not speakers["train-clean-100"] & speakers["dev-clean"]
    assert not speakers["train-clean-100"] & speakers["test-clean"]
    assert not speakers["dev-clean"] & speakers["test-clean"]


def test_vocabulary_covers_every_transcript(librispeech_root):
    with open(os.path.join(librispeech_root, "librispeech-vocab.txt")) as f:
        vocabulary = f.read().split("\n")[:-1]
    assert vocabulary == sorted(set(vocabulary)) and len(vocabulary) > 1000
    for split in SPLITS:
        ds = LIBRISPEECH(librispeech_root, split)
        words = {w for i in range(len(ds)) for w in ds.get_metadata(i)[2].split()}
        assert words <= set(vocabulary), sorted(words - set(vocabulary))[:5]


def test_items_decode_lazily_and_match_metadata(librispeech_root):
    ds = LIBRISPEECH(librispeech_root, "dev-clean")
    wave, sr, text, spk, chap, utt = ds[0]
    assert wave.dtype.__str__().endswith("float32") and wave.shape[0] == 1
    assert ds.num_frames(0) == wave.shape[1]
    seconds = wave.shape[1] / sr
    assert 1.0 < seconds < 20.0
    assert float(wave.abs().max()) > 0.1  # speech, not silence
    assert ds[-1][5] == ds.get_metadata(len(ds) - 1)[5]
    with pytest.raises(IndexError):
        ds[len(ds)]


def test_same_items_as_torchaudio(librispeech_root):
    torchaudio = pytest.importorskip("torchaudio")
    for split in SPLITS:
        ours = LIBRISPEECH(librispeech_root, split)
        ref = torchaudio.datasets.LIBRISPEECH(librispeech_root, split)
        assert_same_items(ours, ref, metadata=True)


def test_generation_is_deterministic(gen, digest, tmp_path):
    args = [
        "librispeech",
        "--hours",
        0.003,
        "--splits",
        "dev-clean,test-clean",
        "--jobs",
        1,
        "--max-seconds",
        5,
    ]
    gen(*args, "--out", tmp_path / "a", "--seed", 1)
    gen(*(args[:-2] + ["--jobs", 2, "--max-seconds", 5]), "--out", tmp_path / "b", "--seed", 1)
    gen(*args, "--out", tmp_path / "c", "--seed", 2)
    a, b, c = (digest(tmp_path / d) for d in "abc")
    assert a == b  # same seed, different worker count: identical bytes
    assert a != c


def test_hours_sets_the_size(gen, tmp_path):
    gen(
        "librispeech",
        "--out",
        tmp_path,
        "--seed",
        4,
        "--hours",
        0.01,
        "--splits",
        "train-clean-100",
        "--max-seconds",
        6,
    )
    ds = LIBRISPEECH(str(tmp_path), "train-clean-100")
    seconds = sum(ds.num_frames(i) for i in range(len(ds))) / 16000
    assert 0.6 * 36 < seconds < 1.6 * 36, seconds


def test_train_speakers_sets_the_training_voice_count(gen, tmp_path):
    gen("librispeech", "--out", tmp_path, "--seed", 5, "--hours", 0.008, "--max-seconds", 4,
        "--splits", "train-clean-100,dev-clean", "--speakers-per-split", 2,
        "--train-speakers", 5)  # fmt: skip
    root = os.path.join(tmp_path, "LibriSpeech")
    voices = {s: set(os.listdir(os.path.join(root, s))) for s in ["train-clean-100", "dev-clean"]}
    assert {s: len(v) for s, v in voices.items()} == {"train-clean-100": 5, "dev-clean": 2}
    assert not voices["train-clean-100"] & voices["dev-clean"]
    with pytest.raises(SystemExit):
        gen("librispeech", "--out", tmp_path / "x", "--train-speakers", 0)


def test_missing_root_and_split(librispeech_root, tmp_path):
    with pytest.raises(RuntimeError, match="not found at .*nowhere"):
        LIBRISPEECH(str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError, match="test-other"):
        LIBRISPEECH(librispeech_root, "test-other")
    with pytest.raises(ValueError, match="Invalid url 'train-clean-7'"):
        LIBRISPEECH(librispeech_root, "train-clean-7")


def test_malformed_transcript_line_names_file_and_line(librispeech_root, tmp_path):
    root = _copy(librispeech_root, tmp_path)
    ds = LIBRISPEECH(root, "dev-clean")
    _, _, _, spk, chap, _ = ds.get_metadata(0)
    trans = os.path.join(
        root, "LibriSpeech", "dev-clean", str(spk), str(chap), f"{spk}-{chap}.trans.txt"
    )
    with open(trans) as f:
        lines = f.read().splitlines()
    lines.insert(1, "THIS LINE HAS NO ID")
    with open(trans, "w") as f:
        f.write("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"{trans}:2: malformed transcript line"):
        LIBRISPEECH(root, "dev-clean").get_metadata(0)
    with open(trans, "w") as f:
        f.write(lines[0] + "\n" + "12-34\n")
    with pytest.raises(ValueError, match=rf"{trans}:2: malformed transcript line"):
        LIBRISPEECH(root, "dev-clean")[0]
    with open(trans, "w") as f:
        f.write("\n")
    with pytest.raises(FileNotFoundError, match=rf"{trans}: no transcript line for utterance"):
        LIBRISPEECH(root, "dev-clean")[0]
    os.remove(trans)
    with pytest.raises(FileNotFoundError, match="trans.txt does not exist"):
        LIBRISPEECH(root, "dev-clean")[0]


def test_truncated_and_unreadable_audio_names_the_file(librispeech_root, tmp_path):
    root = _copy(librispeech_root, tmp_path)
    ds = LIBRISPEECH(root, "test-clean")
    path = os.path.join(root, "LibriSpeech", ds.get_metadata(0)[0])
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 3])
    with pytest.raises(RuntimeError, match=rf"cannot decode audio file {path}.*truncated"):
        ds[0]
    with open(path, "wb") as f:
        f.write(b"this is not a flac file at all" * 10)
    with pytest.raises(RuntimeError, match=rf"cannot decode audio file {path}"):
        ds[0]
    os.remove(path)
    with pytest.raises(FileNotFoundError, match=path):
        ds[0]


def test_dataloader_with_workers(librispeech_root):
    from tensorcore.utils.data import DataLoader

    ds = LIBRISPEECH(librispeech_root, "train-clean-100")
    loader = DataLoader(ds, batch_size=1, num_workers=2, collate_fn=lambda b: b[0])
    ids = sorted(item[5] + 10000 * item[4] for item in loader)
    assert ids == sorted(
        ds.get_metadata(i)[5] + 10000 * ds.get_metadata(i)[4] for i in range(len(ds))
    )


def test_custom_text_and_bad_arguments(gen, tmp_path):
    book = tmp_path / "book.txt"
    book.write_text(
        "A Short Book\n\nChapter 1\n\nThe quick brown fox jumps over the lazy dog. "
        "It was the best of times, it was the worst of times.\n\nChapter 2\n\n"
        "Call me Ishmael, said the sailor to the crowd on the quay.\n"
    )
    gen(
        "librispeech",
        "--out",
        tmp_path / "o",
        "--seed",
        0,
        "--hours",
        0.002,
        "--splits",
        "dev-clean",
        "--text",
        book,
        "--max-seconds",
        4,
    )
    ds = LIBRISPEECH(str(tmp_path / "o"), "dev-clean")
    words = {w for i in range(len(ds)) for w in ds.get_metadata(i)[2].split()}
    assert words <= {
        "THE",
        "QUICK",
        "BROWN",
        "FOX",
        "JUMPS",
        "OVER",
        "LAZY",
        "DOG",
        "IT",
        "WAS",
        "BEST",
        "OF",
        "TIMES",
        "WORST",
        "CALL",
        "ME",
        "ISHMAEL",
        "SAID",
        "SAILOR",
        "TO",
        "CROWD",
        "ON",
        "QUAY",
    }
    with pytest.raises(SystemExit):
        gen("librispeech", "--out", tmp_path / "x", "--splits", "dev-clean,bogus")
    with pytest.raises(SystemExit):
        gen("librispeech", "--out", tmp_path / "x", "--hours", 0)
    with pytest.raises(SystemExit):
        gen("unknown-kind", "--out", tmp_path / "x")
