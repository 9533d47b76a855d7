"""Tiny generated corpora for the pipeline tests (generated once per session, seconds)."""

import os
import shutil

import pytest
from generated_corpora import generated


@pytest.fixture(scope="session")
def librispeech_root(tmp_path_factory):
    return generated(tmp_path_factory, "pipe_speech", "librispeech", "--seed", 3, "--hours", 0.02,
                     "--jobs", 2, "--max-seconds", 4, speech=True)  # fmt: skip


@pytest.fixture(scope="session")
def libritts_root(tmp_path_factory):
    return generated(tmp_path_factory, "pipe_tts", "libritts", "--seed", 3, "--hours", 0.01,
                     "--jobs", 2, "--max-seconds", 3, speech=True)  # fmt: skip


@pytest.fixture(scope="session")
def librimix_root(librispeech_root, tmp_path_factory):
    return generated(tmp_path_factory, "pipe_mix", "librimix", "--librispeech", librispeech_root,
                     "--seed", 3, "--sample-rates", "8000", "--modes", "min")  # fmt: skip


@pytest.fixture(scope="session")
def coco_root(tmp_path_factory):
    out = generated(tmp_path_factory, "pipe_coco", "coco", "--seed", 3, "--images", 4,
                    "--min-size", 64, "--max-size", 80, "--splits", "train2017,val2017",
                    "--max-objects", 3, "--jobs", 1)  # fmt: skip
    return os.path.join(out, "coco")


@pytest.fixture
def broken_corpus(librispeech_root, tmp_path):
    """A copy of the corpus whose training split has one truncated FLAC file."""
    root = tmp_path / "corpus"
    shutil.copytree(librispeech_root, root)
    import tensorcore.audio as ta

    ds = ta.datasets.LIBRISPEECH(str(root), "train-clean-100")
    path = os.path.join(str(root), "LibriSpeech", ds.get_metadata(1)[0])
    with open(path, "r+b") as f:
        f.truncate(200)
    return str(root), os.path.basename(path)
