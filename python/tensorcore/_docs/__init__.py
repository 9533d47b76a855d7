"""Docstrings of the public API, kept in Python files by area and attached at import.

Each area file (torch_functions.py, tensor_methods.py, nn_functional.py, ...) holds TARGET (the
dotted path of the module or class it documents) and DOCS ({name: docstring}, torch's style:
signature line, description, Args:, Example:). attach() sets them: pybind11 functions through
_C._add_docstr (python/src/docstrings.cpp), Python functions and classes through __doc__.
Derived docstrings follow torch's conventions: a Tensor method that mirrors a documented
function points at tensorcore.X, an in-place method `x_` points at `x`, and an alias (ALIASES)
points at its original. See docs/api_docs.md.
"""

import importlib
import inspect
import re

from .. import _C
from . import _api

AREAS = (
    "torch_functions",
    "torch_math",
    "torch_creation",
    "torch_reduce",
    "torch_shape",
    "torch_misc",
    "tensor_methods",
    "nn_functional",
    "nn_modules",
    "nn_module_methods",
    "nn_init",
    "optim",
    "autograd",
    "fft",
    "linalg",
    "data",
    "nn_utils",
    "cuda",
    "distributed",
    "vision",
    "vision_models",
    "audio",
)

# Names whose DOCS entry did not resolve, or that were documented twice (in their source and in
# an area file). tests/python/docs/test_docstrings.py fails on both.
UNRESOLVED = []
DUPLICATES = []
# Qualified names whose docstring was derived (Tensor.x from tensorcore.x, x_ from x, aliases).
DERIVED = {}
# Objects whose __doc__ cannot be set (reported by the tests, never an import error).
UNSETTABLE = []
# Qualified names documented by an area file (DOCS).
ATTACHED = set()

_SIG = re.compile(r"^(?P<name>[\w.]+)\((?P<params>.*?)\)\s*(->\s*(?P<ret>.+))?$")


def add_docstr(obj, doc):
    """Sets obj's docstring (dedented). Returns False when obj already had its own."""
    doc = inspect.cleandoc(doc)
    if _C._is_bound_function(obj):
        if _api.is_documented(obj):  # e.g. the same function listed under two names
            return False
        try:
            _C._add_docstr(obj, doc)
        except ValueError:
            return False
        return True
    if isinstance(obj, property):
        if obj.__doc__:
            return False
        # A property's docstring lives on the property object; pybind11 properties take it too.
        obj.__doc__ = doc
        return True
    target = obj.__func__ if inspect.ismethod(obj) else obj
    if _api.is_documented(target):
        return False
    try:
        target.__doc__ = doc
    except (AttributeError, TypeError) as e:  # a type whose __doc__ is read-only
        UNSETTABLE.append(f"{getattr(target, '__qualname__', target)}: {e}")
    return True


def _split_signature(doc):
    """(name, [params], return) of a docstring's first line, or None."""
    m = _SIG.match(doc.strip().splitlines()[0]) if doc.strip() else None
    if not m:
        return None
    params = [p.strip() for p in _split_params(m.group("params")) if p.strip()]
    return m.group("name"), params, (m.group("ret") or "").strip()


def _split_params(text):
    depth, cur, out = 0, "", []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def method_doc_from_function(name, function_doc):
    """Tensor.name's docstring from tensorcore.name's: the signature without `input` and `out`,
    then a pointer to the function (torch documents its Tensor methods the same way)."""
    sig = _split_signature(function_doc)
    params = []
    if sig:
        params = [p for p in sig[1][1:] if not p.startswith("out")]
        while params and params[-1] == "*":
            params.pop()
    ret = f" -> {sig[2]}" if sig and sig[2] else ""
    return (
        f"{name}({', '.join(params)}){ret}\n\n"
        f"Method form of :func:`tensorcore.{name}`, with this tensor as ``input``."
    )


def _attach_area(area):
    module = importlib.import_module(f".{area}", __name__)
    targets = getattr(module, "TARGETS", None) or {module.TARGET: module.DOCS}
    for target_name, docs in targets.items():
        aliases = getattr(module, "ALIASES", {}) if target_name == module.TARGET else {}
        _attach_docs(target_name, docs, aliases)


def _attach_docs(target_name, docs, aliases):
    target = _api.resolve(target_name)
    if target is None:  # the area was left out of the build
        return
    for name, doc in docs.items():
        obj = (
            getattr(target, name, None) if not isinstance(target, type) else vars(target).get(name)
        )
        if obj is None:
            UNRESOLVED.append(f"{target_name}.{name}")
            continue
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        elif not isinstance(obj, property) and isinstance(target, type):
            obj = getattr(target, name)
        if add_docstr(obj, doc):
            ATTACHED.add(f"{target_name}.{name}")
        else:
            DUPLICATES.append(f"{target_name}.{name}")
    for alias, original in aliases.items():
        obj, orig = getattr(target, alias, None), getattr(target, original, None)
        if obj is None or orig is None:
            UNRESOLVED.append(f"{target_name}.{alias}")
            continue
        if obj is orig or _api.is_documented(obj):
            continue
        sig = _split_signature(_api.own_doc(orig))
        head = (
            f"{alias}({', '.join(sig[1])})" + (f" -> {sig[2]}" if sig[2] else "") if sig else alias
        )
        kind = "meth" if isinstance(target, type) else "func"
        add_docstr(obj, f"{head}\n\nAlias for :{kind}:`{target_name}.{original}`.")
        DERIVED[f"{target_name}.{alias}"] = f"{target_name}.{original}"


def _derive_tensor_methods(tc):
    """Tensor.x from a documented tensorcore.x, then Tensor.x_ from a documented Tensor.x."""
    cls = tc.Tensor
    methods = _api.public_methods(cls)
    for name, meth in methods.items():
        if _api.is_documented(meth) or isinstance(meth, property):
            continue
        fn = getattr(tc, name, None)
        if fn is not None and _api.is_documented(fn):
            add_docstr(meth, method_doc_from_function(name, _api.own_doc(fn)))
            DERIVED[f"tensorcore.Tensor.{name}"] = f"tensorcore.{name}"
    for name, meth in methods.items():
        base = methods.get(name[:-1]) if name.endswith("_") else None
        if base is None or _api.is_documented(meth) or not _api.is_documented(base):
            continue
        sig = _split_signature(_api.own_doc(base))
        params = ", ".join(sig[1]) if sig else "..."
        add_docstr(
            meth, f"{name}({params}) -> Tensor\n\nIn-place version of :meth:`Tensor.{name[:-1]}`."
        )
        DERIVED[f"tensorcore.Tensor.{name}"] = f"tensorcore.Tensor.{name[:-1]}"


def attach(tc):
    for area in AREAS:
        _attach_area(area)
    _derive_tensor_methods(tc)
