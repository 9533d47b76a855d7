import importlib.util
import pathlib
import sys

import pytest

import tensorcore


def _load_native():
    # Load python/tensorcore/nn/_native.py by path so these tests do not depend on
    # tensorcore/nn/__init__.py (owned by the Python nn layer).
    name = "tensorcore.nn._native"
    if name in sys.modules:
        return sys.modules[name]
    path = pathlib.Path(tensorcore.__file__).parent / "nn" / "_native.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


@pytest.fixture(scope="session")
def F():
    return _load_native()
