"""Node: one operation of a Graph (torch.fx.Node).

A node is one of six kinds (``op``): ``placeholder`` (a graph input), ``get_attr`` (a parameter,
buffer or submodule of the owning module), ``call_function`` (a free function, ``target`` is the
callable), ``call_module`` (``target`` is the submodule's qualified name), ``call_method``
(``target`` is a method name called on ``args[0]``) and ``output`` (the graph's return value).
Nodes form a doubly linked list owned by their Graph; ``users`` maps every node that reads this
one to None (an ordered set), kept up to date when ``args``/``kwargs`` change.
"""

import builtins
import operator

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

_OPS = ("placeholder", "get_attr", "call_function", "call_module", "call_method", "output", "root")

# Functions whose nodes eliminate_dead_code keeps even without users (input checks, asserts).
_side_effectful_functions = set()


def has_side_effect(fn):
    """Marks a function as side-effectful: its call_function nodes survive dead-code elimination
    (torch.fx.node.has_side_effect). Returns fn, so it works as a decorator."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a, fn):
    """Applies fn to every leaf of a nested structure of tuples, lists, dicts and slices."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(elem, fn) for elem in a)
        # Named tuples are rebuilt field by field.
        return mapped if type(a) is tuple or not hasattr(a, "_fields") else type(a)(*mapped)
    if isinstance(a, list):
        return [map_aggregate(elem, fn) for elem in a]
    if isinstance(a, dict):
        return type(a)((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(
            map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn)
        )
    return fn(a)


def map_arg(a, fn):
    """Applies fn to every Node inside a nested argument structure."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_target(target):
    if isinstance(target, str):
        return target
    from .graph import qualified_name

    qual = qualified_name(target)
    if qual is not None:
        return qual[len("builtins.") :] if qual.startswith("builtins.") else qual
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", repr(target))
    if module in (None, "builtins", "_operator"):
        return ("operator." if module == "_operator" else "") + name
    return f"{module}.{name}"


class Node:
    """One operation in a Graph; see the module docstring for the six kinds."""

    def __init__(self, graph, name, op, target, args, kwargs, type_expr=None):
        if op not in _OPS:
            raise ValueError(f"Node: op must be one of {_OPS[:-1]}, got {op!r}")
        if op == "call_function" and not callable(target):
            raise TypeError(
                f"Node {name!r}: call_function target must be callable, got "
                f"{type(target).__name__} {target!r}"
            )
        if op in ("call_module", "call_method", "get_attr", "placeholder") and not isinstance(
            target, str
        ):
            raise TypeError(
                f"Node {name!r}: the target of a {op} node must be a str, got "
                f"{type(target).__name__}"
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = type_expr
        self.meta = {}
        self._prev = self
        self._next = self
        self._erased = False
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(tuple(args), dict(kwargs))

    # ---- linked list ----
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Moves node x to sit just before this node."""
        if x is self:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves node x to sit just after this node."""
        self._next.prepend(x)

    # ---- arguments ----
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(tuple(map_arg(a, lambda n: n)), self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, dict(map_arg(k, lambda n: n)))

    @property
    def all_input_nodes(self):
        """The nodes this node reads, in order of first use."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        kwargs = dict(self._kwargs)
        kwargs[key] = arg
        self.kwargs = kwargs

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_arg(new_args, self._collect_input)
        self._kwargs = map_arg(new_kwargs, self._collect_input)
        for n in self._input_nodes:
            n.users.setdefault(self, None)

    def _collect_input(self, n):
        self._input_nodes.setdefault(n, None)
        return n

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True):
        """Makes every user of this node read replace_with instead; returns the changed users."""
        if not isinstance(replace_with, Node):
            raise TypeError(
                f"replace_all_uses_with: expected a Node, got {type(replace_with).__name__}"
            )
        changed = []
        for user in list(self.users):
            if user is replace_with or not delete_user_cb(user):
                continue
            user.replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Replaces every use of old_input in this node's args and kwargs by new_input."""

        def swap(n):
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ---- properties ----
    def is_impure(self):
        """Whether dead-code elimination must keep this node even without users."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        return False

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    def format_node(self):
        """One line: ``%name : [#users=n] = op[target=...](args = (...), kwargs = {...})``."""
        if self.op == "placeholder":
            default = f" = {self.args[0]!r}" if self.args else ""
            return f"%{self.name} : [#users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "output":
            return f"return {_format_arg(self.args[0])}"
        return (
            f"%{self.name} : [#users={len(self.users)}] = {self.op}[target={_format_target(self.target)}]"
            f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"
        )

    def __repr__(self):
        return self.name


def _format_arg(arg):
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        inner = ", ".join(_format_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + arg.name
    return repr(arg)


# The operators the code generator writes as Python syntax.
MAGIC_BINARY = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.matmul: "@",
    operator.lshift: "<<",
    operator.rshift: ">>",
    operator.and_: "&",
    operator.or_: "|",
    operator.xor: "^",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
    operator.eq: "==",
    operator.ne: "!=",
}
MAGIC_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
BUILTIN_GETATTR = builtins.getattr
