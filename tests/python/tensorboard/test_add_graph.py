"""SummaryWriter.add_graph / add_onnx_graph: the GraphDef read back by TensorBoard's
EventAccumulator has the model's nodes, scopes, edges and shapes."""

import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

import tensorcore as tc  # noqa: E402
from tensorcore import nn  # noqa: E402
from tensorcore.utils.tensorboard import SummaryWriter  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.block = nn.Sequential(nn.BatchNorm2d(8), nn.ReLU())
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = self.block(self.conv(x))
        y = tc.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1)
        return self.fc(y).softmax(dim=1)


def read_graph(logdir):
    acc = EventAccumulator(str(logdir))
    acc.Reload()
    return {node.name: node for node in acc.Graph().node}


def test_add_graph_nodes_edges_and_shapes(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(Net(), tc.randn(2, 3, 16, 16))
    nodes = read_graph(tmp_path)
    assert nodes["input/x"].op == "IO Node"
    assert nodes["Net/conv"].op == "Conv2d"
    assert nodes["Net/conv"].input == ["input/x"]
    assert nodes["Net/block/0"].op == "BatchNorm2d" and nodes["Net/block/1"].op == "ReLU"
    assert nodes["Net/block/0"].input == ["Net/conv"]
    assert nodes["Net/fc"].op == "Linear"
    shape = nodes["Net/conv"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [2, 8, 16, 16]
    out = nodes["output/output.1"]
    assert out.op == "IO Node" and len(out.input) == 1
    assert [d.size for d in out.attr["_output_shapes"].list.shape[0].dim] == [2, 5]
    softmax = nodes[out.input[0]]
    assert softmax.op == "Tensor.softmax" and "dim" in softmax.attr["attr"].s.decode()
    assert any(n.op.endswith("flatten") for n in nodes.values())


def test_add_graph_without_inputs_has_no_shapes(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(nn.Sequential(nn.Linear(4, 3), nn.Tanh()))
    nodes = read_graph(tmp_path)
    assert nodes["Sequential/0"].op == "Linear" and nodes["Sequential/1"].op == "Tanh"
    assert "_output_shapes" not in nodes["Sequential/0"].attr


def test_add_graph_untraceable_model_names_the_problem(tmp_path):
    class Branchy(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(RuntimeError, match="add_graph.*Branchy"):
            writer.add_graph(Branchy(), tc.ones(3))


def test_add_onnx_graph(tmp_path):
    pytest.importorskip("onnx")
    path = tmp_path / "net.onnx"
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
    tc.onnx.export(model.eval(), tc.randn(1, 3, 8, 8), str(path))
    with SummaryWriter(tmp_path / "log") as writer:
        writer.add_onnx_graph(str(path))
    nodes = read_graph(tmp_path / "log")
    ops = [n.op for n in nodes.values()]
    for op in ("Conv", "Relu", "Flatten", "IO Node"):
        assert op in ops
    relu = next(n for n in nodes.values() if n.op == "Relu")
    assert nodes[relu.input[0]].op == "Conv"
    with pytest.raises(ValueError, match="cannot read ONNX file"):
        SummaryWriter(tmp_path / "log2").add_onnx_graph(str(tmp_path / "missing.onnx"))
