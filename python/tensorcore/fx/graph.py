"""Graph: the ordered list of Nodes of a traced program, and its Python code generator."""

import builtins
import keyword
import math
import operator
import re

from .node import MAGIC_BINARY, MAGIC_UNARY, Node, _format_target, map_arg

__all__ = ["Graph", "PythonCode"]


class PythonCode:
    """The generated source of forward() and the globals it needs."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


def _snake_case(s):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


_EMPTY = object()
_RESERVED = set(keyword.kwlist) | set(dir(builtins)) | {"self", "inf", "nan", "NoneType"}


class _Namespace:
    """Hands out unique valid identifiers derived from candidate names."""

    def __init__(self, reserved=()):
        self._used = set(reserved)
        self._counters = {}

    def create_name(self, candidate, obj=None):
        name = re.sub(r"[^0-9a-zA-Z_]+", "_", str(candidate)) or "_unnamed"
        if name[0].isdigit():
            name = "_" + name
        if name not in self._used and name not in _RESERVED:
            self._used.add(name)
            return name
        match = re.match(r"(.*)_(\d+)$", name)
        base = match.group(1) if match and name not in _RESERVED else name
        n = self._counters.get(base, 0)
        while True:
            n += 1
            cand = f"{base}_{n}"
            if cand not in self._used and cand not in _RESERVED:
                break
        self._counters[base] = n
        self._used.add(cand)
        return cand

    def release(self, name):
        self._used.discard(name)


# Public namespaces searched, in order, for a readable qualified name of a call_function target.
_READABLE_NAMESPACES = (
    "tensorcore",
    "tensorcore.nn.functional",
    "tensorcore.fft",
    "tensorcore.linalg",
    "tensorcore.vision.ops",
    "tensorcore.vision.transforms.functional",
    "tensorcore.audio.functional",
    "math",
)
_readable_names = {}


def _readable_name_table():
    """id(callable) -> (module name, attribute) for the public callables of the namespaces above.
    Built on first use; the originals are what nodes hold (tracing restores patched names)."""
    if _readable_names:
        return _readable_names
    import importlib
    import sys

    from . import _patching

    for modname in _READABLE_NAMESPACES:
        try:
            mod = sys.modules.get(modname) or importlib.import_module(modname)
        except ImportError:
            continue
        for attr, value in list(vars(mod).items()):
            if attr.startswith("_") or isinstance(value, type) or not callable(value):
                continue
            value = _patching.original_of(value)
            _readable_names.setdefault(id(value), (modname, attr, value))
    return _readable_names


def qualified_name(target):
    """'tensorcore.relu', 'tensorcore.nn.functional.conv2d', 'math.sqrt' or module.qualname when
    importable; None for lambdas, local functions and other unreachable callables."""
    entry = _readable_name_table().get(id(target))
    if entry is not None and entry[2] is target:
        return f"{entry[0]}.{entry[1]}"
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    import importlib

    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    from . import _patching

    return f"{module}.{qualname}" if _patching.original_of(obj) is target else None


def resolve_qualified_name(qualname):
    import importlib

    parts = qualname.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(f"cannot resolve {qualname!r}")


def _is_identifier_chain(s):
    return all(p.isidentifier() and not keyword.iskeyword(p) for p in s.split("."))


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.orig


class Graph:
    """A program as an ordered list of Nodes, with one ``output`` node at the end."""

    def __init__(self, owning_module=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = _Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module

    # ---- iteration ----
    @property
    def nodes(self):
        return _NodeList(self)

    def __len__(self):
        return self._len

    def find_nodes(self, op, target=None):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- creation ----
    def create_node(self, op, target=None, args=None, kwargs=None, name=None, type_expr=None):
        if op == "output" and any(n.op == "output" for n in self.nodes):
            raise RuntimeError("Graph.output: the graph already has an output node")
        candidate = name if name is not None else self._target_to_name(op, target)
        node_name = self._namespace.create_name(candidate)
        node = Node(self, node_name, op, target, args or (), kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def _target_to_name(self, op, target):
        if op == "placeholder":
            return str(target).lstrip("*")
        if op == "output":
            return "output"
        if isinstance(target, str):
            return _snake_case(target.replace(".", "_"))
        op_name = getattr(target, "__name__", None) or type(target).__name__
        return _snake_case(op_name.strip("_")) or "fn"

    def placeholder(self, name, type_expr=None, default_value=_EMPTY):
        args = () if default_value is _EMPTY else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copies node (of any graph) into this one, mapping its input nodes with arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies every node of g but its output into this graph; val_map maps g's nodes to the
        copies (pre-filled entries are used as is). Returns the value g's output would return."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                out = map_arg(node.args[0], lambda n: val_map[n])
                return (out, node) if return_output_node else out
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    # ---- editing ----
    def inserting_before(self, n=None):
        """Context manager: nodes created inside it go just before n (default: graph start)."""
        if n is None:
            return self.inserting_after(None)
        self._check_own(n, "inserting_before")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """Context manager: nodes created inside it go just after n (default: graph start), in
        the order they are created."""
        if n is None:
            return _InsertPoint(self, self._root.next.prepend)
        self._check_own(n, "inserting_after")
        return _InsertPoint(self, _AfterInserter(n))

    def _check_own(self, n, what):
        if not isinstance(n, Node) or n.graph is not self or n._erased:
            raise ValueError(f"Graph.{what}: {n!r} is not a node of this graph")

    def erase_node(self, to_erase):
        """Removes a node that no other node uses."""
        self._check_own(to_erase, "erase_node")
        if to_erase.users:
            users = ", ".join(u.name for u in to_erase.users)
            raise RuntimeError(
                f"Tried to erase Node {to_erase.name} but it still has {len(to_erase.users)} "
                f"user(s) in the graph: {users}"
            )
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        self._namespace.release(to_erase.name)
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self):
        """Erases, last to first, every node whose result nobody uses (placeholders, outputs and
        side-effectful calls stay). Returns whether the graph changed."""
        changed = False
        for node in reversed(list(self.nodes)):
            if not node.users and not node.is_impure():
                self.erase_node(node)
                changed = True
        return changed

    # ---- checking ----
    def lint(self):
        """Checks the graph is well formed; raises RuntimeError naming the offending node."""
        seen = set()
        names = set()
        output_seen = False
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node.name}' does not belong to this graph")
            if node.name in names:
                raise RuntimeError(f"Node name '{node.name}' is used by two nodes")
            names.add(node.name)
            if output_seen:
                raise RuntimeError(f"Node '{node.name}' comes after the graph's output node")
            for arg in node._input_nodes:
                if arg.graph is not self or arg._erased:
                    raise RuntimeError(
                        f"Argument '{arg.name}' of Node '{node.name}' is not in the graph "
                        "(it was erased or belongs to another graph)"
                    )
                if arg not in seen:
                    raise RuntimeError(
                        f"Argument '{arg.name}' of Node '{node.name}' was used before it has "
                        "been defined"
                    )
                if node not in arg.users:
                    raise RuntimeError(f"Node '{arg.name}' does not list its user '{node.name}'")
            for user in node.users:
                if node not in user._input_nodes:
                    raise RuntimeError(
                        f"Node '{node.name}' lists '{user.name}' as a user, but it does not use it"
                    )
                if user._erased or user.graph is not self:
                    raise RuntimeError(
                        f"Node '{node.name}' is used by '{user.name}', which is not in the graph"
                    )
            if node.op == "output":
                output_seen = True
            self._lint_target(node)
            seen.add(node)
        if not output_seen:
            raise RuntimeError("Graph has no output node")

    def _lint_target(self, node):
        m = self.owning_module
        if m is None or node.op not in ("get_attr", "call_module"):
            return
        obj = m
        for i, atom in enumerate(node.target.split(".")):
            if not hasattr(obj, atom):
                seen_path = ".".join(node.target.split(".")[:i])
                raise RuntimeError(
                    f"Node '{node.name}' target {node.target} references nonexistent attribute "
                    f"{atom} of {seen_path or 'the root module'}"
                )
            obj = getattr(obj, atom)
        from ..nn import Module

        if node.op == "call_module" and not isinstance(obj, Module):
            raise RuntimeError(
                f"Node '{node.name}' target {node.target} is not a Module "
                f"(got {type(obj).__name__})"
            )

    # ---- printing ----
    def __str__(self):
        lines = ["graph():"]
        lines += ["    " + n.format_node() for n in self.nodes]
        return "\n".join(lines)

    def print_tabular(self):
        """Prints opcode, name, target, args and kwargs of every node as a table (tabulate's
        layout when the package is installed, plain aligned columns otherwise)."""
        headers = ["opcode", "name", "target", "args", "kwargs"]
        rows = [
            [n.op, n.name, _format_target(n.target), repr(n.args), repr(n.kwargs)]
            for n in self.nodes
        ]
        try:
            from tabulate import tabulate
        except ImportError:
            widths = [max(len(r[i]) for r in rows + [headers]) for i in range(len(headers))]
            fmt = "  ".join("{:<%d}" % w for w in widths)
            print(fmt.format(*headers))
            print(fmt.format(*["-" * w for w in widths]))
            for r in rows:
                print(fmt.format(*r))
            return
        print(tabulate(rows, headers=headers))

    # ---- code generation ----
    def python_code(self, root_module="self"):
        return _CodeGen(self, root_module).generate()

    # ---- pickling (the nodes hold references, so they are stored by name) ----
    def __getstate__(self):
        records = []
        for n in self.nodes:
            target = n.target
            if n.op == "call_function":
                qual = qualified_name(target)
                target = ("qualified", qual) if qual is not None else ("object", target)

            def to_ref(x):
                return _NodeRef(x.name)

            records.append(
                (
                    n.name,
                    n.op,
                    target,
                    map_arg(n.args, to_ref),
                    map_arg(n.kwargs, to_ref),
                    n.type,
                    n.meta,
                )
            )
        return {"records": records}

    def __setstate__(self, state):
        self.__init__()
        env = {}

        def from_ref(x):
            from .node import map_aggregate

            return map_aggregate(x, lambda v: env[v.name] if isinstance(v, _NodeRef) else v)

        for name, op, target, args, kwargs, type_expr, meta in state["records"]:
            if op == "call_function":
                kind, value = target
                target = resolve_qualified_name(value) if kind == "qualified" else value
            node = self.create_node(op, target, from_ref(args), from_ref(kwargs), name, type_expr)
            node.meta = meta
            env[name] = node

    def __deepcopy__(self, memo):
        import copy

        g = Graph()
        memo[id(self)] = g
        val_map = {}
        out = g.graph_copy(self, val_map)
        for old, new in val_map.items():
            new.meta = copy.deepcopy(old.meta, memo)
        if out is not None or any(n.op == "output" for n in self.nodes):
            g.output(out)
        return g


class _NodeRef:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __getstate__(self):
        return self.name

    def __setstate__(self, name):
        self.name = name


class _AfterInserter:
    """Inserts after n, then after the node just inserted, so creation order is kept."""

    def __init__(self, n):
        self.last = n

    def __call__(self, node):
        self.last.append(node)
        self.last = node


class _NodeList:
    def __init__(self, graph, reverse=False):
        self.graph = graph
        self.reverse = reverse

    def __len__(self):
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = root.prev if self.reverse else root.next
        while cur is not root:
            nxt = cur.prev if self.reverse else cur.next
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self.graph, not self.reverse))


class _CodeGen:
    def __init__(self, graph, root_module):
        self.graph = graph
        self.root = root_module
        self.globals = {}
        self.global_names = {}
        self.ns = _Namespace(reserved={n.name for n in graph.nodes})

    def add_global(self, hint, obj):
        key = id(obj)
        if key in self.global_names:
            return self.global_names[key]
        name = self.ns.create_name(hint)
        self.globals[name] = obj
        self.global_names[key] = name
        return name

    def _function_ref(self, fn):
        qual = qualified_name(fn)
        if qual is not None and qual.startswith("builtins.") and qual.count(".") == 1:
            return qual.split(".")[1]  # builtins need no import (node names never shadow them)
        if qual is not None and _is_identifier_chain(qual):
            top = qual.split(".")[0]
            if self.globals.get(top) is None:
                import importlib

                self.globals[top] = importlib.import_module(top)
                self.ns._used.add(top)
            return qual
        return self.add_global(getattr(fn, "__name__", "fn"), fn)

    def _repr(self, arg):
        if isinstance(arg, Node):
            return arg.name
        if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
            inner = ", ".join(self._repr(a) for a in arg)
            return f"({inner},)" if len(arg) == 1 else f"({inner})"
        if isinstance(arg, list):
            return "[" + ", ".join(self._repr(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return (
                "{" + ", ".join(f"{self._repr(k)}: {self._repr(v)}" for k, v in arg.items()) + "}"
            )
        if isinstance(arg, slice):
            return f"slice({self._repr(arg.start)}, {self._repr(arg.stop)}, {self._repr(arg.step)})"
        if arg is None or arg is Ellipsis or isinstance(arg, (bool, int, str, bytes)):
            return repr(arg)
        if isinstance(arg, float):
            if math.isnan(arg) or math.isinf(arg):
                return f"float({str(arg)!r})"
            return repr(arg)
        if isinstance(arg, complex):
            return f"complex({arg.real!r}, {arg.imag!r})"
        from .._C import device, dtype

        if isinstance(arg, dtype):
            return repr(arg)
        if isinstance(arg, device):
            return f"tensorcore.device({str(arg)!r})"
        hint = getattr(arg, "__name__", None) or _snake_case(type(arg).__name__)
        return self.add_global(hint, arg)

    def _args(self, args, kwargs):
        parts = [self._repr(a) for a in args]
        parts += [f"{k} = {self._repr(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def generate(self):
        self.globals["tensorcore"] = _tensorcore_module()
        self.ns._used.add("tensorcore")
        nodes = list(self.graph.nodes)
        # The last use of each value: the line after it frees the variable (peak memory).
        last_use = {}
        for node in nodes:
            for inp in node._input_nodes:
                last_use[inp] = node
        frees = {}
        for value, user in last_use.items():
            frees.setdefault(user, []).append(value)
        params, body = [], []
        for node in nodes:
            line = self._emit(node, params)
            if line is None:
                continue
            dead = [v.name for v in frees.get(node, [])]
            if node.op != "output" and dead:
                line += ";  " + " = ".join(dead) + " = None"
            body.append(line)
        if not body or not nodes or nodes[-1].op != "output":
            body.append("return None")
        src = f"\n\ndef forward({', '.join([self.root] + params)}):\n"
        src += "".join(f"    {line}\n" for line in body)
        return PythonCode(src, self.globals)

    def _emit(self, node, params):
        name = node.name
        if node.op == "placeholder":
            param = str(node.target)
            if node.args:
                param += f" = {self._repr(node.args[0])}"
            params.append(param)
            if node.name != str(node.target).lstrip("*"):
                return f"{name} = {str(node.target).lstrip('*')}"
            return None
        if node.op == "get_attr":
            return f"{name} = {_attr_chain(self.root, node.target)}"
        if node.op == "call_module":
            return f"{name} = {_attr_chain(self.root, node.target)}({self._args(node.args, node.kwargs)})"
        if node.op == "call_method":
            obj, rest = node.args[0], node.args[1:]
            return f"{name} = {self._repr(obj)}.{node.target}({self._args(rest, node.kwargs)})"
        if node.op == "output":
            return f"return {self._repr(node.args[0])}"
        target = node.target
        if target in MAGIC_BINARY and len(node.args) == 2 and not node.kwargs:
            a, b = node.args
            return f"{name} = {self._repr(a)} {MAGIC_BINARY[target]} {self._repr(b)}"
        if target in MAGIC_UNARY and len(node.args) == 1 and not node.kwargs:
            return f"{name} = {MAGIC_UNARY[target]}{self._repr(node.args[0])}"
        if target is operator.getitem and len(node.args) == 2 and not node.kwargs:
            return f"{name} = {self._repr(node.args[0])}[{_index_repr(self, node.args[1])}]"
        if (
            target is builtins.getattr
            and len(node.args) == 2
            and isinstance(node.args[1], str)
            and node.args[1].isidentifier()
            and not node.kwargs
        ):
            return f"{name} = {self._repr(node.args[0])}.{node.args[1]}"
        return f"{name} = {self._function_ref(target)}({self._args(node.args, node.kwargs)})"


def _index_repr(gen, idx):
    def one(i):
        if isinstance(i, slice):
            parts = [gen._repr(p) if p is not None else "" for p in (i.start, i.stop)]
            s = ":".join(parts)
            return s + (f":{gen._repr(i.step)}" if i.step is not None else "")
        if i is Ellipsis:
            return "..."
        return gen._repr(i)

    if isinstance(idx, tuple) and idx and not hasattr(idx, "_fields"):
        return ", ".join(one(i) for i in idx) + ("," if len(idx) == 1 else "")
    return one(idx)


def _attr_chain(root, target):
    out = root
    for atom in target.split("."):
        if atom.isidentifier() and not keyword.iskeyword(atom):
            out += f".{atom}"
        else:
            out = f"getattr({out}, {atom!r})"
    return out


def _tensorcore_module():
    import tensorcore

    return tensorcore
