"""The public API as documentation sees it: which names of which modules are public, and whether
an object has a docstring beyond its signature. Shared by the docs tests, the API site and
scripts/gen_stubs.py, so all three agree on what "public" means."""

import importlib
import inspect
import re
import types

# Modules whose public names are documented (and listed on the API site), in site order.
PUBLIC_MODULES = (
    "tensorcore",
    "tensorcore.nn",
    "tensorcore.nn.functional",
    "tensorcore.nn.init",
    "tensorcore.optim",
    "tensorcore.optim.lr_scheduler",
    "tensorcore.autograd",
    "tensorcore.fft",
    "tensorcore.linalg",
    "tensorcore.utils.data",
    "tensorcore.vision.transforms",
    "tensorcore.vision.transforms.functional",
    "tensorcore.vision.ops",
    "tensorcore.vision.io",
    "tensorcore.audio.functional",
    "tensorcore.audio.transforms",
    # Further areas: documented in the same way; their remaining gaps are listed in
    # tests/python/docs/doc_gaps.txt.
    "tensorcore.nn.utils",
    "tensorcore.nn.utils.rnn",
    "tensorcore.autograd.functional",
    "tensorcore.amp",
    "tensorcore.cuda",
    "tensorcore.cuda.amp",
    "tensorcore.backends.cudnn",
    "tensorcore.random",
    "tensorcore.distributed",
    "tensorcore.multiprocessing",
    "tensorcore.profiler",
    "tensorcore.jit",
    "tensorcore.onnx",
    "tensorcore.fx",
    "tensorcore.utils.tensorboard",
    "tensorcore.vision.models",
    "tensorcore.vision.models.detection",
    "tensorcore.vision.models.segmentation",
    "tensorcore.vision.datasets",
    "tensorcore.vision.utils",
    "tensorcore.audio",
    "tensorcore.audio.models",
    "tensorcore.audio.datasets",
    "tensorcore.audio.sox_effects",
)

# Classes whose public methods are documented one by one (the others document their
# constructor and forward in the class docstring, as torch does).
CLASSES_WITH_METHODS = ("tensorcore.Tensor", "tensorcore.nn.Module", "tensorcore.optim.Optimizer")

_SIGNATURE_LINE = re.compile(r"^\s*(\d+\.\s*)?[\w.]+\(.*\)\s*(->.*)?$")


def resolve(qualname):
    """The object named by a dotted path (module, then attributes), or None when absent (an area
    left out of the build)."""
    parts = qualname.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def own_doc(obj):
    """The docstring written for obj itself (a class's own, not inherited from a base class)."""
    if isinstance(obj, type):
        doc = obj.__dict__.get("__doc__")
        if doc is not None and not isinstance(doc, str):  # a property (pybind11 enums)
            doc = obj.__doc__
    else:
        doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else ""


def doc_body(doc):
    """The docstring without pybind11's generated signature lines."""
    lines = [
        line
        for line in doc.splitlines()
        if not _SIGNATURE_LINE.match(line) and line.strip() != "Overloaded function."
    ]
    return "\n".join(lines).strip()


def is_documented(obj):
    """True when obj's docstring says something beyond its signature (a sentence of 3+ words)."""
    body = doc_body(own_doc(obj))
    return any(len(line.split()) >= 3 for line in body.splitlines())


def _is_tensorcore_object(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == "tensorcore" or module.startswith("tensorcore.")


def public_names(module):
    """{name: object} of a module's public functions and classes (its __all__ when it has one;
    otherwise its non-underscore callables that come from tensorcore, not re-exported
    imports such as `math` or `Optional`)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = {}
    for name in names:
        obj = getattr(module, name, None)
        if obj is None or isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        if not _is_tensorcore_object(obj):
            continue
        out[name] = obj
    return out


def public_methods(cls):
    """{name: object} of the public methods and properties a class defines itself."""
    out = {}
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        elif not isinstance(member, property):
            member = getattr(cls, name)
            if not callable(member):
                continue
        out[name] = member
    return out


def public_api():
    """[(qualified name, object)] of everything that must carry a docstring: the public modules
    themselves, their public names and the public methods of CLASSES_WITH_METHODS. An area left
    out of the build (TC_SKIP_AREAS) is skipped."""
    items = []
    for modname in PUBLIC_MODULES:
        module = resolve(modname)
        if module is None:
            continue
        items.append((modname, module))
        for name, obj in sorted(public_names(module).items()):
            items.append((f"{modname}.{name}", obj))
    for clsname in CLASSES_WITH_METHODS:
        cls = resolve(clsname)
        if cls is None:
            continue
        for name, obj in sorted(public_methods(cls).items()):
            items.append((f"{clsname}.{name}", obj))
    return items


def undocumented():
    """Sorted qualified names of the public API without a docstring beyond the signature."""
    return sorted(name for name, obj in public_api() if not is_documented(obj))


def is_routine(obj):
    return inspect.isroutine(obj) or hasattr(obj, "_tc_out")
