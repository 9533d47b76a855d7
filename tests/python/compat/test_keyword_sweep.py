"""Every Tensor method takes the keyword names torch 1.13 gives it (issue 25, point 6).

The sweep reads torch's own signature stubs (torch/_C/__init__.pyi, class _TensorBase) and, for
each method both libraries have, checks that some overload of ours accepts all the names of each
of torch's overloads. Our signatures come from pybind11's docstrings or inspect.signature.
"""

import ast
import inspect
import os
import re

import pytest

import tensorcore as tc

# Arguments that select memory layout/placement details we accept elsewhere or not at all.
IGNORED_NAMES = {
    "out",
    "memory_format",
    "layout",
    "pin_memory",
    "requires_grad",
    "generator",
    "dtype",
    "device",
    "non_blocking",
    "copy",
}

# Names in torch's stubs that torch itself refuses as keywords at run time (checked below), or
# named-tensor (Dimname) overloads, which tensorcore does not implement (docs/compat.md).
STUB_ONLY = {
    ("requires_grad_", "mode"): "x.requires_grad_(mode=True)",
    ("uniform_", "from_"): "x.uniform_(from_=0.0, to=1.0)",
    ("random_", "from_"): "x.random_(from_=0, to=3)",
    ("to", "other"): "x.to(other=x)",
    ("stride", "_int"): "x.stride(_int=0)",
    ("record_stream", "s"): "x.record_stream(s=None)",
}


def _torch_stubs():
    torch = pytest.importorskip("torch")
    path = os.path.join(os.path.dirname(torch.__file__), "_C", "__init__.pyi")
    if not os.path.exists(path):
        pytest.skip("torch's signature stubs (_C/__init__.pyi) are not installed")
    tree = ast.parse(open(path).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_TensorBase")
    sigs = {}
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
            continue
        args = fn.args
        if args.vararg is not None:
            continue  # the *sizes forms: positional only
        params = (args.posonlyargs + args.args)[1:] + args.kwonlyargs
        annotations = [ast.unparse(p.annotation) for p in params if p.annotation is not None]
        if any("Dimname" in a or "ellipsis" in a for a in annotations):
            continue
        sigs.setdefault(fn.name, []).append([p.arg for p in params])
    return sigs


def _our_overloads(name):
    method = getattr(tc.Tensor, name)
    try:
        params = list(inspect.signature(method).parameters.values())[1:]
        if any(p.kind == p.VAR_KEYWORD for p in params):
            return None  # forwards **kwargs: checked by calling, not here
        return [{p.name for p in params if p.kind != p.VAR_POSITIONAL}]
    except (TypeError, ValueError):
        pass
    overloads = []
    # The bound signatures (pybind11's records; __doc__ holds the written docstring).
    lines = tc._C._overload_signatures(method) if tc._C._is_bound_function(method) else []
    for line in lines:
        match = re.match(r"^\s*(?:\d+\.\s*)?\w+\((.*)\)\s*->", line)
        if match:
            if "**" in match.group(1):
                return None  # takes keywords by hand (random_'s `from`): checked by calling
            names = re.findall(r"(\w+):", match.group(1))
            overloads.append(set(names[1:] if names[:1] == ["self"] else names))
    return overloads


def test_every_method_takes_torchs_keyword_names():
    sigs = _torch_stubs()
    common = [n for n in sorted(sigs) if hasattr(tc.Tensor, n)]
    assert len(common) > 300  # the sweep covers the API, not a handful of names
    missing = []
    for name in common:
        ours = _our_overloads(name)
        if ours is None and name.endswith("_") and hasattr(tc.Tensor, name[:-1]):
            ours = _our_overloads(name[:-1])  # in-place forms forward to the out-of-place one
        if ours is None:
            continue
        assert ours, f"Tensor.{name}: no signature could be read from its binding"
        for names in sigs[name]:
            wanted = {n for n in names if (name, n) not in STUB_ONLY} - IGNORED_NAMES
            if not any(wanted <= o for o in ours):
                missing.append(f"Tensor.{name}({', '.join(sorted(wanted))})")
    assert not missing, "methods lacking torch's keyword names:\n" + "\n".join(missing)


@pytest.mark.parametrize("key", sorted(STUB_ONLY))
def test_stub_only_names_are_refused_by_torch_too(key):
    torch = pytest.importorskip("torch")
    x = torch.ones(2, 2)
    with pytest.raises((TypeError, RuntimeError)):
        eval(STUB_ONLY[key], {"x": x, "torch": torch})


KEYWORD_CALLS = [
    ("dot", lambda t, x: t.arange(3.0).dot(tensor=t.arange(3.0))),
    ("max", lambda t, x: x.max(other=x * 0.5)),
    ("min", lambda t, x: x.min(other=x * 0.5)),
    ("split", lambda t, x: x.split(split_size=1)),
    ("split fn", lambda t, x: t.split(x, split_size_or_sections=[1, 2])),
    ("hsplit", lambda t, x: x.hsplit(sections=2)),
    ("vsplit", lambda t, x: x.vsplit(indices=[1])),
    ("tensor_split", lambda t, x: x.tensor_split(sections=2)),
    ("tensor_split t", lambda t, x: x.tensor_split(tensor_indices_or_sections=t.tensor([1]))),
    ("new_zeros", lambda t, x: x.new_zeros(size=(2, 3))),
    ("new_ones", lambda t, x: x.new_ones(size=(1,), dtype=t.float64)),
    ("random_ to", lambda t, x: x.random_(to=1)),
    ("random_ from to", lambda t, x: x.random_(**{"from": 3, "to": 4})),
    ("expand", lambda t, x: x[:1].expand(size=(3, 4), implicit=False)),
    ("resize_as_", lambda t, x: x.clone().resize_as_(the_template=t.ones(2, 2))),
]


@pytest.mark.parametrize("case", KEYWORD_CALLS, ids=[c[0] for c in KEYWORD_CALLS])
def test_keyword_calls_match_torch(case, torch_ref):
    import numpy as np

    _, call = case
    data = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    ours = call(tc, tc.tensor(data))
    theirs = call(torch_ref, torch_ref.tensor(data))
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        pairs = zip(ours, theirs)
    else:
        pairs = [(ours, theirs)]
    for a, b in pairs:
        assert tuple(a.shape) == tuple(b.shape)
        if case[0] != "resize_as_":  # resize_as_ leaves new elements uninitialized
            np.testing.assert_array_equal(a.numpy(), b.numpy())
