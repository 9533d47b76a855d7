"""Graph capture, save and load with TorchScript's names (``tc.jit.trace``, ``save``, ``load``,
``freeze``, ``fork``, ``wait``).

``trace`` runs the function once on example inputs and records every native op it calls, in
order, into a graph of those ops. The recorded module runs that graph on the C++ runtime
(``tensorcore/jit``), the same one a plain C++ program uses through ``tc::jit::load``; Python is
not involved in running it. Python control flow and Python numbers computed from tensors
(``x.shape[0]``, ``.item()``) are fixed at their traced values, as with ``torch.jit.trace``;
shapes of tensors flowing between ops may vary. See docs/jit.md.
"""

import concurrent.futures as _futures
import os as _os
import warnings as _warnings

from .. import _C
from .. import nn as _nn

__all__ = [
    "trace",
    "trace_module",
    "save",
    "load",
    "freeze",
    "fork",
    "wait",
    "script",
    "TracedModule",
    "ScriptModule",
    "Future",
    "TracerWarning",
    "registered_ops",
]


class TracerWarning(Warning):
    """The traced graph may not generalise (a value was fixed at trace time)."""


class TracedModule(_nn.Module):
    """A module that runs a recorded graph on the C++ runtime.

    Its constants (the traced module's parameters and buffers, under the same names) are
    available through :meth:`state_dict`; ``graph`` lists the recorded ops.
    """

    def __init__(self, native, name="TracedModule"):
        super().__init__()
        object.__setattr__(self, "_c", native)
        object.__setattr__(self, "_traced_name", name)

    def forward(self, *inputs):
        return self._c.forward(*inputs)

    @property
    def graph(self):
        return self._c.graph

    @property
    def code(self):
        """The graph as readable text (one line per op call)."""
        return self._c.graph

    @property
    def ops(self):
        return list(self._c.ops)

    @property
    def metadata(self):
        return dict(self._c.metadata)

    def save(self, path):
        """Writes the graph, its constants and a format version into one file."""
        self._c.save(_os.fspath(path))

    def state_dict(self, *args, **kwargs):
        return {name: t for name, t in self._c.named_constants()}

    def named_constants(self):
        return list(self._c.named_constants())

    def to(self, *args, **kwargs):
        device = kwargs.get("device", args[0] if args else None)
        from .. import device as _device

        return TracedModule(self._c.to(_device(device) if isinstance(device, str) else device))

    def extra_repr(self):
        return f"{self._traced_name}, {self._c.num_nodes} ops"

    def __getstate__(self):
        raise TypeError(
            "a traced module is not pickled; save it with m.save(path) / tc.jit.save(m, path)"
        )


ScriptModule = TracedModule


def _param_names(mod):
    names = {}
    if isinstance(mod, _nn.Module):
        for name, p in mod.named_parameters():
            names[name] = p
        for name, b in mod.named_buffers():
            if b is not None:
                names[name] = b
    return names


def _allclose_tree(a, b, rtol, atol):
    from .. import allclose, is_tensor

    if is_tensor(a) and is_tensor(b):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            return bool(allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return bool((a == b).all())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_allclose_tree(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_allclose_tree(a[k], b[k], rtol, atol) for k in a)
    return a == b


def trace(
    func,
    example_inputs=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    example_kwarg_inputs=None,
):
    """Records the native ops ``func(*example_inputs)`` runs into a :class:`TracedModule`.

    Args:
        func: an ``nn.Module`` (its ``forward`` is traced) or a function of tensors.
        example_inputs: a tensor or a tuple of inputs (tensors, or lists/tuples/dicts of them).
        check_trace: re-run the traced graph on the example inputs (and ``check_inputs``) and
            raise if it disagrees with the eager result.
        check_tolerance: relative and absolute tolerance of that check.

    Raises NotImplementedError naming the op when ``func`` calls one the graph runtime lacks,
    and TypeError for arguments a graph cannot hold.

    Example::

        >>> m = tc.nn.Sequential(tc.nn.Linear(4, 2), tc.nn.ReLU()).eval()
        >>> traced = tc.jit.trace(m, tc.randn(3, 4))
        >>> traced.save("m.tcj")
    """
    if example_kwarg_inputs is not None:
        raise NotImplementedError(
            "jit.trace: example_kwarg_inputs is not supported; pass inputs positionally"
        )
    if example_inputs is None:
        raise TypeError("jit.trace: example_inputs is required")
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    from .. import no_grad

    name = type(func).__name__ if isinstance(func, _nn.Module) else getattr(func, "__name__", "fn")
    tracer = _C._jit.Tracer(_param_names(func))
    with no_grad():
        for i, x in enumerate(example_inputs):
            tracer.add_input(x, f"input{i}")
        tracer.start()
        try:
            out = func(*example_inputs)
        finally:
            tracer.stop()
        native = tracer.finish(out, {"name": name})
    traced = TracedModule(native, name)
    if check_trace:
        with no_grad():
            checks = [(example_inputs, out)]
            for extra in check_inputs or []:
                extra = extra if isinstance(extra, tuple) else (extra,)
                checks.append((extra, func(*extra)))
            for inputs, expected in checks:
                got = traced(*inputs)
                if not _allclose_tree(got, expected, check_tolerance, check_tolerance):
                    raise RuntimeError(
                        "jit.trace: the traced graph gives different results from the "
                        "eager function on the check inputs (data-dependent control flow or "
                        "values fixed at trace time); see docs/jit.md"
                    )
    return traced


def trace_module(mod, inputs, **kwargs):
    """torch.jit.trace_module for the ``forward`` method: ``inputs={"forward": example}``."""
    if set(inputs) != {"forward"}:
        raise NotImplementedError("jit.trace_module: only the 'forward' method can be traced")
    return trace(mod, inputs["forward"], **kwargs)


def script(obj, *args, **kwargs):
    """Not available: TorchScript compiles Python source; tensorcore traces instead."""
    raise NotImplementedError(
        "tc.jit.script compiles Python source, which tensorcore does not do; use "
        "tc.jit.trace(module, example_inputs) (data-dependent parts of the models are native "
        "ops, so tracing keeps them)"
    )


def save(m, f):
    """Writes a traced module to a path (or a binary file object)."""
    if not isinstance(m, TracedModule):
        raise TypeError(
            f"jit.save: expected a traced module (tc.jit.trace), got {type(m).__name__}"
        )
    if hasattr(f, "write"):
        f.write(m._c.save_to_bytes())
    else:
        m.save(f)


def load(f, map_location=None):
    """Reads a file written by :func:`save`; the graph runs on the C++ runtime.

    Raises ValueError for a truncated, damaged or foreign file and NotImplementedError for a
    newer format version or an op this build lacks. Nothing in the file is executed as code.
    """
    from .. import device as _device

    if isinstance(map_location, str):
        map_location = _device(map_location)
    if hasattr(f, "read"):
        native = _C._jit.load_from_bytes(f.read(), map_location)
    else:
        native = _C._jit.load(_os.fspath(f), map_location)
    return TracedModule(native, dict(native.metadata).get("name", "TracedModule"))


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Folds constants (ops whose inputs are all constants run once) and batch norms into the
    preceding convolutions; for inference."""
    if not isinstance(mod, TracedModule):
        raise TypeError(f"jit.freeze: expected a traced module, got {type(mod).__name__}")
    return TracedModule(mod._c.freeze(), mod._traced_name)


class Future(_futures.Future):
    """The result of :func:`fork`."""

    def wait(self):
        return self.result()


_pool = None


def fork(func, *args, **kwargs):
    """Starts ``func(*args, **kwargs)`` on a worker thread and returns a :class:`Future`.

    Traced modules release the GIL while they run, so forked calls of them run in parallel.
    While a trace is being recorded the call runs inline, so its ops are recorded.
    """
    global _pool
    fut = Future()
    if _C._jit_tracing():
        try:
            fut.set_result(func(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 (delivered by wait)
            fut.set_exception(e)
        return fut
    if _pool is None:
        _pool = _futures.ThreadPoolExecutor(max_workers=max(2, _os.cpu_count() or 2))

    def run():
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(func(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001
            fut.set_exception(e)

    _pool.submit(run)
    return fut


def wait(fut):
    """The value of a :func:`fork`'s future (re-raises its exception)."""
    return fut.result()


def registered_ops():
    """Names of the ops the graph runtime can run (the bindings they are traced through)."""
    return list(_C._jit.registered_ops())


def is_scripting():
    return False


def is_tracing():
    return bool(_C._jit_tracing())


def ignore(fn=None, **kwargs):
    return fn if fn is not None else (lambda f: f)


def unused(fn):
    return fn


def _warn(msg):
    _warnings.warn(msg, TracerWarning, stacklevel=3)
