"""ONNX export (``tc.onnx.export``, torch.onnx's name and arguments), opset 17.

The model is traced with ``tc.jit.trace`` and each recorded native op is written as ONNX nodes
through the ``onnx`` package (from the package index; ``scripts/setup.sh`` installs it). The
classification, segmentation and detection models export (the detection models' native ops
are decomposed into standard ONNX ops, ``_detection.py``); an op without a converter raises
NotImplementedError naming it. See docs/jit.md.
"""

import json
import os
import warnings

import numpy as np

from . import _detection

__all__ = ["export", "supported_ops"]

_OPSET = 17


def _onnx():
    try:
        import onnx
    except ImportError as e:  # pragma: no cover - the tests need it
        raise ImportError("tc.onnx.export needs the onnx package (pip install onnx)") from e
    return onnx


class _Builder:
    def __init__(self, constants):
        self.onnx = _onnx()
        self.inputs = []  # graph inputs with the traced (static) shapes, for static_shape
        self.fixed_size = []  # what ties the file to the traced spatial size
        self.helper = self.onnx.helper
        self.nodes = []
        self.initializers = {}
        self.constants = constants  # index -> (name, numpy array)
        self.counter = 0

    def fresh(self, hint="t"):
        self.counter += 1
        return f"{hint}_{self.counter}"

    def init(self, array, hint="const"):
        name = self.fresh(hint)
        self.initializers[name] = np.asarray(array)
        return name

    def node(self, op, inputs, outputs=None, **attrs):
        outputs = outputs or [self.fresh(op.lower())]
        # Named nodes: onnxruntime's fusions name the nodes they make after the originals and
        # reject duplicate names (several Slice/Gather of one tensor, as in box decoding).
        name = self.fresh(f"{op}_node")
        self.nodes.append(self.helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def static_shape(self, name):
        """The shape `name` has for the traced inputs, by ONNX shape inference over the nodes
        written so far (initializers enter as shapes only, so no weights are copied)."""
        onnx, helper = self.onnx, self.helper
        consts = [
            helper.make_tensor_value_info(
                n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape)
            )
            for n, a in self.initializers.items()
        ]
        graph = helper.make_graph(
            self.nodes,
            "probe",
            self.inputs + consts,
            [helper.make_value_info(name, onnx.TypeProto())],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
        inferred = onnx.shape_inference.infer_shapes(model)
        for info in list(inferred.graph.value_info) + list(inferred.graph.output):
            if info.name == name and info.type.tensor_type.HasField("shape"):
                dims = info.type.tensor_type.shape.dim
                if all(d.HasField("dim_value") for d in dims):
                    return [d.dim_value for d in dims]
        return None

    def name(self, arg, dtype=np.float32):
        """The ONNX name of an argument: a value, a constant (an initializer) or a number."""
        if isinstance(arg, dict) and "v" in arg:
            return f"v{arg['v']}"
        if isinstance(arg, dict) and "c" in arg:
            cname, array = self.constants[arg["c"]]
            self.initializers.setdefault(cname, array)
            return cname
        if isinstance(arg, (bool, int, float)):
            return self.init(np.array(arg, dtype=dtype), "scalar")
        raise NotImplementedError(f"tc.onnx.export: cannot express the argument {arg!r}")


def _ints(arg):
    if isinstance(arg, dict):
        arg = arg.get("t", arg.get("l"))
    if isinstance(arg, int):
        return [arg]
    return [int(v) for v in arg]


def _spatial(arg, n):
    v = _ints(arg)
    return v * n if len(v) == 1 else v


def _conv(b, args, out, dims):
    x, w, bias, stride, padding, dilation, groups = args
    if isinstance(padding, dict) and "s" in padding:
        raise NotImplementedError("tc.onnx.export: string conv padding is not supported")
    pads = _spatial(padding, dims)
    inputs = [b.name(x), b.name(w)] + ([b.name(bias)] if bias is not None else [])
    b.node(
        "Conv",
        inputs,
        out,
        strides=_spatial(stride, dims),
        pads=pads + pads,
        dilations=_spatial(dilation, dims),
        group=int(groups),
    )


def _batch_norm(b, args, out):
    x, mean, var, weight, bias, training, _momentum, eps = args
    if training:
        raise NotImplementedError("tc.onnx.export: batch_norm in training mode")
    c = b.constants[mean["c"]][1].shape[0]
    w = b.name(weight) if weight is not None else b.init(np.ones(c, np.float32))
    bb = b.name(bias) if bias is not None else b.init(np.zeros(c, np.float32))
    b.node(
        "BatchNormalization", [b.name(x), w, bb, b.name(mean), b.name(var)], out, epsilon=float(eps)
    )


def _max_pool(b, args, out):
    x, kernel, stride, padding, dilation, ceil_mode, return_indices = args
    if return_indices:
        raise NotImplementedError("tc.onnx.export: max_pool2d with return_indices")
    k = _spatial(kernel, 2)
    s = _spatial(stride, 2) if stride is not None else k
    p = _spatial(padding, 2)
    b.node(
        "MaxPool",
        [b.name(x)],
        out,
        kernel_shape=k,
        strides=s,
        pads=p + p,
        dilations=_spatial(dilation, 2),
        ceil_mode=int(bool(ceil_mode)),
    )


def _adaptive_avg_pool(b, args, out):
    x, size = args
    size = _spatial(size, 2)
    if size == [1, 1]:
        b.node("GlobalAveragePool", [b.name(x)], out)
        return
    # As torch.onnx: an AveragePool when the traced input size is a multiple of the output size
    # (each output cell then averages a fixed window); the file is for inputs of that size.
    shape = b.static_shape(b.name(x))
    if shape is None:
        raise NotImplementedError(
            f"tc.onnx.export: adaptive_avg_pool2d to {tuple(size)}: the input size is unknown "
            "at export time"
        )
    hw = shape[-2:]
    if any(s is None or s <= 0 or i % s for i, s in zip(hw, size)):
        raise NotImplementedError(
            f"tc.onnx.export: adaptive_avg_pool2d from {tuple(hw)} to {tuple(size)}: ONNX export "
            "needs an input size that is a multiple of the output size (torch.onnx's limit); "
            "trace with an input whose feature map divides it (e.g. 224x224 for VGG's 7x7)"
        )
    kernel = [i // s for i, s in zip(hw, size)]
    b.fixed_size.append(f"adaptive_avg_pool2d from {tuple(hw)} to {tuple(size)}")
    if kernel == [1, 1]:
        b.node("Identity", [b.name(x)], out)
    else:
        b.node("AveragePool", [b.name(x)], out, kernel_shape=kernel, strides=kernel)


def _flatten(b, args, out):
    x, start, end = (list(args) + [0, -1])[:3]
    if end != -1:
        raise NotImplementedError("tc.onnx.export: flatten with end_dim other than -1")
    b.node("Flatten", [b.name(x)], out, axis=int(start))


def _addmm(b, args, out):
    bias, m1, m2, beta, alpha = (list(args) + [1, 1])[:5]
    b.node(
        "Gemm", [b.name(m1), b.name(m2), b.name(bias)], out, alpha=float(alpha), beta=float(beta)
    )


def _binary(op, reverse=False):
    def convert(b, args, out):
        x, y = b.name(args[0]), b.name(args[1])
        b.node(op, [y, x] if reverse else [x, y], out)

    return convert


def _unary(op):
    return lambda b, args, out: b.node(op, [b.name(args[0])], out)


def _clamp(b, args, out):
    x, lo, hi = (list(args) + [None, None])[:3]
    inputs = [
        b.name(x),
        b.name(float(lo)) if lo is not None else "",
        b.name(float(hi)) if hi is not None else "",
    ]
    while inputs and inputs[-1] == "":
        inputs.pop()
    b.node("Clip", inputs, out)


def _dropout(b, args, out):
    if len(args) > 2 and args[2]:
        raise NotImplementedError("tc.onnx.export: dropout in training mode")
    b.node("Identity", [b.name(args[0])], out)


def _cat(b, args, out):
    tensors = args[0]["l"] if "l" in args[0] else args[0]["t"]
    b.node("Concat", [b.name(t) for t in tensors], out, axis=int(args[1]) if len(args) > 1 else 0)


def _interpolate_like(b, args, out):
    x, ref, mode, align_corners = args
    mode = mode["s"] if isinstance(mode, dict) else mode
    shape = b.node("Shape", [b.name(ref)])
    spatial = b.node(
        "Slice", [shape, b.init(np.array([-2], np.int64)), b.init(np.array([2**62], np.int64))]
    )
    xshape = b.node("Shape", [b.name(x)])
    lead = b.node(
        "Slice", [xshape, b.init(np.array([0], np.int64)), b.init(np.array([2], np.int64))]
    )
    sizes = b.node("Concat", [lead, spatial], axis=0)
    if mode == "nearest":
        attrs = dict(
            mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"
        )
    elif mode == "bilinear":
        attrs = dict(
            mode="linear",
            coordinate_transformation_mode="align_corners" if align_corners else "half_pixel",
        )
    else:
        raise NotImplementedError(f"tc.onnx.export: interpolate mode {mode!r}")
    b.node("Resize", [b.name(x), "", "", sizes], out, **attrs)


def _softmax(b, args, out):
    if len(args) < 2 or args[1] is None:
        raise NotImplementedError("tc.onnx.export: softmax without an explicit dim")
    if len(args) > 3 and args[3] is not None:
        raise NotImplementedError("tc.onnx.export: softmax with dtype=")
    b.node("Softmax", [b.name(args[0])], out, axis=int(args[1]))


def _linear(b, args, out):
    # tensorcore.nn.functional.linear (_C._nn.linear): input @ weight.T + bias as one Gemm.
    x, weight, bias = (list(args) + [None])[:3]
    inputs = [b.name(x), b.name(weight)] + ([b.name(bias)] if bias is not None else [])
    b.node("Gemm", inputs, out, transB=1)


def _hardtanh(lo, hi):
    def convert(b, args, out):
        lo_v = float(args[1]) if lo is None and len(args) > 1 else lo
        hi_v = float(args[2]) if hi is None and len(args) > 2 else hi
        b.node("Clip", [b.name(args[0]), b.name(float(lo_v)), b.name(float(hi_v))], out)

    return convert


def _shape_args(args):
    """The sizes of x.reshape(2, 3) / x.reshape((2, 3)) / x.permute(...) as a list of ints."""
    return _ints(args[1]) if len(args) == 2 else [int(v) for v in args[1:]]


def _reshape(b, args, out):
    shape = _shape_args(args)
    # torch's 0 is a size of zero; ONNX's 0 copies the input's dim unless allowzero is set, and
    # allowzero cannot be combined with -1.
    if 0 in shape and -1 in shape:
        raise NotImplementedError(f"tc.onnx.export: reshape to {shape} (a 0 with a -1)")
    b.node(
        "Reshape",
        [b.name(args[0]), b.init(np.array(shape, np.int64), "shape")],
        out,
        allowzero=int(0 in shape and -1 not in shape),
    )


def _permute(b, args, out):
    dims = _shape_args(args)
    b.node("Transpose", [b.name(args[0])], out, perm=dims)


def _select(b, args, out):
    x, dim, index = args
    b.node(
        "Gather", [b.name(x), b.init(np.array(int(index), np.int64), "index")], out, axis=int(dim)
    )


_DTYPES = {"float32": 1, "int64": 7, "int32": 6, "float64": 11, "bool": 9, "uint8": 2}


def _to(b, args, out):
    # Tensor.to(...) recorded as (self, positional args, keyword args): only dtype casts on the
    # CPU are expressible.
    found = []

    def scan(a):
        if isinstance(a, dict) and "dtype" in a:
            found.append(a["dtype"])
        elif isinstance(a, dict) and "d" in a:
            for _k, v in a["d"]:
                scan(v)
        elif isinstance(a, dict) and ("t" in a or "l" in a):
            for v in a.get("t", a.get("l")):
                scan(v)

    for a in args[1:]:
        scan(a)
    if not found:
        b.node("Identity", [b.name(args[0])], out)
    elif found[0] in _DTYPES:
        b.node("Cast", [b.name(args[0])], out, to=_DTYPES[found[0]])
    else:
        raise NotImplementedError(f"tc.onnx.export: Tensor.to dtype {found[0]}")


_CONVERTERS = {
    "Tensor.reshape": _reshape,
    "Tensor.view": _reshape,
    "_C.reshape": _reshape,
    "Tensor.permute": _permute,
    "_C.permute": _permute,
    "Tensor.select": _select,
    "_C.select": _select,
    "Tensor.to": _to,
    "_C._nn.conv1d": lambda b, a, o: _conv(b, a, o, 1),
    "_C._nn.conv2d": lambda b, a, o: _conv(b, a, o, 2),
    "_C._nn.batch_norm": _batch_norm,
    "_C._nn.max_pool2d": _max_pool,
    "_C._nn.adaptive_avg_pool2d": _adaptive_avg_pool,
    "_C._nn.dropout": _dropout,
    "_C._nn._interpolate_like": _interpolate_like,
    "_C._nnfused.softmax": _softmax,
    "_C._nn.softmax": _softmax,
    "_C._nn.relu": lambda b, a, o: b.node("Relu", [b.name(a[0])], o),
    "_C._nn.linear": _linear,
    "_C._nn.hardtanh": _hardtanh(None, None),
    # torch's hardswish/hardsigmoid are ONNX's with alpha=1/6, beta=1/2 (opset 14+).
    "_C._nn.hardswish": lambda b, a, o: b.node("HardSwish", [b.name(a[0])], o),
    "_C._nn.hardsigmoid": lambda b, a, o: b.node(
        "HardSigmoid", [b.name(a[0])], o, alpha=1.0 / 6.0, beta=0.5
    ),
    "_C._nn.leaky_relu": lambda b, a, o: b.node(
        "LeakyRelu", [b.name(a[0])], o, alpha=float(a[1]) if len(a) > 1 else 0.01
    ),
    "_C._nn.relu6": _hardtanh(0.0, 6.0),
    "_C.flatten": _flatten,
    "Tensor.flatten": _flatten,
    "_C.addmm": _addmm,
    "Tensor.t": lambda b, a, o: b.node("Transpose", [b.name(a[0])], o, perm=[1, 0]),
    "_C.t": lambda b, a, o: b.node("Transpose", [b.name(a[0])], o, perm=[1, 0]),
    "_C.cat": _cat,
    "_C.clamp": _clamp,
    "Tensor.clamp": _clamp,
    "Tensor.clamp_": _clamp,
}
_CONVERTERS.update(_detection.CONVERTERS)
for _name in ("relu", "sigmoid", "tanh", "exp", "sqrt", "abs", "neg"):
    _op = {
        "relu": "Relu",
        "sigmoid": "Sigmoid",
        "tanh": "Tanh",
        "exp": "Exp",
        "sqrt": "Sqrt",
        "abs": "Abs",
        "neg": "Neg",
    }[_name]
    for _key in (f"_C.{_name}", f"Tensor.{_name}", f"Tensor.{_name}_"):
        _CONVERTERS[_key] = _unary(_op)
for _name, _op in (
    ("add", "Add"),
    ("sub", "Sub"),
    ("mul", "Mul"),
    ("truediv", "Div"),
    ("matmul", "MatMul"),
):
    _CONVERTERS[f"Tensor.__{_name}__"] = _binary(_op)
    _CONVERTERS[f"Tensor.__r{_name}__"] = _binary(_op, reverse=True)
    _CONVERTERS[f"Tensor.__i{_name}__"] = _binary(_op)
for _name, _op in (
    ("add", "Add"),
    ("sub", "Sub"),
    ("mul", "Mul"),
    ("div", "Div"),
    ("matmul", "MatMul"),
):
    for _key in (f"_C.{_name}", f"Tensor.{_name}", f"Tensor.{_name}_"):
        _CONVERTERS[_key] = _binary(_op)


def _axes(spec):
    if spec is None:
        return set()
    return set(spec) if isinstance(spec, (list, tuple)) else set(dict(spec))


def supported_ops():
    """The graph ops (tc.jit names) that have an ONNX converter."""
    return sorted(_CONVERTERS)


def _flatten_output(arg, prefix, out):
    if isinstance(arg, dict) and "v" in arg:
        out.append((prefix, f"v{arg['v']}"))
    elif isinstance(arg, dict) and ("t" in arg or "l" in arg):
        for i, x in enumerate(arg.get("t", arg.get("l"))):
            _flatten_output(x, f"{prefix}{i}" if prefix else f"output{i}", out)
    elif isinstance(arg, dict) and "d" in arg:
        for key, x in arg["d"]:
            _flatten_output(x, key, out)
    else:
        raise NotImplementedError(f"tc.onnx.export: the model returns {arg!r}, not tensors")


_ELEM = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "int32": 6,
    "int64": 7,
    "bool": 9,
    "float16": 10,
    "float64": 11,
}


def export(
    model,
    args,
    f,
    export_params=True,
    verbose=False,
    training=None,
    input_names=None,
    output_names=None,
    opset_version=None,
    dynamic_axes=None,
    **unused,
):
    """Writes ``model`` (an nn.Module, or a traced module) run on ``args`` as an ONNX file.

    Args follow torch.onnx.export: ``input_names``/``output_names`` name the graph's inputs and
    outputs (dict outputs keep their keys), ``dynamic_axes`` maps a name to the axes (list or
    {axis: name}) that may vary. Only opset 17 is written.
    """
    onnx = _onnx()
    from .. import jit

    if opset_version not in (None, _OPSET):
        raise ValueError(f"tc.onnx.export writes opset {_OPSET}, got opset_version={opset_version}")
    if not isinstance(args, tuple):
        args = (args,)
    # No trace check (as torch.onnx): the traced graph runs once below for the outputs' ranks.
    traced = (
        model if isinstance(model, jit.TracedModule) else jit.trace(model, args, check_trace=False)
    )
    graph = json.loads(traced._c.graph_json)
    constants = [(name, t.detach().cpu().numpy().copy()) for name, t in traced._c.named_constants()]
    b = _Builder(constants)
    dynamic_axes = dynamic_axes or {}
    input_infos = []
    for i, (pattern, spec, x) in enumerate(zip(graph["inputs"], graph["input_specs"], args)):
        if not (isinstance(pattern, dict) and "v" in pattern):
            raise NotImplementedError("tc.onnx.export: inputs must be tensors")
        name = input_names[i] if input_names and i < len(input_names) else f"input{i}"
        b.nodes.append(onnx.helper.make_node("Identity", [name], [f"v{pattern['v']}"]))
        elem = _ELEM[spec["dtype"]]
        input_infos.append((name, list(x.shape), elem))
        b.inputs.append(onnx.helper.make_tensor_value_info(name, elem, list(x.shape)))
    for node in graph["nodes"]:
        convert = _CONVERTERS.get(node["op"])
        if convert is None:
            raise NotImplementedError(
                f"tc.onnx.export: the op {node['op']} has no ONNX converter (supported: "
                "tc.onnx.supported_ops())"
            )
        out = []
        _flatten_output(node["out"], "", out)
        convert(b, node["args"], [value for _key, value in out])

    def value_info(name, spec_name, shape, elem):
        axes = dynamic_axes.get(spec_name, {})
        if isinstance(axes, (list, tuple)):
            axes = {a: f"{spec_name}_dim{a}" for a in axes}
        if isinstance(shape, int):  # an output of this rank: sizes left symbolic
            return onnx.helper.make_tensor_value_info(
                name, elem, [f"{name}_dim{d}" for d in range(shape)]
            )
        dims = [axes.get(i, d) for i, d in enumerate(shape)]
        return onnx.helper.make_tensor_value_info(name, elem, dims)

    inputs = [value_info(name, name, shape, elem) for name, shape, elem in input_infos]
    spatial = [n for n, shape, _ in input_infos if _axes(dynamic_axes.get(n)) - {0}]
    if b.fixed_size and spatial:
        warnings.warn(
            f"tc.onnx.export: {'; '.join(b.fixed_size)} holds only for the traced input size, "
            f"but dynamic_axes lets {spatial} vary beyond the batch axis",
            stacklevel=2,
        )
    flat = []
    _flatten_output(graph["output"], "", flat)
    results = traced(*args)
    results = list(results.values()) if isinstance(results, dict) else results
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    outputs = []
    for i, ((key, value), result) in enumerate(zip(flat, results)):
        name = output_names[i] if output_names and i < len(output_names) else (key or "output")
        b.node("Identity", [value], [name])
        outputs.append(
            value_info(name, name, result.dim(), _ELEM[str(result.dtype).split(".")[-1]])
        )
    inits = [onnx.numpy_helper.from_array(a, n) for n, a in b.initializers.items()]
    g = onnx.helper.make_graph(b.nodes, type(model).__name__, inputs, outputs, inits)
    m = onnx.helper.make_model(
        g, opset_imports=[onnx.helper.make_opsetid("", _OPSET)], producer_name="tensorcore"
    )
    onnx.checker.check_model(m)
    data = m.SerializeToString()
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(os.fspath(f), "wb") as fh:
            fh.write(data)
    if verbose:
        print(onnx.helper.printable_graph(m.graph))
    return m
