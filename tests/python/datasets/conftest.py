"""Tiny generated corpora shared by the dataset tests (generated once per session, seconds)."""

import os
import shutil

import pytest

try:  # torchaudio first: it initializes the libsox both libraries share (docs/audio.md)
    import torchaudio  # noqa: F401
except Exception:  # pragma: no cover - reference absent
    torchaudio = None


def generate(*argv):
    from tensorcore.datasets.generate import main

    return main([str(a) for a in argv])


@pytest.fixture(scope="session")
def librispeech_root(tmp_path_factory):
    if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
        pytest.skip("espeak-ng / sox not installed")
    out = tmp_path_factory.mktemp("speech")
    generate(
        "librispeech", "--out", out, "--seed", 7, "--hours", 0.012, "--jobs", 2, "--max-seconds", 8
    )
    return str(out)


@pytest.fixture(scope="session")
def libritts_root(tmp_path_factory):
    if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
        pytest.skip("espeak-ng / sox not installed")
    out = tmp_path_factory.mktemp("tts")
    generate(
        "libritts",
        "--out",
        out,
        "--seed",
        3,
        "--hours",
        0.006,
        "--jobs",
        2,
        "--splits",
        "train-clean-100,dev-clean",
    )
    return str(out)


@pytest.fixture(scope="session")
def librimix_root(librispeech_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("mix")
    generate(
        "librimix",
        "--out",
        out,
        "--librispeech",
        librispeech_root,
        "--seed",
        5,
        "--noise",
        "--snr-range",
        -3,
        3,
        "--noise-snr-range",
        5,
        10,
    )
    return str(out)


@pytest.fixture(scope="session")
def coco_root(tmp_path_factory):
    out = tmp_path_factory.mktemp("coco")
    generate(
        "coco",
        "--out",
        out,
        "--seed",
        11,
        "--images",
        10,
        "--min-size",
        64,
        "--max-size",
        112,
        "--crowd-prob",
        0.5,
        "--empty-prob",
        0.2,
        "--jobs",
        1,
        "--splits",
        "train2017,val2017",
    )
    return os.path.join(str(out), "coco")


@pytest.fixture
def gen():
    return generate


@pytest.fixture
def digest():
    return tree_digest


def tree_digest(root):
    """{relative path: sha256} of every file under root."""
    import hashlib

    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out
