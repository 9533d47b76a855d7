"""Interpreter (runs a GraphModule node by node) and Transformer (rebuilds it into a new one)."""

from .graph import Graph
from .graph_module import GraphModule
from .node import map_arg
from .proxy import GraphAppendingTracer, Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs a GraphModule's graph one node at a time; override run_node or the per-op methods
    (placeholder, get_attr, call_function, call_module, call_method, output) to change what each
    node does. garbage_collect_values drops values after their last use."""

    def __init__(self, module, garbage_collect_values=True):
        if not isinstance(module, GraphModule):
            raise TypeError(f"Interpreter: expected a GraphModule, got {type(module).__name__}")
        self.module = module
        self.submodules = dict(module.named_modules())
        self.env = {}
        self.garbage_collect_values = garbage_collect_values
        self.user_to_last_uses = {}
        if garbage_collect_values:
            seen = set()
            for node in reversed(module.graph.nodes):
                for inp in node.all_input_nodes:
                    if inp not in seen:
                        seen.add(inp)
                        self.user_to_last_uses.setdefault(node, []).append(inp)

    def run(self, *args, initial_env=None):
        """Runs the graph on args; returns what its output node returns."""
        self.env = dict(initial_env) if initial_env is not None else {}
        placeholders = [n for n in self.module.graph.nodes if n.op == "placeholder"]
        if len(args) > len(placeholders) and not any(
            str(p.target).startswith("*") for p in placeholders
        ):
            raise TypeError(
                f"{type(self).__name__}.run: the graph takes {len(placeholders)} input(s) "
                f"({', '.join(p.name for p in placeholders)}), got {len(args)}"
            )
        self.args_iter = iter(args)
        for node in self.module.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if not getattr(e, "_fx_annotated", False):
                    msg = f"While executing {node.format_node()}"
                    e.args = (f"{e.args[0]}\n\n{msg}",) + e.args[1:] if e.args else (msg,)
                    e._fx_annotated = True
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- per-op ----
    def placeholder(self, target, args, kwargs):
        if str(target).startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from None

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ---- helpers ----
    def fetch_attr(self, target):
        obj = self.module
        for i, atom in enumerate(target.split(".")):
            if not hasattr(obj, atom):
                raise RuntimeError(
                    f"Node referenced nonexistent target {'.'.join(target.split('.')[: i + 1])}"
                )
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(a):
            if a not in self.env:
                raise RuntimeError(f"Node {n.name} referenced nonexistent value {a.name}!")
            return self.env[a]

        return map_arg(args, load)


class Transformer(Interpreter):
    """Runs the graph on Proxies to build a new one: override the per-op methods to return
    something else, then call transform() to get the new GraphModule."""

    def __init__(self, module):
        super().__init__(module, garbage_collect_values=False)
        self.new_graph = Graph()
        self.tracer = GraphAppendingTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        if args:
            node = self.new_graph.placeholder(target, default_value=args[0])
        else:
            node = self.new_graph.placeholder(target)
        return Proxy(node, self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target, args, kwargs):
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def transform(self):
        """Runs the transformation; returns the new GraphModule (sharing the submodules)."""
        result = super().run()
        if result is not None:
            self.new_graph.output(self.tracer.create_arg(result))
        return GraphModule(self.module, self.new_graph, type(self.module).__name__)
