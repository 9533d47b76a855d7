import pytest


def _load_native():
    # The native kernels as tensorcore.nn.functional exposes them (thin bindings over
    # tc::nn::functional, re-exported or wrapped with torch's Python signatures).
    import tensorcore.nn.functional as functional

    return functional


@pytest.fixture(scope="session")
def F():
    return _load_native()
