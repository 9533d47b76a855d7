"""Temporary patches that let Proxies flow through tensorcore's callables while tracing.

tensorcore's ops are pybind11 functions and its Tensor is a pybind11 class: a Proxy passed to
them fails overload resolution, and there is no __torch_function__ protocol to hook. Instead,
for the duration of one trace, the public callables of tensorcore's functional namespaces (and of
the tracer's autowrap modules, math by default) are replaced in their module dicts by wrappers
that record a call_function node when any argument (nested in lists, tuples or dicts) is a Proxy,
and call straight through otherwise; Tensor's binary operators return NotImplemented for a Proxy
operand (so Python asks the Proxy's reflected operator), and Tensor methods called on a real
tensor with Proxy arguments record a call_method node. Everything is restored when the trace
ends, even on error, so eager code never pays for any of this.
"""

import operator
import sys

_MISSING = object()

# Patched only while tracing; names whose eager meaning tracing must keep.
_NEVER_WRAP = {"is_tensor", "is_storage", "typename"}

# tensorcore's namespaces whose public callables record call_function nodes.
TENSORCORE_NAMESPACES = (
    "tensorcore",
    "tensorcore.nn.functional",
    "tensorcore.fft",
    "tensorcore.linalg",
    "tensorcore.special",
    "tensorcore.vision.ops",
    "tensorcore.vision.transforms.functional",
    "tensorcore.audio.functional",
)

_BINARY_DUNDERS = (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
    "lshift", "rshift", "and", "or", "xor",
)  # fmt: skip
_COMPARE_DUNDERS = ("lt", "le", "gt", "ge", "eq", "ne")

_wrapper_cache = {}


def original_of(obj):
    """The callable a tracing wrapper stands for (obj itself when it is not a wrapper)."""
    try:
        return obj.__dict__["__fx_original__"]
    except (AttributeError, KeyError, TypeError):
        return obj


def find_proxy(args, kwargs=None):
    """The first Proxy inside args/kwargs (nested in tuples, lists, dicts, slices), or None."""
    from .proxy import Proxy

    stack = list(args)
    if kwargs:
        stack.extend(kwargs.values())
    while stack:
        a = stack.pop()
        if isinstance(a, Proxy):
            return a
        if isinstance(a, (tuple, list)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
        elif isinstance(a, slice):
            stack.extend((a.start, a.stop, a.step))
    return None


def recording_wrapper(orig):
    """A function that records call_function(orig) for Proxy arguments, else calls orig."""
    cached = _wrapper_cache.get(id(orig))
    if cached is not None and cached[0] is orig:
        return cached[1]

    def wrapper(*args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        return proxy.tracer.create_proxy("call_function", orig, args, kwargs)

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(wrapper, attr, getattr(orig, attr))
        except (AttributeError, TypeError):
            pass
    wrapper.__fx_original__ = orig
    wrapper.__wrapped__ = orig
    _wrapper_cache[id(orig)] = (orig, wrapper)
    return wrapper


def _tensor_method_wrapper(name, orig):
    def method(self, *args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return orig(self, *args, **kwargs)
        return proxy.tracer.create_proxy("call_method", name, (self,) + args, kwargs)

    method.__name__ = name
    method.__fx_original__ = orig
    return method


def _tensor_operator_wrapper(orig):
    # NotImplemented hands a Proxy operand to its reflected operator (Proxy.__radd__ ...).
    from .proxy import Proxy

    def op(self, other):
        if isinstance(other, Proxy):
            return NotImplemented
        return orig(self, other)

    op.__fx_original__ = orig
    return op


def _tensor_getitem_wrapper(orig):
    def getitem(self, idx):
        proxy = find_proxy((idx,))
        if proxy is None:
            return orig(self, idx)
        return proxy.tracer.create_proxy("call_function", operator.getitem, (self, idx), {})

    getitem.__fx_original__ = orig
    return getitem


def wrappable(name, value):
    if name.startswith("_") or name in _NEVER_WRAP:
        return False
    if isinstance(value, type) or type(value).__name__ == "module":
        return False
    return callable(value) and "__fx_original__" not in getattr(value, "__dict__", {})


class Patcher:
    """Records every patch so that restore() undoes them in reverse order."""

    def __init__(self):
        self._undo = []
        self._visited = set()
        self.wrapped_ids = {}

    def patch_dict(self, d, name, new):
        self._undo.append((d, name, d.get(name, _MISSING)))
        d[name] = new

    def patch_attr(self, cls, name, new):
        self._undo.append((cls, name, cls.__dict__.get(name, _MISSING)))
        setattr(cls, name, new)

    def restore(self):
        while self._undo:
            target, name, old = self._undo.pop()
            if isinstance(target, dict):
                if old is _MISSING:
                    target.pop(name, None)
                else:
                    target[name] = old
            elif old is _MISSING:
                delattr(target, name)
            else:
                setattr(target, name, old)
        self._visited.clear()

    # ---- namespaces ----
    def wrap_namespace(self, module):
        """Replaces the module's public callables by recording wrappers."""
        d = module.__dict__
        for name, value in list(d.items()):
            if wrappable(name, value):
                wrapper = recording_wrapper(value)
                self.wrapped_ids[id(value)] = (value, wrapper)
                self.patch_dict(d, name, wrapper)

    def add_function(self, fn):
        self.wrapped_ids[id(fn)] = (fn, recording_wrapper(fn))

    def wrap_globals(self, fn_globals):
        """Rebinds, in one module's globals, names bound to any wrapped callable (covers
        ``from tensorcore import cat`` and autowrap_functions). Each dict is visited once."""
        if fn_globals is None or id(fn_globals) in self._visited:
            return
        self._visited.add(id(fn_globals))
        for name, value in list(fn_globals.items()):
            entry = self.wrapped_ids.get(id(value))
            if entry is not None and entry[0] is value:
                self.patch_dict(fn_globals, name, entry[1])

    # ---- the Tensor class ----
    def patch_tensor_class(self, tensor_cls):
        d = tensor_cls.__dict__
        for stem in _BINARY_DUNDERS:
            for name in (f"__{stem}__", f"__r{stem}__", f"__i{stem}__"):
                if name in d:
                    self.patch_attr(tensor_cls, name, _tensor_operator_wrapper(d[name]))
        for stem in _COMPARE_DUNDERS:
            name = f"__{stem}__"
            if name in d:
                self.patch_attr(tensor_cls, name, _tensor_operator_wrapper(d[name]))
        if "__getitem__" in d:
            self.patch_attr(tensor_cls, "__getitem__", _tensor_getitem_wrapper(d["__getitem__"]))
        for name, value in list(d.items()):
            if name.startswith("_") or isinstance(value, (property, staticmethod, classmethod)):
                continue
            if not callable(value) or type(value).__name__ in ("property", "getset_descriptor"):
                continue
            self.patch_attr(tensor_cls, name, _tensor_method_wrapper(name, value))


def import_if_present(name):
    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        return None
