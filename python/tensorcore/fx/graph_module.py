"""GraphModule: a Module whose forward is Python code generated from a Graph."""

import copy
import itertools
import linecache

from ..nn import Module
from .graph import Graph

__all__ = ["GraphModule"]

_source_counter = itertools.count()


def _forward_from_src(src, globals_, qualname):
    """Compiles generated source; it is registered with linecache so tracebacks show its lines."""
    key = f"<fx-generated {qualname} #{next(_source_counter)}>"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    namespace = dict(globals_)
    exec(compile(src, key, "exec"), namespace)
    fn = namespace["forward"]
    fn.__qualname__ = f"{qualname}.forward"
    try:
        fn.__code__ = fn.__code__.replace(co_qualname=fn.__qualname__)
    except (TypeError, ValueError):
        pass  # Python < 3.11: argument errors then name plain forward()
    return fn


def _copy_attr(from_module, to_module, target):
    """Copies from_module's `a.b.c` into to_module, creating plain Modules for missing parents;
    the objects are shared, not copied (as torch.fx)."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # already installed (shared parent)
        if t is None:
            t = Module()
            t.training = getattr(f, "training", True)
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    _assign(to_module, field, orig)


def _assign(to_module, field, value):
    from .._C import Tensor
    from ..nn import Parameter

    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _assign_attr(value, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    _assign(to_module, field, value)


class GraphModule(Module):
    """A Module built from a root (a Module or {qualified name: value}) and a Graph: the
    submodules, parameters and buffers the graph names are copied over, and forward is the code
    generated from the graph (``gm.code``). After editing ``gm.graph``, call ``gm.recompile()``;
    assigning ``gm.graph = g`` recompiles."""

    def __new__(cls, *args, **kwargs):
        # Each instance gets its own class, so that recompile() can set forward on it.
        for base in cls.__mro__:
            if not base.__dict__.get("_fx_instance_class", False):
                cls = base
                break
        impl = type(cls.__name__, (cls,), {"_fx_instance_class": True})
        return super().__new__(impl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphModule: graph must be a Graph, got {type(graph).__name__}")
        if isinstance(root, Module):
            self.training = getattr(root, "training", True)
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    try:
                        _copy_attr(root, self, node.target)
                    except AttributeError:
                        raise RuntimeError(
                            f"Node '{node.name}' references target '{node.target}', which the "
                            f"root module ({type(root).__name__}) does not have"
                        ) from None
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node '{node.name}' referenced target {node.target} but that target "
                            "was not provided in ``root``!"
                        )
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise TypeError(
                f"GraphModule: root must be a Module or a dict, got {type(root).__name__}"
            )
        self.graph = graph

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"GraphModule.graph must be a Graph, got {type(g).__name__}")
        object.__setattr__(self, "_graph", g)
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of forward(), as generated from the graph."""
        return self._code

    def recompile(self):
        """Regenerates forward() from self.graph; returns the PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        object.__setattr__(self, "_code", python_code.src)
        type(self).forward = _forward_from_src(
            python_code.src, python_code.globals, type(self).__name__
        )
        return python_code

    def print_readable(self, print_output=True):
        src = f"class {type(self).__name__}(tensorcore.nn.Module):" + "\n".join(
            "    " + line if line else line for line in self._code.split("\n")
        )
        if print_output:
            print(src)
        return src

    def add_submodule(self, target, m):
        """Installs m at the dotted path target, creating plain parent Modules as needed."""
        _assign_attr(m, self, target)
        return True

    def delete_submodule(self, target):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            mod = getattr(mod, item, None)
            if not isinstance(mod, Module):
                return False
        if not isinstance(getattr(mod, field, None), Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        """Deletes submodules that no call_module or get_attr node uses (nor their parents)."""
        used = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                used.update(".".join(parts[: i + 1]) for i in range(len(parts)))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.update(
                        f"{node.target}.{n}" if n else node.target for n, _ in sub.named_modules()
                    )
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    def to_folder(self, folder, module_name="FxModule"):
        """Writes this module as a Python package: ``folder/module.py`` holds a Module class with
        the generated forward as source you can edit; its direct children are pickled next to it
        (``<name>.pt``), root-level parameters and buffers go into ``root_tensors.pt``, and
        globals of the code that no import reaches into ``globals.pt``. ``from folder import
        module_name`` then builds it. Loading runs pickled code (tc.load with weights_only=False):
        only load folders you wrote."""
        import os

        from .. import serialization

        if not module_name.isidentifier():
            raise ValueError(f"to_folder: module_name must be an identifier, got {module_name!r}")
        os.makedirs(folder, exist_ok=True)
        python_code = self._graph.python_code(root_module="self")
        extra = {k: v for k, v in python_code.globals.items() if k != "tensorcore"}
        init_lines = []
        for name, child in self.named_children():
            serialization.save(child, os.path.join(folder, f"{name}.pt"))
            init_lines.append(f"setattr(self, {name!r}, _load({name + '.pt'!r}))")
        tensors = {
            "parameters": {k: v.detach() for k, v in self._parameters.items() if v is not None},
            "buffers": {k: v for k, v in self._buffers.items() if v is not None},
        }
        serialization.save(tensors, os.path.join(folder, "root_tensors.pt"))
        init_lines.append("tensors = _load('root_tensors.pt')")
        init_lines.append("for name, value in tensors['parameters'].items():")
        init_lines.append("    self.register_parameter(name, Parameter(value))")
        init_lines.append("for name, value in tensors['buffers'].items():")
        init_lines.append("    self.register_buffer(name, value)")
        header = [
            "import os",
            "",
            "import tensorcore",
            "from tensorcore.nn import Module, Parameter",
            "",
            "_here = os.path.dirname(os.path.abspath(__file__))",
            "",
            "",
            "def _load(name):",
            "    return tensorcore.load(os.path.join(_here, name), weights_only=False)",
            "",
        ]
        if extra:
            serialization.save(extra, os.path.join(folder, "globals.pt"))
            header.append("")
            header.append("globals().update(_load('globals.pt'))")
        body = "\n".join(header) + f"\n\n\nclass {module_name}(Module):\n"
        body += "    def __init__(self):\n        super().__init__()\n"
        body += "".join(f"        {line}\n" for line in init_lines)
        body += "".join(
            f"    {line}\n" if line else "\n" for line in python_code.src.strip("\n").split("\n")
        )
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write(body.replace("\ndef forward", "\n\n    def forward", 1))
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write(f"from .module import {module_name}  # noqa: F401\n")

    def __str__(self):
        return super().__repr__() + "\n\n" + self._code

    # ---- copying and pickling: the per-instance class is rebuilt, not pickled ----
    def __reduce__(self):
        body = {k: v for k, v in self.__dict__.items() if k != "_code"}
        return (_rebuild_graph_module, (body, type(self).__name__))

    def __deepcopy__(self, memo):
        body = copy.deepcopy({k: v for k, v in self.__dict__.items() if k != "_code"}, memo)
        result = _rebuild_graph_module(body, type(self).__name__)
        memo[id(self)] = result
        return result

    def __copy__(self):
        return GraphModule(self, self._graph, type(self).__name__)


def _rebuild_graph_module(body, class_name):
    root = Module()
    root.__dict__.update(body)
    graph = body["_graph"]
    gm = GraphModule(root, graph, class_name)
    for key, value in body.items():
        if key not in gm.__dict__ and not key.startswith("_"):
            gm.__dict__[key] = value
    return gm
