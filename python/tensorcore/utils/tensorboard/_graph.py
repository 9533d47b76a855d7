"""GraphDefs for TensorBoard's graph view: from a model traced by tc.fx, or from an ONNX file.

TensorBoard groups nodes by the '/'-separated scopes of their names, so module calls are named
after their attribute path (``ResNet/layer1/0/conv1``) as torch's add_graph names them, and the
graph inputs and outputs sit in the ``input`` and ``output`` scopes with op "IO Node".
"""

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef


def _shape_attr(shapes):
    protos = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in s]) for s in shapes]
    return AttrValue(list=AttrValue.ListValue(shape=protos))


def _result_shapes(node):
    """Shapes of the tensors a node produced in ShapeProp's run (none without example inputs)."""
    meta = node.meta.get("tensor_meta")
    found = []

    def visit(m):
        if hasattr(m, "shape"):
            found.append(tuple(m.shape))
        elif isinstance(m, (list, tuple)):
            for item in m:
                visit(item)
        elif isinstance(m, dict):
            for item in m.values():
                visit(item)

    visit(meta)
    return found


def _op_name(node, modules):
    if node.op == "call_module":
        return type(modules[node.target]).__name__
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op == "get_attr":
        return "Parameter"
    target = node.target
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", str(target))
    return f"{module}.{name}" if module and not module.startswith("_operator") else name


def graph_def_from_model(model, inputs, verbose=False):
    """Traces ``model`` with tc.fx (running ShapeProp on ``inputs`` when given, for the edge
    shapes) and returns a GraphDef with one node per graph node."""
    from ... import fx

    try:
        traced = fx.symbolic_trace(model)
    except Exception as e:
        raise RuntimeError(
            f"SummaryWriter.add_graph: tensorcore.fx could not trace {type(model).__name__} "
            f"({type(e).__name__}: {e}); add_graph needs a model that symbolic_trace accepts"
        ) from e
    if inputs is not None:
        from ...fx.passes.shape_prop import ShapeProp

        args = inputs if isinstance(inputs, (list, tuple)) else (inputs,)
        ShapeProp(traced).propagate(*args)
    if verbose:
        print(traced.graph)
    modules = dict(traced.named_modules())
    scope = type(model).__name__
    names = {}
    for node in traced.graph.nodes:
        if node.op == "placeholder":
            names[node] = f"input/{node.name}"
        elif node.op == "output":
            names[node] = "output/output.1"
        elif node.op in ("call_module", "get_attr"):
            names[node] = f"{scope}/{node.target.replace('.', '/')}"
        else:
            names[node] = f"{scope}/{node.name}"
    nodes = []
    for node in traced.graph.nodes:
        inputs_of = [names[n] for n in node.all_input_nodes]
        op = "IO Node" if node.op in ("placeholder", "output") else _op_name(node, modules)
        attr = {}
        if node.op == "output":
            shapes = [s for arg in node.all_input_nodes for s in _result_shapes(arg)]
        else:
            shapes = _result_shapes(node)
        if shapes:
            attr["_output_shapes"] = _shape_attr(shapes)
        if node.op in ("call_function", "call_method") and node.kwargs:
            attr["attr"] = AttrValue(s=repr(dict(node.kwargs)).encode())
        nodes.append(
            NodeDef(name=names[node], op=op, input=inputs_of, device="/device:CPU:0", attr=attr)
        )
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def graph_def_from_onnx(path):
    """The graph of an ONNX file (as written by tc.onnx.export) as a GraphDef."""
    import onnx

    try:
        model = onnx.load(str(path))
    except Exception as e:
        raise ValueError(
            f"SummaryWriter.add_onnx_graph: cannot read ONNX file {path!r}: {e}"
        ) from e
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    # ONNX edges are value names; a node is named after its first output (as torch does) and
    # every output it makes resolves to it
    producer = {}
    for i, node in enumerate(graph.node):
        first = node.output[0] if node.output else f"{node.op_type}_{i}"
        for out in node.output:
            producer[out] = first
    nodes = []
    for value in graph.input:
        if value.name in initializers:
            continue
        dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
        attr = {"_output_shapes": _shape_attr([dims])} if dims else {}
        nodes.append(NodeDef(name=value.name, op="IO Node", attr=attr))
    for i, node in enumerate(graph.node):
        attr = {
            a.name: AttrValue(s=str(onnx.helper.get_attribute_value(a)).encode())
            for a in node.attribute
        }
        inputs = [producer.get(x, x) for x in node.input if x and x not in initializers]
        name = node.output[0] if node.output else f"{node.op_type}_{i}"
        nodes.append(NodeDef(name=name, op=node.op_type, input=inputs, attr=attr))
    for value in graph.output:
        nodes.append(
            NodeDef(
                name=f"output/{value.name}",
                op="IO Node",
                input=[producer.get(value.name, value.name)],
            )
        )
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
