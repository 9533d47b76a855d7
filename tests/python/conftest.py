import pytest

try:
    import torch  # Debian's python3-torch, used as a reference when present
except Exception:  # pragma: no cover - absent on some machines
    torch = None


@pytest.fixture
def torch_ref():
    if torch is None:
        pytest.skip("PyTorch reference not installed (apt install python3-torch)")
    return torch
