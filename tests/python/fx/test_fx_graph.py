"""tensorcore.fx Graph / Node editing, code generation, lint, copying and pickling."""

import copy
import operator
import pickle

import pytest

import tensorcore as tc
import tensorcore.fx as fx
import tensorcore.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        return self.out(tc.relu(self.lin(x)) + x)


def _inputs():
    tc.manual_seed(0)
    return tc.randn(3, 4)


def test_graph_built_by_hand_runs_and_prints_readable_code():
    g = fx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("w")
    mm = g.call_function(tc.matmul, (x, w))
    r = g.call_method("relu", (mm,))
    s = g.call_function(operator.add, (r, 1.5))
    g.output(s)
    g.lint()
    root = nn.Module()
    root.w = nn.Parameter(tc.randn(4, 2))
    gm = fx.GraphModule(root, g)
    assert "tensorcore.matmul(x, w)" in gm.code
    assert "relu = matmul.relu()" in gm.code
    assert "add = relu + 1.5" in gm.code
    x_val = _inputs()
    assert tc.allclose(gm(x_val), tc.relu(tc.matmul(x_val, root.w)) + 1.5)
    # The generated code compiles on its own with the globals it declares.
    code = g.python_code("self")
    ns = dict(code.globals)
    exec(code.src, ns)
    assert tc.allclose(ns["forward"](gm, x_val), gm(x_val))


def test_node_users_args_and_replace_all_uses_with():
    gm = fx.symbolic_trace(TwoLayer())
    g = gm.graph
    nodes = {n.name: n for n in g.nodes}
    assert [n.op for n in g.nodes] == [
        "placeholder", "call_module", "call_function", "call_function", "call_module", "output",
    ]  # fmt: skip
    relu = nodes["relu"]
    assert relu.args == (nodes["lin"],) and list(nodes["lin"].users) == [relu]
    assert set(nodes["x"].users) == {nodes["lin"], nodes["add"]}
    # Replace relu by sigmoid: insert after, redirect the uses, erase.
    with g.inserting_after(relu):
        sig = g.call_function(tc.sigmoid, (relu.args[0],))
    relu.replace_all_uses_with(sig)
    assert not relu.users and nodes["add"].args[0] is sig
    g.erase_node(relu)
    g.lint()
    gm.recompile()
    assert "tensorcore.sigmoid(lin)" in gm.code and "relu" not in gm.code
    x = _inputs()
    expected = gm.out(tc.sigmoid(gm.lin(x)) + x)
    assert tc.equal(gm(x), expected)


def test_inserting_before_keeps_creation_order_and_erase_with_users_fails():
    gm = fx.symbolic_trace(TwoLayer())
    g = gm.graph
    out_mod = next(n for n in g.nodes if n.target == "out")
    add = out_mod.args[0]
    with g.inserting_before(out_mod):
        a = g.call_function(operator.mul, (add, 2.0))
        b = g.call_function(operator.sub, (a, 1.0))
    out_mod.replace_input_with(add, b)
    order = [n.name for n in g.nodes]
    assert order.index(a.name) < order.index(b.name) < order.index(out_mod.name)
    with pytest.raises(RuntimeError, match="still has 1 user"):
        g.erase_node(a)
    g.lint()
    gm.recompile()
    x = _inputs()
    assert tc.allclose(gm(x), gm.out((tc.relu(gm.lin(x)) + x) * 2.0 - 1.0))


def test_eliminate_dead_code_keeps_impure_nodes():
    @fx.has_side_effect
    def check(x):
        return None

    g = fx.Graph()
    x = g.placeholder("x")
    g.call_function(tc.exp, (x,))  # unused: removed
    g.call_function(check, (x,))  # side-effectful: kept
    g.output(g.call_function(tc.neg, (x,)))
    assert g.eliminate_dead_code()
    assert [n.op for n in g.nodes] == ["placeholder", "call_function", "call_function", "output"]
    assert [n.target for n in g.nodes if n.op == "call_function"] == [check, tc.neg]
    assert not g.eliminate_dead_code()


def test_lint_names_the_dangling_node():
    g = fx.Graph()
    x = g.placeholder("x")
    other = fx.Graph()
    y = other.placeholder("y")
    bad = g.call_function(tc.add, (x, y))  # reads a node of another graph
    g.output(bad)
    with pytest.raises(RuntimeError, match="Argument 'y' of Node 'add' is not in the graph"):
        g.lint()


def test_lint_use_before_definition_and_missing_target():
    g = fx.Graph()
    x = g.placeholder("x")
    out = g.output(x)
    with g.inserting_before(out):
        a = g.call_function(tc.neg, (x,))
    with g.inserting_before(a):
        b = g.call_function(tc.exp, (x,))
    a.args = (b,)
    g.lint()
    # Move the user before its argument.
    b.prepend(a)
    with pytest.raises(RuntimeError, match="Argument 'exp' of Node 'neg' was used before"):
        g.lint()
    g2 = fx.Graph()
    g2.output(g2.call_module("missing", (g2.placeholder("x"),)))
    with pytest.raises(RuntimeError, match="references target 'missing'"):
        fx.GraphModule(nn.Module(), g2)
    g3 = fx.Graph()
    g3.placeholder("x")
    with pytest.raises(RuntimeError, match="no output node"):
        g3.lint()


def test_graph_module_wrong_inputs_give_clear_errors():
    gm = fx.symbolic_trace(TwoLayer())
    with pytest.raises(TypeError, match="forward"):
        gm()
    with pytest.raises(TypeError, match="forward"):
        gm(_inputs(), _inputs())
    with pytest.raises(TypeError):
        fx.symbolic_trace(42)
    with pytest.raises(TypeError):
        fx.GraphModule(nn.Module(), "not a graph")
    with pytest.raises(ValueError, match="op must be one of"):
        fx.Graph().create_node("bogus", "t")
    with pytest.raises(TypeError, match="must be callable"):
        fx.Graph().call_function("not callable")


def test_print_tabular_without_tabulate(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tabulate", None)  # import fails: plain columns
    fx.symbolic_trace(TwoLayer()).graph.print_tabular()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert lines[1].startswith("------")
    assert lines[2].split()[:3] == ["placeholder", "x", "x"]
    assert any(line.split()[:3] == ["call_function", "relu", "tensorcore.relu"] for line in lines)


def test_graph_setter_recompiles_and_print_tabular(capsys):
    gm = fx.symbolic_trace(TwoLayer())
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_module("lin", (x,)))
    gm.graph = g
    x_val = _inputs()
    assert tc.equal(gm(x_val), gm.lin(x_val))
    assert "lin = self.lin(x)" in gm.code
    gm.graph.print_tabular()
    printed = capsys.readouterr().out
    assert "opcode" in printed and "call_module" in printed and "lin" in printed
    assert "placeholder[target=x]" in str(gm.graph)


def test_deepcopy_and_pickle_round_trip():
    m = TwoLayer()
    gm = fx.symbolic_trace(m)
    x = _inputs()
    expected = gm(x)
    dup = copy.deepcopy(gm)
    assert dup.lin.weight is not gm.lin.weight and tc.equal(dup(x), expected)
    assert dup.code == gm.code
    loaded = pickle.loads(pickle.dumps(gm))
    assert type(loaded).__name__ == "TwoLayer"
    assert tc.equal(loaded(x), expected)
    assert [n.target for n in loaded.graph.nodes] == [n.target for n in gm.graph.nodes]


def test_node_names_never_shadow_builtins_or_keywords():
    def f(input, len):  # noqa: A002
        return input + len

    gm = fx.symbolic_trace(f)
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["input_1", "len_1"]
    assert tc.equal(gm(tc.ones(2), tc.ones(2)), tc.full((2,), 2.0))


def test_to_folder_writes_an_importable_editable_package(tmp_path, monkeypatch):
    class WithRootTensors(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = TwoLayer()
            self.scale = nn.Parameter(tc.full((2,), 3.0))
            self.register_buffer("shift", tc.full((2,), -1.0))

        def forward(self, x):
            return self.body(x) * self.scale + self.shift + tc.ones(2)

    m = WithRootTensors()
    gm = fx.symbolic_trace(m)
    gm.to_folder(tmp_path / "traced_pkg", "Traced")
    source = (tmp_path / "traced_pkg" / "module.py").read_text()
    assert "class Traced(Module):" in source and "def forward(self, x):" in source
    monkeypatch.syspath_prepend(str(tmp_path))
    from traced_pkg import Traced

    rebuilt = Traced()
    x = _inputs()
    assert tc.equal(rebuilt(x), m(x))
    assert sorted(rebuilt.state_dict()) == sorted(gm.state_dict())
    with pytest.raises(ValueError, match="identifier"):
        gm.to_folder(tmp_path / "other", "not an identifier")
