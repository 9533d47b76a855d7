"""ONNX export (``tc.onnx.export``, torch.onnx's name and arguments), opset 17.

The model is traced with ``tc.jit.trace`` and each recorded native op is written as ONNX nodes
through the ``onnx`` package (from the package index; ``scripts/setup.sh`` installs it). The
classification and segmentation models export; an op without a converter raises
NotImplementedError naming it (the detection models' native post-processing has none yet).
See docs/jit.md.
"""

import json
import os

import numpy as np

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
        self.nodes.append(self.helper.make_node(op, inputs, outputs, **attrs))
        return outputs[0]

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
    if _ints(size) not in ([1], [1, 1]):
        raise NotImplementedError("tc.onnx.export: adaptive_avg_pool2d to a size other than 1")
    b.node("GlobalAveragePool", [b.name(x)], out)


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


_CONVERTERS = {
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
    traced = model if isinstance(model, jit.TracedModule) else jit.trace(model, args)
    graph = json.loads(traced._c.graph_json)
    constants = [(name, t.detach().cpu().numpy().copy()) for name, t in traced._c.named_constants()]
    b = _Builder(constants)
    for node in graph["nodes"]:
        convert = _CONVERTERS.get(node["op"])
        if convert is None:
            raise NotImplementedError(
                f"tc.onnx.export: the op {node['op']} has no ONNX converter (supported: "
                "tc.onnx.supported_ops())"
            )
        out = node["out"]
        if not (isinstance(out, dict) and "v" in out):
            raise NotImplementedError(f"tc.onnx.export: {node['op']} with several outputs")
        convert(b, node["args"], [f"v{out['v']}"])
    dynamic_axes = dynamic_axes or {}

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

    inputs = []
    for i, (pattern, spec, x) in enumerate(zip(graph["inputs"], graph["input_specs"], args)):
        if not (isinstance(pattern, dict) and "v" in pattern):
            raise NotImplementedError("tc.onnx.export: inputs must be tensors")
        name = input_names[i] if input_names and i < len(input_names) else f"input{i}"
        b.nodes.insert(0, onnx.helper.make_node("Identity", [name], [f"v{pattern['v']}"]))
        inputs.append(value_info(name, name, list(x.shape), _ELEM[spec["dtype"]]))
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
