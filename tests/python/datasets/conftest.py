"""Tiny generated corpora shared by the dataset tests (generated once per session, seconds)."""

import os

import pytest
from generated_corpora import generate, generated

try:  # torchaudio first: it initializes the libsox both libraries share (docs/audio.md)
    import torchaudio  # noqa: F401
except Exception:  # pragma: no cover - reference absent
    torchaudio = None


@pytest.fixture(scope="session")
def librispeech_root(tmp_path_factory):
    return generated(tmp_path_factory, "speech", "librispeech", "--seed", 7, "--hours", 0.012,
                     "--jobs", 2, "--max-seconds", 8, speech=True)  # fmt: skip


@pytest.fixture(scope="session")
def libritts_root(tmp_path_factory):
    return generated(tmp_path_factory, "tts", "libritts", "--seed", 3, "--hours", 0.006,
                     "--jobs", 2, "--splits", "train-clean-100,dev-clean", speech=True)  # fmt: skip


@pytest.fixture(scope="session")
def librimix_root(librispeech_root, tmp_path_factory):
    return generated(tmp_path_factory, "mix", "librimix", "--librispeech", librispeech_root,
                     "--seed", 5, "--noise", "--snr-range", -3, 3,
                     "--noise-snr-range", 5, 10)  # fmt: skip


@pytest.fixture(scope="session")
def coco_root(tmp_path_factory):
    out = generated(tmp_path_factory, "coco", "coco", "--seed", 11, "--images", 10,
                    "--min-size", 64, "--max-size", 112, "--crowd-prob", 0.5, "--empty-prob", 0.2,
                    "--jobs", 1, "--splits", "train2017,val2017")  # fmt: skip
    return os.path.join(out, "coco")


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
