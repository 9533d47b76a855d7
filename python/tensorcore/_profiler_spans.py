"""Spans that tc.profiler shows for Python-level work: optimizer steps and DataLoader
iteration (torch's names), and the fetch time of DataLoader worker processes."""

import functools

from . import _C

_native = _C._profiler


def profiled_method(fn, span_name):
    """Wraps a method so each call is a span `span_name(self)` while the profiler runs (one
    flag check otherwise)."""
    if getattr(fn, "_tc_profiled", False):
        return fn

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if not _native._is_enabled():
            return fn(self, *args, **kwargs)
        token = _native._begin(span_name(self), 1)
        try:
            return fn(self, *args, **kwargs)
        finally:
            _native._end(token)

    wrapper._tc_profiled = True
    return wrapper


def add_worker_span(worker_id, pid, start_ns, end_ns):
    """A DataLoader worker's fetch of one batch, on the worker's own lane (tid = its pid);
    both processes read CLOCK_MONOTONIC, so the times line up with the main process."""
    if _native._is_enabled():
        _native._add_external(f"DataLoader worker {worker_id}: fetch", start_ns, end_ns, pid)
