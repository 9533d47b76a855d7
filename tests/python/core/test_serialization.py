import io

import numpy as np
import pytest

import tensorcore as tc

ALL_DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def _sample(dtype, shape=(3, 4)):
    x = tc.arange(int(np.prod(shape)), dtype=tc.float64).reshape(*shape) * 0.75 - 2
    if dtype == "bool":
        return x > 0
    if dtype.startswith("complex"):
        return (x + 1j * (x * 2)).to(getattr(tc, dtype)) if hasattr(x, "__add__") else x
    return x.to(getattr(tc, dtype))


def _np(t):
    if t.dtype in (tc.bfloat16,):
        t = t.to(tc.float32)
    return t.numpy()


@pytest.mark.parametrize("fmt", ["safetensors", "pt"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_every_dtype(tmp_path, dtype, fmt):
    x = _sample(dtype)
    tc.save({"x": x}, tmp_path / "a.pt", format=fmt)
    y = tc.load(tmp_path / "a.pt")["x"]
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(_np(y), _np(x))


@pytest.mark.parametrize("fmt", ["safetensors", "pt"])
def test_nested_containers_and_scalars(fmt):
    obj = {
        "a": [1, 2.5, "s", None, True, (3, -4)],
        "b": {"c": tc.ones(2)},
        7: -(2**40),
        "big": 2**62,
        "neg": -(2**31) - 1,
        ("k", 1): "tuple key",
        "empty": [],
        "e2": {},
        "e3": (),
    }
    buf = io.BytesIO()
    tc.save(obj, buf, format=fmt)
    out = tc.load(io.BytesIO(buf.getvalue()))
    assert out["a"] == [1, 2.5, "s", None, True, (3, -4)]
    assert out[7] == -(2**40) and out["big"] == 2**62 and out["neg"] == -(2**31) - 1
    assert out[("k", 1)] == "tuple key"
    assert out["empty"] == [] and out["e2"] == {} and out["e3"] == ()
    np.testing.assert_array_equal(out["b"]["c"].numpy(), np.ones(2, np.float32))


def test_views_share_storage_after_load(tmp_path):
    base = tc.arange(12.0).reshape(3, 4)
    obj = {"base": base, "row": base[1], "colT": base.t()[2], "strided": base[:, ::2]}
    tc.save(obj, tmp_path / "v.pt", format="pt")
    out = tc.load(tmp_path / "v.pt")
    np.testing.assert_array_equal(out["row"].numpy(), base[1].numpy())
    np.testing.assert_array_equal(out["colT"].numpy(), base.t()[2].numpy())
    np.testing.assert_array_equal(out["strided"].numpy(), base[:, ::2].numpy())
    out["base"][1, 0] = 100.0  # a write through one view is seen by the others
    assert out["row"][0].item() == 100.0
    assert out["strided"][1, 0].item() == 100.0


def test_file_objects_and_bytes(tmp_path):
    buf = io.BytesIO()
    tc.save([tc.tensor([1, 2, 3])], buf)
    buf.seek(0)
    assert tc.load(buf)[0].tolist() == [1, 2, 3]
    assert tc.load(buf.getvalue())[0].tolist() == [1, 2, 3]


def test_requires_grad_is_kept(tmp_path):
    w = tc.ones(3, requires_grad=True)
    tc.save({"w": w}, tmp_path / "g.pt")
    assert tc.load(tmp_path / "g.pt")["w"].requires_grad


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(TypeError, match="cannot serialize an object of type 'dict'.*lambda"):
        tc.save({"x": lambda: 0}, tmp_path / "bad.pt")  # other objects pickle as torch.save
    with pytest.raises(Exception, match="uint16"):
        tc.save({"x": tc.zeros(2, dtype=tc.uint16)}, tmp_path / "u16.pt", format="pt")
    with pytest.raises(ValueError, match="format"):
        tc.save({}, tmp_path / "x", format="npz")
    tc.save({"x": tc.ones(1000)}, tmp_path / "ok.pt", format="pt")
    data = (tmp_path / "ok.pt").read_bytes()
    for broken in (data[: len(data) // 2], data[:10], b"", b"not a checkpoint at all"):
        with pytest.raises(RuntimeError):
            tc.load(broken)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF  # inside the storage: the CRC check catches it
    with pytest.raises(RuntimeError, match="(?i)crc"):
        tc.load(bytes(flipped))
    with pytest.raises(OSError):
        tc.load(tmp_path / "missing.pt")
    with pytest.raises(RuntimeError, match="map_location"):
        if getattr(tc, "cuda", None) is not None and tc.cuda.is_available():
            pytest.skip("needs a machine without CUDA")
        tc.load(tmp_path / "ok.pt", map_location="cuda")


def test_map_location_callable_and_dict(tmp_path):
    tc.save({"x": tc.ones(2)}, tmp_path / "m.pt")
    seen = []
    out = tc.load(tmp_path / "m.pt", map_location=lambda t, loc: seen.append(loc) or t * 2)
    assert seen == ["cpu"] and out["x"].tolist() == [2.0, 2.0]
    assert tc.load(tmp_path / "m.pt", map_location={"cpu": "cpu"})["x"].tolist() == [1.0, 1.0]


def test_torch_loads_what_we_save(tmp_path, torch_ref):
    torch = torch_ref
    base = tc.arange(20.0).reshape(4, 5)
    obj = {
        "w": base,
        "wT": base.t(),
        "half": tc.ones(3, dtype=tc.float16),
        "c": _sample("complex64"),
        "i": tc.tensor([1, -2], dtype=tc.int64),
        "lr": 0.1,
        "steps": [1, 2],
        "flag": False,
        "name": "m",
    }
    tc.save(obj, tmp_path / "tc.pt", format="pt")
    out = torch.load(tmp_path / "tc.pt")
    np.testing.assert_array_equal(out["w"].numpy(), base.numpy())
    np.testing.assert_array_equal(out["wT"].numpy(), base.t().numpy())
    assert out["wT"].stride() == (1, 5)
    assert out["w"].data_ptr() == out["wT"].data_ptr()  # still one storage
    assert out["half"].dtype == torch.float16
    np.testing.assert_array_equal(out["c"].numpy(), obj["c"].numpy())
    assert (
        out["lr"] == 0.1 and out["steps"] == [1, 2] and out["flag"] is False and out["name"] == "m"
    )


def test_we_load_what_torch_saves(tmp_path, torch_ref):
    torch = torch_ref
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.Flatten(), torch.nn.Linear(8, 4)
    )
    model[3].weight = torch.nn.Parameter(torch.randn(4, 8))
    sd = model.state_dict()
    sd["tied"] = sd["3.weight"]
    sd["view"] = sd["0.weight"][:, 1]
    sd["bf16"] = torch.randn(5).to(torch.bfloat16)
    torch.save(sd, tmp_path / "torch.pt")
    out = tc.load(tmp_path / "torch.pt")
    assert list(out) == list(sd)
    for k, v in sd.items():
        got = out[k]
        assert tuple(got.shape) == tuple(v.shape), k
        ref = v.float().numpy() if v.dtype == torch.bfloat16 else v.numpy()
        np.testing.assert_array_equal(_np(got), ref)
    out["3.weight"][0, 0] = 42.0
    assert out["tied"][0, 0].item() == 42.0
    assert out["1.num_batches_tracked"].dtype == tc.int64
    # An optimizer-style checkpoint with int keys and nested state.
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    model(torch.randn(2, 3, 3, 3)).sum().backward()
    opt.step()
    torch.save(opt.state_dict(), tmp_path / "opt.pt")
    osd = tc.load(tmp_path / "opt.pt")
    assert osd["param_groups"][0]["lr"] == 0.5
    assert set(osd["state"]) == set(opt.state_dict()["state"])


def test_safetensors_round_trip(tmp_path):
    tensors = {d: _sample(d) for d in ALL_DTYPES + ["uint16"] if d != "uint16"}
    tensors["u16"] = tc.arange(5).to(tc.uint16)
    tensors["noncontig"] = tc.arange(12.0).reshape(3, 4).t()
    tc.serialization.save_safetensors(tensors, tmp_path / "t.safetensors", {"format": "pt"})
    out = tc.serialization.load_safetensors(tmp_path / "t.safetensors")
    assert list(out) == list(tensors)
    for k, v in tensors.items():
        assert out[k].dtype == v.dtype
        np.testing.assert_array_equal(_np(out[k]), _np(v))
    assert tc.serialization._S.safetensors_metadata(str(tmp_path / "t.safetensors")) == {
        "format": "pt"
    }
    assert tc.load(tmp_path / "t.safetensors")["noncontig"].shape == (4, 3)


def test_safetensors_default_keeps_structure_and_names(tmp_path):
    obj = {
        "model": {"fc.weight": tc.ones(2, 3), "fc.bias": tc.zeros(2)},
        "epoch": 3,
        "hist": [0.5, float("inf")],
        True: "bool key",
        1.5: None,
        "a": {"b": tc.ones(1)},
        "a.b": tc.zeros(1),
        "w": tc.ones(2, requires_grad=True),
        "t": (tc.ones(1), "x"),
    }
    tc.save(obj, tmp_path / "ck.safetensors")
    plain = tc.serialization.load_safetensors(tmp_path / "ck.safetensors")
    assert "model.fc.weight" in plain and "t.0" in plain  # other readers see dotted names
    assert "a.b" in plain and "a.b#1" in plain  # colliding paths stay distinct
    out = tc.load(tmp_path / "ck.safetensors")
    assert set(out) == set(obj)
    assert out["epoch"] == 3 and out["hist"] == [0.5, float("inf")] and out[True] == "bool key"
    assert out[1.5] is None and isinstance(out["t"], tuple) and out["t"][1] == "x"
    assert out["w"].requires_grad and not out["model"]["fc.bias"].requires_grad
    np.testing.assert_array_equal(out["a"]["b"].numpy(), [1.0])
    np.testing.assert_array_equal(out["a.b"].numpy(), [0.0])


def test_safetensors_file_layout_is_standard(tmp_path):
    """Parses the file by hand as the safetensors spec describes, as another reader would."""
    import json
    import struct

    tc.save({"x": tc.arange(6, dtype=tc.float32).reshape(2, 3)}, tmp_path / "s.safetensors")
    data = (tmp_path / "s.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    entry = header["x"]
    assert entry["dtype"] == "F32" and entry["shape"] == [2, 3]
    b, e = entry["data_offsets"]
    np.testing.assert_array_equal(np.frombuffer(data[8 + n + b : 8 + n + e], "<f4"), np.arange(6))
    assert "tensorcore.structure" in header["__metadata__"]
