"""The `parity` fixture (vmodels_parity.Parity) for the vision model tests."""

import pytest

from vmodels_parity import Parity


@pytest.fixture
def parity(torch_ref, tmp_path):
    tv = pytest.importorskip("torchvision")
    torch_ref.set_grad_enabled(True)
    return Parity(torch_ref, tv, tmp_path)
