"""tensorcore.fx against torch.fx (Debian's torch 1.13) on the same small program: the same node
sequence (ops and target names) and the same outputs."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.fx as fx

torch = pytest.importorskip("torch")
torch_fx = pytest.importorskip("torch.fx")


def _build(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            y = F.relu(self.bn(self.conv(x)))
            n, c = y.shape[0], y.shape[1]  # (torch 1.13 cannot unpack a Proxy on Python 3.11)
            z = y.view(n, c, -1).mean(-1)
            z = lib.sigmoid(z) * 2 + 1
            z = lib.cat([z, -z], 1)
            return self.fc(z).softmax(dim=-1)[:, :1], y.size(2)

    return Net().eval()


def _signature(graph):
    return _signature_of(graph.nodes)


def test_same_graph_and_outputs_as_torch_fx():
    torch.manual_seed(0)
    t_model = _build(torch)
    c_model = _build(tc)
    c_model.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in t_model.state_dict().items()}
    )
    c_model.eval()
    t_gm = torch_fx.symbolic_trace(t_model)
    c_gm = fx.symbolic_trace(c_model)
    assert _signature(c_gm.graph) == _signature(t_gm.graph)
    assert [n.name for n in c_gm.graph.nodes] == [n.name for n in t_gm.graph.nodes]
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    with torch.no_grad():
        t_out, t_size = t_gm(torch.from_numpy(x))
    with tc.no_grad():
        c_out, c_size = c_gm(tc.from_numpy(x))
    assert c_size == t_size == 5
    np.testing.assert_allclose(c_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)


def test_same_replace_pattern_matches_as_torch_fx():
    def program(lib):
        def f(x, y):
            a = lib.relu(x) + y
            return lib.relu(a) + y

        return f

    def pattern(lib):
        return lambda x, y: lib.relu(x) + y

    def replacement(lib):
        return lambda x, y: lib.sigmoid(x) * y

    t_gm = torch_fx.symbolic_trace(program(torch))
    c_gm = fx.symbolic_trace(program(tc))
    t_matches = torch_fx.replace_pattern(t_gm, pattern(torch), replacement(torch))
    c_matches = fx.replace_pattern(c_gm, pattern(tc), replacement(tc))
    assert len(c_matches) == len(t_matches) == 2
    assert [t for _, t in _signature(c_gm.graph)] == [t for _, t in _signature(t_gm.graph)]
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    y = np.linspace(2, 3, 6, dtype=np.float32)
    np.testing.assert_allclose(
        c_gm(tc.from_numpy(x), tc.from_numpy(y)).numpy(),
        t_gm(torch.from_numpy(x), torch.from_numpy(y)).numpy(),
        rtol=1e-6,
    )


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "mobilenet_v3_small"])
def test_vision_models_give_torchvisions_fx_graph(name):
    torchvision = pytest.importorskip("torchvision")
    from tensorcore.vision import models

    ours = fx.symbolic_trace(getattr(models, name)(num_classes=10))
    theirs = torch_fx.symbolic_trace(getattr(torchvision.models, name)(num_classes=10))
    # The one extra node: the input check that tensorcore's models run first.
    nodes = [
        n for n in ours.graph.nodes if getattr(n.target, "__name__", "") != "check_image_batch"
    ]
    assert len(nodes) == len(ours.graph.nodes) - 1
    assert [(op, t, n.name) for (op, t), n in zip(_signature_of(nodes), nodes)] == [
        (op, t, n.name) for (op, t), n in zip(_signature(theirs.graph), theirs.graph.nodes)
    ]


def _signature_of(nodes):
    return [(n.op, n.target.__name__ if n.op == "call_function" else str(n.target)) for n in nodes]
