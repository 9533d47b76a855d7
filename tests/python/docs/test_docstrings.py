"""Every public name of the API carries a docstring beyond its signature (help(), IDEs and the
API site show it). The names still without one are listed in doc_gaps.txt: the list may only
shrink, so a name that gains a docstring must leave it (the test says which)."""

import inspect
import os
import re

import pytest

import tensorcore as tc
from tensorcore import _docs
from tensorcore._docs import _api

GAPS_FILE = os.path.join(os.path.dirname(__file__), "doc_gaps.txt")


def _allowlisted_gaps():
    with open(GAPS_FILE) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def test_every_public_name_is_documented_or_a_listed_gap():
    missing = set(_api.undocumented())
    allowed = _allowlisted_gaps()
    total = len(_api.public_api())
    print(f"public API: {total} names, {total - len(missing)} documented, {len(missing)} gaps")
    new_gaps = sorted(missing - allowed)
    closed = sorted(allowed - missing)
    assert not new_gaps, (
        f"{len(new_gaps)} public names have no docstring (add one in python/tensorcore/_docs/): "
        + ", ".join(new_gaps[:40])
    )
    # A name of an area left out of the build is neither documented nor missing here.
    present = {name for name, _ in _api.public_api()}
    closed = [n for n in closed if n in present]
    assert not closed, (
        f"{len(closed)} names of doc_gaps.txt are documented now; remove them from the list: "
        + ", ".join(closed[:40])
    )


def test_doc_entries_resolve_and_are_not_written_twice():
    assert _docs.UNRESOLVED == [], f"DOCS entries naming nothing: {_docs.UNRESOLVED}"
    assert _docs.UNSETTABLE == [], f"docstrings that could not be set: {_docs.UNSETTABLE}"
    assert _docs.DUPLICATES == [], (
        f"documented both in the source and in tensorcore/_docs: {_docs.DUPLICATES}"
    )


def test_help_shows_the_docstring_of_a_bound_function():
    # tc.hypot is a pybind11 function wrapped for out=; both help() and __doc__ reach the text.
    import pydoc

    text = pydoc.render_doc(tc.hypot, renderer=pydoc.plaintext)
    assert "hypot(input, other, *, out=None) -> Tensor" in text
    assert "Args:" in text and "Example" in text
    assert _api.is_documented(tc.Tensor.add)
    assert "Method form of :func:`tensorcore.add`" in tc.Tensor.add.__doc__
    assert "In-place version of :meth:`Tensor.add`" in tc.Tensor.add_.__doc__


def test_add_docstr_rejects_what_it_cannot_document():
    with pytest.raises(TypeError, match="expected a tensorcore._C function"):
        tc._C._add_docstr(len, "x")


_PARAM = re.compile(r"^\*{0,2}(\w+)")


def _documented_params(doc):
    sig = _docs._split_signature(doc)
    if not sig:
        return None
    names = []
    for p in sig[1]:
        m = _PARAM.match(p)
        if m:
            names.append(m.group(1))
    return names


def _bound_params(fn):
    names = set()
    for sig in tc._C._overload_signatures(fn):
        params = sig[sig.index("(") + 1 : sig.rindex(")")]
        for p in _docs._split_params(params):
            m = _PARAM.match(p.strip())
            if m:
                names.add(m.group(1))
    return names


def test_documented_signatures_name_real_parameters():
    """The signature line of a bound function's docstring names parameters its overloads take
    (a keyword a user copies from the docs must work); out= only where the op has the wrapper."""
    wrong = []
    for name, obj in _api.public_api():
        if not tc._C._is_bound_function(obj) or name not in _docs.ATTACHED:
            continue
        documented = _documented_params(_api.own_doc(obj))
        if not documented:
            continue
        bound = _bound_params(obj) | {"self"}
        if any(s.startswith(("args", "kwargs")) for s in bound) or "args" in bound:
            continue
        # pybind11 names unnamed (positional-only) arguments arg0, arg1...: any name fits them.
        positional_only = len([b for b in bound if re.fullmatch(r"arg\d+", b)])
        documented = [p for p in documented if p != "out"][positional_only:] + (
            ["out"] if "out" in documented else []
        )
        for p in documented:
            if p == "out" and "out" not in bound:
                if not hasattr(obj, "_tc_out"):
                    wrong.append(f"{name}: documents out= but has no out= wrapper")
            elif p not in bound:
                wrong.append(f"{name}: documents '{p}', bound names are {sorted(bound)}")
    assert not wrong, "\n".join(wrong)


def test_public_modules_have_docstrings():
    for modname in _api.PUBLIC_MODULES:
        module = _api.resolve(modname)
        if module is not None:
            assert inspect.getdoc(module), modname


def test_out_functions_document_out():
    """A function declared in _out.OUT_OPS shows out=None in its documented signature."""
    from tensorcore import _out

    missing = []
    for name in _out.OUT_OPS:
        qual = f"tensorcore.{name}"
        if qual in _docs.ATTACHED and "out" not in (
            _documented_params(getattr(tc, name).__doc__) or []
        ):
            missing.append(name)
    assert not missing, f"documented without out=None although they take out=: {missing}"
