"""The repository root, and its scripts/ loaded as modules for the tests that check what they
produce (the .pyi stubs, the API reference site)."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def load_script(name):
    """scripts/<name>.py as a fresh module."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
