import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import media  # noqa: E402


@pytest.fixture(scope="session")
def pil():
    return pytest.importorskip("PIL.Image")


@pytest.fixture(scope="session")
def tv_io():
    """torchvision.io when installed (the reference decoder: same libjpeg-turbo and libpng)."""
    pytest.importorskip("torch")
    tvio = pytest.importorskip("torchvision.io")
    return tvio


@pytest.fixture(scope="session")
def jpegs(tmp_path_factory, pil):
    return media.make_jpegs(str(tmp_path_factory.mktemp("jpeg")))


@pytest.fixture(scope="session")
def pngs(tmp_path_factory, pil):
    return media.make_pngs(str(tmp_path_factory.mktemp("png")))
