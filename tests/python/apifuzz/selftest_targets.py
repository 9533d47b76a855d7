"""Deliberately broken callables for the harness's self-test (test_sweep.py)."""

import ctypes
import time


def crash(x):
    """Segfaults on every call (reads address 0)."""
    ctypes.string_at(0)


def hang(x):
    """Never returns within the harness timeout."""
    time.sleep(1000)


_kept = []


def leak(x):
    """Keeps a tensorcore tensor alive on every call."""
    import tensorcore as tc

    _kept.append(tc.ones(16))
