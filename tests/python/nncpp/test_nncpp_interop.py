"""State dicts move between the C++ frontend (tc::nn) and torch.nn: the C++ test
NnCppInterop.TorchStateDictBothWays loads torch's file and writes its own, checked here."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

ROOT = pathlib.Path(__file__).resolve().parents[3]
TC_TESTS = ROOT / "build" / "tc_tests"


class InteropNet(nn.Module):
    # Mirrors InteropNet in tests/cpp/nncpp/train_test.cpp.
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(64, 5)
        self.rnn = nn.LSTM(5, 6, 2)
        self.ln = nn.LayerNorm(6)

    def forward(self, x):
        c = self.classifier(self.features(x).flatten(1))
        out, _ = self.rnn(c.unsqueeze(0).repeat(3, 1, 1))
        return self.ln(out[2])


@pytest.mark.skipif(not TC_TESTS.exists(), reason="build/tc_tests not built")
def test_state_dict_both_ways(tmp_path):
    torch.manual_seed(0)
    ref = InteropNet()
    ref.train()
    ref(torch.randn(4, 3, 8, 8))  # non-trivial running stats
    ref.eval()
    with torch.no_grad():
        for p in ref.ln.parameters():
            p.uniform_(-1, 1)
    x = torch.randn(2, 3, 8, 8)
    torch.save(ref.state_dict(), tmp_path / "torch_sd.pt")
    torch.save({"x": x, "y": ref(x).detach()}, tmp_path / "torch_io.pt")

    env = dict(os.environ, NNCPP_INTEROP_DIR=str(tmp_path))
    run = subprocess.run([str(TC_TESTS), "--gtest_filter=NnCppInterop.*"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "[  PASSED  ] 1 test" in run.stdout, run.stdout

    sd = torch.load(tmp_path / "cpp_sd.pt")
    fresh = InteropNet()
    assert list(sd.keys()) == list(fresh.state_dict().keys())
    for k, v in fresh.state_dict().items():
        assert sd[k].shape == v.shape and sd[k].dtype == v.dtype, k
    fresh.load_state_dict(sd, strict=True)
    fresh.eval()
    io = torch.load(tmp_path / "cpp_io.pt")
    torch.testing.assert_close(fresh(io["x"]), io["y"], rtol=1e-4, atol=1e-5)
    assert int(sd["features.1.num_batches_tracked"]) == 1

    # The safetensors file, read by hand (8-byte header size, JSON header, raw little-endian data).
    raw = (tmp_path / "cpp_sd.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    assert set(header) == set(sd)
    np_dtype = {"F32": np.float32, "I64": np.int64}
    for k, info in header.items():
        b, e = info["data_offsets"]
        arr = np.frombuffer(raw[8 + n + b:8 + n + e], dtype=np_dtype[info["dtype"]]).reshape(info["shape"])
        assert torch.equal(torch.from_numpy(arr.copy()), sd[k]), k
