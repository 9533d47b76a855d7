"""The detection tests' reference: torchvision, imported once or the test skipped."""

import pytest


@pytest.fixture(scope="session")
def tv():
    pytest.importorskip("torch")
    return pytest.importorskip("torchvision")
