import os

import pytest

import tensorcore as tc

_HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_collection_modifyitems(config, items):
    # This hook sees the whole session's items: only touch the tests in this folder.
    if tc.cuda.is_available():
        return
    reason = (
        "no CUDA device available"
        if tc.cuda.is_compiled()
        else "tensorcore was built without CUDA (-DTC_CUDA=OFF)"
    )
    for item in items:
        if os.path.dirname(os.path.abspath(str(item.fspath))) != _HERE:
            continue
        if "nogpu" not in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_configure(config):
    config.addinivalue_line("markers", "nogpu: runs without a GPU too")
