"""Tiny generated corpora for the pipeline tests (generated once per session, seconds)."""

import os
import shutil

import pytest


def _generate(*argv):
    from tensorcore.datasets.generate import main

    return main([str(a) for a in argv])


def _need_speech_tools():
    if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
        pytest.skip("espeak-ng / sox not installed")


@pytest.fixture(scope="session")
def librispeech_root(tmp_path_factory):
    _need_speech_tools()
    out = tmp_path_factory.mktemp("pipe_speech")
    _generate("librispeech", "--out", out, "--seed", 3, "--hours", 0.02, "--jobs", 2,
              "--max-seconds", 4)  # fmt: skip
    return str(out)


@pytest.fixture(scope="session")
def libritts_root(tmp_path_factory):
    _need_speech_tools()
    out = tmp_path_factory.mktemp("pipe_tts")
    _generate("libritts", "--out", out, "--seed", 3, "--hours", 0.01, "--jobs", 2,
              "--max-seconds", 3)  # fmt: skip
    return str(out)


@pytest.fixture(scope="session")
def librimix_root(librispeech_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("pipe_mix")
    _generate("librimix", "--out", out, "--librispeech", librispeech_root, "--seed", 3,
              "--sample-rates", "8000", "--modes", "min")  # fmt: skip
    return str(out)


@pytest.fixture(scope="session")
def coco_root(tmp_path_factory):
    out = tmp_path_factory.mktemp("pipe_coco")
    _generate("coco", "--out", out, "--seed", 3, "--images", 4, "--min-size", 64, "--max-size", 80,
              "--splits", "train2017,val2017", "--max-objects", 3, "--jobs", 1)  # fmt: skip
    return os.path.join(str(out), "coco")
