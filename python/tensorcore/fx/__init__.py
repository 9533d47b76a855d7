"""tensorcore.fx: symbolic tracing and graph transformation of Modules (torch.fx, as of 1.8).

    gm = tensorcore.fx.symbolic_trace(model)   # a GraphModule: same outputs, readable gm.code
    for node in gm.graph.nodes: ...            # edit the graph, then gm.recompile()

See docs/fx.md for the design (how tracing sees through tensorcore's native functions) and what
is and is not supported.
"""

from .graph import Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Attribute, GraphAppendingTracer, Proxy, TraceError
from ._symbolic_trace import PH, Tracer, is_fx_tracing, symbolic_trace, wrap
from . import passes, subgraph_rewriter  # noqa: F401
from .subgraph_rewriter import replace_pattern

__all__ = [
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "Attribute",
    "Tracer",
    "Transformer",
    "TraceError",
    "GraphAppendingTracer",
    "PythonCode",
    "PH",
    "has_side_effect",
    "is_fx_tracing",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]
