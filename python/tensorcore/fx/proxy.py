"""Proxy: the stand-in value that records, into a Graph, every operation applied to it."""

import builtins
import dis
import inspect
import operator
import traceback

from .graph import Graph
from .node import Node

__all__ = ["Proxy", "Attribute", "TraceError", "TracerBase", "GraphAppendingTracer"]


class TraceError(ValueError):
    """Raised when a program cannot be traced symbolically (control flow on a Proxy, ...)."""


class TracerBase:
    """Node creation and argument conversion shared by Tracer and Transformer."""

    graph: Graph
    record_stack_traces = False

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self.record_stack_traces:
            frames = [f for f in traceback.extract_stack() if "/tensorcore/fx/" not in f.filename]
            node.meta["stack_trace"] = "".join(traceback.format_list(frames[-1:]))
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        return self.proxy(self.create_node(kind, target, args_, kwargs_, name, type_expr))

    def create_arg(self, a):
        """Turns a value used as an argument into what a Node stores (Proxies become Nodes)."""
        if isinstance(a, Proxy):
            if a.tracer is not self:
                raise TraceError(
                    f"Proxy {a.node.name} belongs to another tracer; values cannot cross traces"
                )
            return a.node
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(e) for e in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(e) for e in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, (str, int, float, bool)) and k is not None:
                    raise TraceError(
                        f"dict keys used as graph arguments must be constants, got "
                        f"{type(k).__name__}"
                    )
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(a.start, a.stop, a.step)
        if isinstance(a, Node):
            raise TraceError(f"create_arg: got the Node {a.name} itself; pass its Proxy")
        return a

    def to_bool(self, obj):
        raise TraceError(
            f"symbolically traced variables cannot be used as inputs to control flow (the value "
            f"{obj.node.name} = {obj.node.format_node()}). Make the condition a concrete "
            f"argument with concrete_args, or move the branch into a leaf module or an "
            f"fx.wrap'ed function."
        )

    def iter(self, obj):
        raise TraceError(
            f"Proxy object {obj.node.name} cannot be iterated: its length is unknown while "
            "tracing. Unpack it into a fixed number of names (a, b = x), or fx.wrap the "
            "function that iterates over it."
        )

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (used by Transformer and by users building
    graphs by hand with Proxies)."""

    def __init__(self, graph):
        self.graph = graph


def _unpack_count():
    """How many values the bytecode calling Proxy.__iter__ unpacks (a, b = proxy), or None."""
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back
        lasti = caller.f_lasti
        for inst in dis.get_instructions(caller.f_code):
            if inst.offset == lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return inst.argval
                return None
        return None
    finally:
        del frame


class Proxy:
    """A value being traced: operators, indexing, attribute access and method calls on it add
    Nodes to its tracer's graph and return new Proxies."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __getitem__(self, idx):
        return self.tracer.create_proxy("call_function", operator.getitem, (self, idx), {})

    def __setitem__(self, idx, value):
        raise TraceError(
            f"in-place item assignment on the traced value {self.node.name} cannot be recorded; "
            "use an out-of-place op (index_put, masked_fill, tensorcore.where)"
        )

    def __iter__(self):
        n = _unpack_count()
        if n is not None:
            return iter([self[i] for i in range(n)])
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError(
            f"'len' is not supported in symbolic tracing by default (value {self.node.name}). "
            "If you want this call to be recorded, call tensorcore.fx.wrap('len') at module scope"
        )

    def __index__(self):
        raise TraceError(
            f"the traced value {self.node.name} was used where Python needs a concrete integer "
            "(range(), list indexing, ...); pass it as a concrete argument or wrap the code"
        )

    def __hash__(self):
        return id(self)

    def keys(self):
        return self.tracer.keys(self)

    def __deepcopy__(self, memo):
        raise TraceError(f"cannot deepcopy the traced value {self.node.name} while tracing")


class Attribute(Proxy):
    """``proxy.name``: becomes a getattr node when used as a value, or a call_method node when
    called (``x.size()``), without recording the unused getattr."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", builtins.getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _install_operators():
    binary = {
        "add": operator.add, "sub": operator.sub, "mul": operator.mul,
        "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
        "pow": operator.pow, "matmul": operator.matmul, "lshift": operator.lshift,
        "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    }  # fmt: skip
    compare = {
        "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
        "eq": operator.eq, "ne": operator.ne,
    }  # fmt: skip
    unary = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs}

    def forward(fn):
        def impl(self, other):
            return self.tracer.create_proxy("call_function", fn, (self, other), {})

        return impl

    def reflected(fn):
        def impl(self, other):
            return self.tracer.create_proxy("call_function", fn, (other, self), {})

        return impl

    def one(fn):
        def impl(self):
            return self.tracer.create_proxy("call_function", fn, (self,), {})

        return impl

    for stem, fn in binary.items():
        setattr(Proxy, f"__{stem}__", forward(fn))
        setattr(Proxy, f"__r{stem}__", reflected(fn))
    for stem, fn in compare.items():
        setattr(Proxy, f"__{stem}__", forward(fn))
    for stem, fn in unary.items():
        setattr(Proxy, f"__{stem}__", one(fn))


_install_operators()
