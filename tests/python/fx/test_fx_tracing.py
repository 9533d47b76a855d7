"""tensorcore.fx tracing: Proxy operations, leaf modules, custom tracers, wrap, concrete_args,
control-flow errors, Interpreter/Transformer, replace_pattern and ShapeProp."""

import math
import operator

import pytest

import tensorcore as tc
import tensorcore.fx as fx
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.fx.passes.shape_prop import ShapeProp
from tensorcore import cat as imported_cat


def helper_with_branch(x):
    # Data-dependent: only traceable because it is wrapped below.
    if x.sum() > 0:
        return x * 2
    return x


fx.wrap("helper_with_branch")

_use_local = None  # rebound by test_autowrap_functions_and_math_module


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.register_buffer("scale", tc.full((1, 4, 1, 1), 0.5))

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        n, c, h, w = y.shape
        flat = y.reshape(n, c, h * w).mean(-1)
        z = tc.sigmoid(flat).view(n, c, 1, 1) * self.scale
        return imported_cat([y * z, y[:, :1] - 1.0], dim=1).flatten(1).size(1) * 0 + (y * z).sum(
            dim=(2, 3)
        )


def _x():
    tc.manual_seed(0)
    return tc.randn(2, 3, 5, 5)


def test_proxy_ops_methods_attributes_and_native_functions_trace():
    m = Block().eval()
    gm = fx.symbolic_trace(m)
    x = _x()
    assert tc.allclose(gm(x), m(x))
    targets = [n.target for n in gm.graph.nodes]
    # Native pybind functions, imported names, Tensor methods, operators, attributes.
    assert tc.sigmoid in targets and tc.cat in targets and F.relu in targets
    assert "reshape" in targets and "view" in targets and operator.mul in targets
    assert any(n.op == "get_attr" and n.target == "scale" for n in gm.graph.nodes)
    assert "tensorcore.cat(" in gm.code and "tensorcore.nn.functional.relu(" in gm.code
    # Eager calls are untouched once tracing ends.
    assert (
        tc.cat is imported_cat and type(tc.Tensor.__dict__["__add__"]).__name__ == "instancemethod"
    )


def test_leaf_modules_default_and_custom_tracer():
    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x).relu()

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh())

        def forward(self, x):
            return self.seq(self.inner(x))

    m = Outer()
    gm = fx.symbolic_trace(m)
    mods = [n.target for n in gm.graph.nodes if n.op == "call_module"]
    assert mods == ["inner.lin", "seq.0", "seq.1"]  # nn layers are leaves, containers are not

    class KeepInner(fx.Tracer):
        def is_leaf_module(self, mod, qualname):
            return isinstance(mod, Inner) or super().is_leaf_module(mod, qualname)

    g = KeepInner().trace(m)
    assert [n.target for n in g.nodes if n.op == "call_module"] == ["inner", "seq.0", "seq.1"]
    gm2 = fx.GraphModule(m, g)
    x = tc.randn(2, 3)
    assert tc.allclose(gm2(x), m(x)) and tc.allclose(gm(x), m(x))


def test_control_flow_on_proxy_names_the_problem():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(fx.TraceError, match="cannot be used as inputs to control flow"):
        fx.symbolic_trace(f)

    def g(x):
        return [v for v in x]

    with pytest.raises(fx.TraceError, match="cannot be iterated"):
        fx.symbolic_trace(g)

    def h(x):
        return len(x)

    with pytest.raises(RuntimeError, match="'len' is not supported"):
        fx.symbolic_trace(h)
    # Patches are restored after a failed trace too.
    assert "__fx_original__" not in getattr(tc.relu, "__dict__", {})


def test_wrap_makes_a_function_a_leaf():
    def f(x):
        return helper_with_branch(x) + 1

    gm = fx.symbolic_trace(f)
    assert helper_with_branch in [n.target for n in gm.graph.nodes]
    assert tc.equal(gm(tc.ones(3)), tc.full((3,), 3.0))
    assert tc.equal(gm(-tc.ones(3)), tc.zeros(3))


def test_autowrap_functions_and_math_module():
    def local_branchy(x):
        return x if x.dim() == 1 else x.flatten()

    def f(x):
        return math.sqrt(2.0) * x

    gm = fx.symbolic_trace(f)
    assert tc.allclose(gm(tc.ones(2)), tc.full((2,), math.sqrt(2.0)))

    class M(nn.Module):
        def forward(self, x):
            return _use_local(x)

    global _use_local
    _use_local = local_branchy
    try:
        with pytest.raises(fx.TraceError):
            fx.symbolic_trace(M())
        tracer = fx.Tracer(autowrap_functions=(local_branchy,))
        g = tracer.trace(M())
        assert local_branchy in [n.target for n in g.nodes]
        gm = fx.GraphModule(tracer.root, g)
        assert gm(tc.ones(2, 2)).shape == (4,)
    finally:
        _use_local = None


def test_concrete_args_specialize_a_branch():
    def f(x, flag):
        if flag:
            return x * 2
        return x - 1

    gm = fx.symbolic_trace(f, concrete_args={"flag": True})
    assert "mul" in gm.code and "sub" not in gm.code
    x = tc.ones(2)
    assert tc.equal(gm(x), x * 2) and tc.equal(gm(x, True), x * 2)
    with pytest.raises(fx.TraceError, match="not parameters"):
        fx.symbolic_trace(f, concrete_args={"nope": 1})

    def varargs(*xs):
        return xs[0]

    with pytest.raises(fx.TraceError, match=r"\*xs"):
        fx.symbolic_trace(varargs)


def test_interpreter_and_transformer():
    m = Block().eval()
    gm = fx.symbolic_trace(m)
    x = _x()
    assert tc.allclose(fx.Interpreter(gm).run(x), m(x))

    class CountCalls(fx.Interpreter):
        def __init__(self, mod):
            super().__init__(mod)
            self.seen = []

        def call_module(self, target, args, kwargs):
            self.seen.append(target)
            return super().call_module(target, args, kwargs)

    interp = CountCalls(gm)
    interp.run(x)
    assert interp.seen == ["conv", "bn"]
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        fx.Interpreter(gm).run()
    with pytest.raises(TypeError, match="takes 1 input"):
        fx.Interpreter(gm).run(x, x)

    class ReluToSigmoid(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is F.relu:
                return super().call_function(tc.sigmoid, args, {})
            return super().call_function(target, args, kwargs)

    new = ReluToSigmoid(gm).transform()
    new.graph.lint()
    targets = [n.target for n in new.graph.nodes]
    assert tc.sigmoid in targets and F.relu not in targets
    y = tc.sigmoid(m.bn(m.conv(x)))
    assert tc.allclose(
        new(x), (y * (tc.sigmoid(y.mean((2, 3))).view(2, 4, 1, 1) * 0.5)).sum(dim=(2, 3))
    )


def test_replace_pattern_as_in_torch_docs():
    class M(nn.Module):
        def forward(self, x, w1, w2):
            val1 = tc.neg(w1)
            m1 = tc.cat([val1, w2]).sum()
            val2 = tc.neg(w1)
            m2 = tc.cat([val2, w2]).sum()
            return x + tc.max(m1) + tc.max(m2)

    def pattern(w1, w2):
        return tc.cat([w1, w2]).sum()

    def replacement(w1, w2):
        return tc.stack([w1, w2])

    gm = fx.symbolic_trace(M())
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2
    gm.graph.lint()
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets.count(tc.stack) == 2 and tc.cat not in targets
    x, w1, w2 = tc.randn(3), tc.randn(3), tc.randn(3)
    expected = x + tc.max(tc.stack([-w1, w2])) + tc.max(tc.stack([-w1, w2]))
    assert tc.allclose(gm(x, w1, w2), expected)


def test_replace_pattern_relu_add_fusion_and_escaping_values():
    def f(x, y):
        a = tc.relu(x) + y
        b = tc.relu(a) + y
        return b * a  # a escapes the second match's region only as its input

    def pattern(x, y):
        return tc.relu(x) + y

    def replacement(x, y):
        return tc.clamp(x, min=0.0).add(y)

    gm = fx.symbolic_trace(f)
    x, y = tc.randn(4), tc.randn(4)
    expected = gm(x, y)
    assert len(fx.replace_pattern(gm, pattern, replacement)) == 2
    assert tc.allclose(gm(x, y), expected)
    assert "relu" not in gm.code and "clamp" in gm.code

    def g(x, y):
        r = tc.relu(x)
        return (r + y) * r  # r is used outside the would-be match: no replacement

    gm2 = fx.symbolic_trace(g)
    assert fx.replace_pattern(gm2, pattern, replacement) == []


def test_shape_prop_records_metadata():
    gm = fx.symbolic_trace(Block().eval())
    ShapeProp(gm).propagate(_x())
    meta = {n.name: n.meta.get("tensor_meta") for n in gm.graph.nodes}
    assert tuple(meta["conv"].shape) == (2, 4, 5, 5)
    assert meta["conv"].dtype == tc.float32 and meta["conv"].stride == (100, 25, 5, 1)
    assert tuple(meta["output"].shape) == (2, 4)
    conv = next(n for n in gm.graph.nodes if n.name == "conv")
    assert tuple(conv.shape) == (2, 4, 5, 5) and conv.dtype == tc.float32


def test_tracing_a_tensor_constant_and_parameters_of_non_leaf_modules():
    class WithParam(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(tc.randn(3, 3))
            self.offset = tc.arange(3.0)  # a plain tensor attribute

        def forward(self, x):
            return F.linear(x, self.w) + self.offset + tc.ones(3)

    m = WithParam()
    gm = fx.symbolic_trace(m)
    gets = [n.target for n in gm.graph.nodes if n.op == "get_attr"]
    assert gets == ["w", "offset", "_tensor_constant0"]  # tc.ones made while tracing: a constant
    x = tc.randn(2, 3)
    assert tc.allclose(gm(x), m(x))
