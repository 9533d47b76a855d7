import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])
        self.head = nn.Sequential(nn.Linear(8, 3))
        self.register_buffer("steps", tc.zeros(()))
        self.register_buffer("scratch", tc.zeros(2), persistent=False)
        self.scale = nn.Parameter(tc.ones(1))

    def forward(self, x):
        x = self.act(self.fc1(x))
        for b in self.blocks:
            x = self.act(b(x))
        return self.head(x) * self.scale


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
        "head.0.weight",
        "head.0.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert [n for n, _ in net.named_modules()] == [
        "",
        "fc1",
        "act",
        "blocks",
        "blocks.0",
        "blocks.1",
        "head",
        "head.0",
    ]
    assert len(list(net.children())) == 4
    assert net.get_submodule("blocks.1") is net.blocks[1]
    assert net.get_parameter("head.0.bias") is net.head[0].bias
    assert list(net.state_dict()) == [
        "scale",
        "steps",
        "fc1.weight",
        "fc1.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
        "head.0.weight",
        "head.0.bias",
    ]
    # Shared modules/parameters are reported once.
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        net.nothing
    with pytest.raises(TypeError, match="cannot assign"):
        net.scale = tc.ones(1)
    del net.act
    assert "act" not in dict(net.named_children())


def test_parameter_identity_survives_cpp_round_trips():
    lin = nn.Linear(3, 2)
    w = lin.weight
    assert isinstance(w, nn.Parameter) and w.requires_grad and w.is_leaf
    assert w.requires_grad_(True) is w
    out = lin(tc.randn(5, 3)).sum()
    out.backward()
    assert lin.weight.grad is lin.weight.grad
    assert tuple(lin.weight.grad.shape) == (2, 3)
    lin.double()
    assert lin.weight is w and w.dtype == tc.float64 and w.grad.dtype == tc.float64
    assert isinstance(lin.weight, nn.Parameter)
    p = nn.Parameter(tc.arange(4.0))
    assert "Parameter containing" in repr(p)
    with pytest.raises(TypeError, match="floating point"):
        nn.Parameter(tc.arange(3))


def test_train_eval_zero_grad_requires_grad_apply():
    net = Net()
    net.eval()
    assert not net.training and not net.blocks[0].training
    net.train()
    assert net.head[0].training
    net(tc.randn(2, 4)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert float(net.fc1.weight.grad.abs().sum()) == 0.0
    net.zero_grad()
    assert net.fc1.weight.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and "Linear" in seen


def test_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out) or out + 1)
    y = lin(tc.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), (lin.bias.detach() + 1).numpy()[None], rtol=1e-6)
    assert len(calls) == 1
    h1.remove()
    h2.remove()
    y2 = lin(tc.ones(1, 2))
    assert len(calls) == 1 and not np.allclose(y2.detach().numpy(), y.detach().numpy())


def test_state_dict_round_trip_and_errors():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (n1, p1), (n2, p2) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    assert "scratch" not in a.state_dict()
    sd = a.state_dict()
    del sd["fc1.bias"]
    sd["extra.weight"] = tc.zeros(1)
    sd["head.0.weight"] = tc.zeros(5, 8)
    with pytest.raises(RuntimeError) as err:
        b.load_state_dict(sd)
    msg = str(err.value)
    assert 'Missing key(s) in state_dict: "fc1.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in msg
    assert "size mismatch for head.0.weight" in msg and "[5, 8]" in msg and "[3, 8]" in msg
    del sd["head.0.weight"]
    res = b.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias", "head.0.weight"] and res.unexpected_keys == [
        "extra.weight"
    ]


def test_state_dict_loads_torch_weights(torch_ref):
    torch = torch_ref
    tm = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    m = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))
    m.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(
        m(tc.from_numpy(x)).detach().numpy(),
        tm(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_repr_matches_torch(torch_ref):
    torch = torch_ref
    tm = torch.nn.Sequential(
        torch.nn.Linear(4, 5, bias=False),
        torch.nn.ReLU(inplace=True),
        torch.nn.Dropout(0.2),
        torch.nn.ModuleList([torch.nn.GELU(approximate="tanh"), torch.nn.LeakyReLU(0.1)]),
    )
    m = nn.Sequential(
        nn.Linear(4, 5, bias=False),
        nn.ReLU(inplace=True),
        nn.Dropout(0.2),
        nn.ModuleList([nn.GELU(approximate="tanh"), nn.LeakyReLU(0.1)]),
    )
    assert repr(m) == repr(tm)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[:2]) == 2
    seq.append(nn.Sigmoid())
    assert len(seq) == 4
    del seq[1]
    assert [k for k, _ in seq.named_children()] == ["0", "1", "2"]
    with pytest.raises(IndexError):
        seq[10]
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.Tanh()
    assert list(md.keys()) == ["a", "b"] and "a" in md
    pl = nn.ParameterList([nn.Parameter(tc.ones(2)), tc.zeros(3)])
    assert len(pl) == 2 and isinstance(pl[1], nn.Parameter) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"w": tc.ones(2)})
    assert isinstance(pd["w"], nn.Parameter)
    holder = nn.Module()
    holder.pl = pl
    assert [n for n, _ in holder.named_parameters()] == ["pl.0", "pl.1"]


def test_init_functions_statistics():
    g = tc.Generator()
    g.manual_seed(0)
    w = tc.empty(400, 300)
    nn.init.kaiming_uniform_(w, a=0, nonlinearity="relu")
    bound = np.sqrt(6.0 / 300)
    a = w.numpy()
    assert (
        a.max() <= bound + 1e-6
        and a.min() >= -bound - 1e-6
        and abs(a.std() - bound / np.sqrt(3)) < 0.01 * bound
    )
    nn.init.xavier_normal_(w)
    assert abs(w.numpy().std() - np.sqrt(2.0 / 700)) < 0.002
    nn.init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.numpy().std() - np.sqrt(2.0 / (1 + 0.01**2)) / np.sqrt(400)) < 0.003
    nn.init.trunc_normal_(w, std=1.0, a=-1.5, b=1.5)
    assert w.numpy().max() <= 1.5 and w.numpy().min() >= -1.5
    q = tc.empty(6, 10)
    nn.init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(6), atol=1e-5)
    e = tc.empty(3, 5)
    nn.init.eye_(e)
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 5))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(np.sqrt(2 / 1.04))
    c = tc.empty(4, 2, 3, 3)
    assert nn.init._calculate_fan_in_and_fan_out(c) == (18, 36)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(tc.empty(3))


def test_clip_grad_and_vector_conversion(torch_ref):
    torch = torch_ref
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(s).astype(np.float32) for s in [(3, 4), (5,)]]
    ps, tps = [], []
    for g in grads:
        p = nn.Parameter(tc.zeros(*g.shape))
        p.grad = tc.from_numpy(g.copy())
        ps.append(p)
        tp = torch.nn.Parameter(torch.zeros(*g.shape))
        tp.grad = torch.from_numpy(g.copy())
        tps.append(tp)
    for norm_type in (2.0, 1.0, float("inf")):
        n = nn.utils.clip_grad_norm_(ps, 0.5, norm_type)
        tn = torch.nn.utils.clip_grad_norm_(tps, 0.5, norm_type)
        assert float(n) == pytest.approx(float(tn), rel=1e-5)
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-5)
    nn.utils.clip_grad_value_(ps, 0.01)
    assert float(ps[0].grad.abs().max()) <= 0.01 + 1e-7
    vec = nn.utils.parameters_to_vector(ps)
    assert tuple(vec.shape) == (17,)
    nn.utils.vector_to_parameters(tc.arange(17.0), ps)
    np.testing.assert_array_equal(ps[1].detach().numpy(), np.arange(12.0, 17.0))


def test_pack_pad_sequences(torch_ref):
    torch = torch_ref
    seqs = [
        np.random.default_rng(i).standard_normal((n, 2)).astype(np.float32)
        for i, n in enumerate([2, 4, 3])
    ]
    padded = nn.utils.rnn.pad_sequence([tc.from_numpy(s) for s in seqs])
    tpadded = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs])
    np.testing.assert_array_equal(padded.numpy(), tpadded.numpy())
    packed = nn.utils.rnn.pack_padded_sequence(padded, [2, 4, 3], enforce_sorted=False)
    tpacked = torch.nn.utils.rnn.pack_padded_sequence(tpadded, [2, 4, 3], enforce_sorted=False)
    np.testing.assert_array_equal(packed.data.numpy(), tpacked.data.numpy())
    assert packed.batch_sizes.tolist() == tpacked.batch_sizes.tolist()
    out, lengths = nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
    tout, tlengths = torch.nn.utils.rnn.pad_packed_sequence(tpacked, batch_first=True)
    np.testing.assert_array_equal(out.numpy(), tout.numpy())
    assert lengths.tolist() == tlengths.tolist()
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        nn.utils.rnn.pack_padded_sequence(padded, [2, 4, 3])


def test_deepcopy_and_pickle_modules():
    import copy
    import pickle

    net = Net()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight and isinstance(clone.fc1.weight, nn.Parameter)
    np.testing.assert_array_equal(
        clone.fc1.weight.detach().numpy(), net.fc1.weight.detach().numpy()
    )
    with tc.no_grad():
        clone.fc1.weight.add_(1.0)
    assert not np.allclose(clone.fc1.weight.detach().numpy(), net.fc1.weight.detach().numpy())
    restored = pickle.loads(pickle.dumps(net))
    x = tc.randn(2, 4)
    np.testing.assert_allclose(restored(x).detach().numpy(), net(x).detach().numpy(), rtol=1e-6)
    assert restored.scale.requires_grad and "scratch" in dict(restored.named_buffers())
    half = pickle.loads(pickle.dumps(tc.ones(3, dtype=tc.bfloat16)))
    assert half.dtype == tc.bfloat16


def test_full_backward_hook_matches_torch(torch_ref):
    torch = torch_ref
    lin, tlin = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    lin.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy()) for k, v in tlin.state_dict().items()}
    )
    seen, tseen = [], []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    tlin.register_full_backward_hook(lambda m, gi, go: tseen.append((gi, go)))
    x = np.arange(6.0).reshape(2, 3)
    xi = tc.from_numpy(x).requires_grad_(True)
    txi = torch.from_numpy(x).requires_grad_(True)
    (lin(xi) ** 2).sum().backward()
    (tlin(txi) ** 2).sum().backward()
    (gi, go), (tgi, tgo) = seen[0], tseen[0]
    np.testing.assert_allclose(gi[0].numpy(), tgi[0].numpy())
    np.testing.assert_allclose(go[0].numpy(), tgo[0].numpy())
    # A hook can replace grad_input; without inputs that need grad it sees (None,).
    handle = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    xi.grad = None
    lin(xi).sum().backward()
    assert float(xi.grad.abs().sum()) == 0.0
    handle.remove()
    seen.clear()
    lin(tc.ones(1, 3, dtype=tc.float64)).sum().backward()
    assert seen[0][0] == (None,) and tuple(seen[0][1][0].shape) == (1, 2)


def test_to_cpu_and_sync_batchnorm_conversion():
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    w = net[0].weight
    assert net.to("cpu") is net and net[0].weight is w and w.device == tc.device("cpu")
    net.to(tc.float64)
    assert w.dtype == tc.float64 and net[1].running_mean.dtype == tc.float64
    assert net[1].num_batches_tracked.dtype == tc.int64  # integer buffers keep their dtype
    with pytest.raises(TypeError, match="floating point"):
        net.to(tc.int32)
    net[1].train()
    net(tc.randn(4, 2, dtype=tc.float64))
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(synced[1], nn.SyncBatchNorm) and synced[1].running_mean.dtype == tc.float64
    np.testing.assert_array_equal(synced[1].running_mean.numpy(), net[1].running_mean.numpy())


def test_weight_norm_matches_torch(torch_ref):
    torch = torch_ref
    lin, tlin = nn.Linear(4, 3).double(), torch.nn.Linear(4, 3).double()
    lin.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy()) for k, v in tlin.state_dict().items()}
    )
    nn.utils.weight_norm(lin)
    torch.nn.utils.weight_norm(tlin)
    assert sorted(n for n, _ in lin.named_parameters()) == sorted(
        n for n, _ in tlin.named_parameters()
    )
    np.testing.assert_allclose(lin.weight_g.detach().numpy(), tlin.weight_g.detach().numpy())
    x = np.random.default_rng(0).standard_normal((5, 4))
    lin(tc.from_numpy(x)).pow(2).sum().backward()
    tlin(torch.from_numpy(x)).pow(2).sum().backward()
    np.testing.assert_allclose(lin.weight_g.grad.numpy(), tlin.weight_g.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(lin.weight_v.grad.numpy(), tlin.weight_v.grad.numpy(), rtol=1e-10)
    nn.utils.remove_weight_norm(lin)
    assert sorted(n for n, _ in lin.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(
        lin.weight.detach().numpy(), tlin.weight.detach().numpy(), rtol=1e-12
    )


def test_spectral_norm_matches_torch(torch_ref):
    torch = torch_ref
    lin, tlin = nn.Linear(5, 4).double(), torch.nn.Linear(5, 4).double()
    lin.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy()) for k, v in tlin.state_dict().items()}
    )
    nn.utils.spectral_norm(lin, n_power_iterations=2)
    torch.nn.utils.spectral_norm(tlin, n_power_iterations=2)
    # Same starting vectors for the power iteration.
    with tc.no_grad():
        lin.weight_u.copy_(tc.from_numpy(tlin.weight_u.numpy()))
        lin.weight_v.copy_(tc.from_numpy(tlin.weight_v.numpy()))
    assert sorted(lin.state_dict()) == sorted(tlin.state_dict())
    x = np.random.default_rng(0).standard_normal((3, 5))
    for _ in range(3):
        out, tout = lin(tc.from_numpy(x)), tlin(torch.from_numpy(x))
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-9)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(
        lin.weight_orig.grad.numpy(), tlin.weight_orig.grad.numpy(), rtol=1e-8, atol=1e-12
    )
    sigma = np.linalg.svd(lin.weight_orig.detach().numpy(), compute_uv=False)[0]
    np.testing.assert_allclose(
        np.linalg.svd(lin.weight.detach().numpy(), compute_uv=False)[0], 1.0, rtol=1e-3
    )
    assert sigma > 0
    nn.utils.remove_spectral_norm(lin)
    assert sorted(n for n, _ in lin.named_parameters()) == ["bias", "weight"]


def test_lazy_linear_materializes_in_place():
    lazy = nn.LazyLinear(3)
    weight = lazy.weight
    assert isinstance(weight, nn.UninitializedParameter)
    opt_params = list(lazy.parameters())
    out = lazy(tc.randn(5, 7))
    assert tuple(out.shape) == (5, 3) and type(lazy) is nn.Linear and lazy.in_features == 7
    assert lazy.weight is weight and type(weight) is nn.Parameter and tuple(weight.shape) == (3, 7)
    assert opt_params[0] is weight
    assert abs(float(weight.abs().max())) <= 1 / np.sqrt(7) + 1e-6  # Linear's default init ran
    assert "LazyLinear" not in repr(lazy) and "in_features=7" in repr(lazy)
    # Loading a state dict materializes from the stored shapes.
    other = nn.LazyLinear(3)
    other.load_state_dict(lazy.state_dict())
    assert type(other) is nn.Linear and tuple(other.weight.shape) == (3, 7)
    np.testing.assert_array_equal(other.weight.detach().numpy(), lazy.weight.detach().numpy())
    conv = nn.LazyConv2d(4, 3)
    assert isinstance(conv.weight, nn.UninitializedParameter)
    nobias = nn.LazyLinear(2, bias=False)
    assert nobias(tc.randn(1, 4)).shape[1] == 2 and nobias.bias is None
