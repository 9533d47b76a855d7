"""tc.save of whole modules, NumPy arrays and any picklable object in torch's zip format;
tc.load safe by default (issue 25, point 4). Cross-checked with torch 1.13 both ways."""

import io
import pickle
import zipfile

import numpy as np
import pytest

import tensorcore as tc


class Net(tc.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tc.nn.Conv2d(1, 2, 3)
        self.bn = tc.nn.BatchNorm2d(2)
        self.fc = tc.nn.Linear(8, 3)
        self.tag = {"epoch": 3, "classes": ("a", "b", "c")}

    def forward(self, x):
        return self.fc(tc.relu(self.bn(self.conv(x))).flatten(1))


def test_whole_module_round_trip(tmp_path):
    net = Net().eval()
    net.fc.weight.data.mul_(2)
    path = tmp_path / "net.pt"
    tc.save(net, path)
    assert zipfile.is_zipfile(path)
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False") as info:
        tc.load(path)
    assert isinstance(info.value, RuntimeError)  # also catchable as torch's RuntimeError
    loaded = tc.load(path, weights_only=False)
    assert type(loaded) is Net and loaded.tag == net.tag and not loaded.training
    assert isinstance(loaded.fc.weight, tc.nn.Parameter) and loaded.fc.weight.requires_grad
    x = tc.randn(2, 1, 4, 4)
    assert tc.equal(loaded(x), net(x))
    # A loaded module trains: its parameters are leaves of the graph.
    loaded(x).sum().backward()
    assert loaded.conv.weight.grad is not None


def test_file_objects_and_data_still_safetensors(tmp_path):
    buf = io.BytesIO()
    tc.save({"w": tc.ones(2)}, buf)
    assert buf.getvalue()[:4] != b"PK\x03\x04"  # data keeps the safetensors default
    buf = io.BytesIO()
    tc.save([np.arange(3), tc.ones(2)], buf)
    out = tc.load(io.BytesIO(buf.getvalue()), weights_only=False)
    np.testing.assert_array_equal(out[0], np.arange(3))
    assert tc.equal(out[1], tc.ones(2))
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        tc.load(buf.getvalue())


def test_views_share_one_storage_and_dtypes_survive(tmp_path):
    base = tc.arange(12.0).reshape(3, 4)
    obj = {
        "base": base,
        "col": base[:, 1],
        "tail": base.flatten()[5:],
        "bf16": tc.arange(4.0).to(tc.bfloat16),
        "flag": tc.tensor([True, False]),
        "dtype": tc.int16,
        "device": tc.device("cpu"),
        "cls": tc.nn.Linear,
    }
    tc.save(obj, tmp_path / "o.pt")
    out = tc.load(tmp_path / "o.pt", weights_only=False)
    for key in ("base", "col", "tail", "bf16", "flag"):
        assert out[key].dtype == obj[key].dtype and tc.equal(out[key], obj[key])
    assert out["dtype"] is tc.int16 and out["device"] == tc.device("cpu")
    assert out["cls"] is tc.nn.Linear
    out["base"][0, 1] = 100.0  # the views still alias their base, as torch keeps them
    assert float(out["col"][0]) == 100.0
    assert out["tail"].untyped_storage_ptr() == out["base"].untyped_storage_ptr()


def test_torch_reads_our_pickled_files(tmp_path, torch_ref):
    base = tc.arange(6.0).reshape(2, 3)
    obj = {
        "array": np.linspace(0, 1, 5),
        "t": base.t(),
        "dtype": tc.float64,
        "device": tc.device("cpu"),
        "p": tc.nn.Parameter(tc.ones(2)),
        "meta": {"lr": 0.1, "ids": [1, 2]},
    }
    tc.save(obj, tmp_path / "ours.pt")
    theirs = torch_ref.load(tmp_path / "ours.pt")
    np.testing.assert_array_equal(theirs["array"], obj["array"])
    assert theirs["t"].tolist() == base.t().tolist() and theirs["t"].stride() == (1, 3)
    assert theirs["dtype"] is torch_ref.float64 and theirs["device"] == torch_ref.device("cpu")
    assert isinstance(theirs["p"], torch_ref.nn.Parameter) and theirs["p"].requires_grad
    assert theirs["meta"] == obj["meta"]


def test_we_read_torchs_whole_modules(tmp_path, torch_ref):
    torch_ref.manual_seed(0)
    model = torch_ref.nn.Sequential(
        torch_ref.nn.Linear(4, 5), torch_ref.nn.ReLU(), torch_ref.nn.Linear(5, 2)
    )
    torch_ref.save({"model": model, "array": np.eye(2), "epoch": 7}, tmp_path / "t.pt")
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        tc.load(tmp_path / "t.pt")
    ours = tc.load(tmp_path / "t.pt", weights_only=False)
    assert isinstance(ours["model"], tc.nn.Sequential) and ours["epoch"] == 7
    np.testing.assert_array_equal(ours["array"], np.eye(2))
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(
        ours["model"](tc.tensor(x)).detach().numpy(),
        model(torch_ref.tensor(x)).detach().numpy(),
        rtol=1e-6,
    )


def test_torch_names_we_lack_are_named(tmp_path, torch_ref):
    torch_ref.save({"q": torch_ref.ao.quantization.QConfig}, tmp_path / "x.pt")
    with pytest.raises(pickle.UnpicklingError, match="QConfig"):
        tc.load(tmp_path / "x.pt", weights_only=False)


def test_corrupt_pickled_file(tmp_path):
    tc.save({"a": np.ones(3), "t": tc.ones(3)}, tmp_path / "a.pt")
    with zipfile.ZipFile(tmp_path / "a.pt") as z:
        records = {n: z.read(n) for n in z.namelist()}
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as z:  # the pickle without its storage record
        for name, data in records.items():
            if "/data/" not in name:
                z.writestr(name, data)
    with pytest.raises(pickle.UnpicklingError, match="data/0"):
        tc.load(bad.getvalue(), weights_only=False)
    with pytest.raises(RuntimeError, match="data.pkl"):
        tc.load(_zip_of({"archive/version": b"3"}), weights_only=False)


def _zip_of(records):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in records.items():
            z.writestr(name, data)
    return out.getvalue()


def test_unpicklable_objects_raise(tmp_path):
    with pytest.raises(TypeError, match="lambda"):
        tc.save({"f": lambda x: x}, tmp_path / "l.pt")
    assert not (tmp_path / "l.pt").exists()
