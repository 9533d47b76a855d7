"""State dicts move between the C++ frontend (tc::nn) and torch.nn: the C++ test
NnCppInterop.TorchStateDictBothWays loads torch's file and writes its own, checked here."""

import json

import numpy as np
import pytest
from nncpp_testing import needs_tc_tests, run_gtest

torch = pytest.importorskip("torch")
nn = torch.nn


class InteropNet(nn.Module):
    # Mirrors InteropNet in tests/cpp/nn/train_test.cpp.
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, 3, 1, 1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2)
        )
        self.classifier = nn.Linear(64, 5)
        self.rnn = nn.LSTM(5, 6, 2)
        self.ln = nn.LayerNorm(6)

    def forward(self, x):
        c = self.classifier(self.features(x).flatten(1))
        out, _ = self.rnn(c.unsqueeze(0).repeat(3, 1, 1))
        return self.ln(out[2])


class SeqNet(nn.Module):
    # Mirrors SeqNet in tests/cpp/nn/train_test.cpp.
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8, padding_idx=0)
        layer = nn.TransformerEncoderLayer(
            8, 2, 16, 0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
        self.gru = nn.GRU(8, 5, 2, batch_first=True, bidirectional=True)
        self.up = nn.ConvTranspose2d(1, 2, 3, 2, 1, 1)
        self.gn = nn.GroupNorm(2, 2)

    def forward(self, tokens):
        x = self.enc(self.emb(tokens), src_key_padding_mask=tokens == 0)
        out, _ = self.gru(x)
        return self.gn(self.up(out.unsqueeze(1)))


@needs_tc_tests
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

    seq = SeqNet()  # train mode with dropout 0: deterministic, regular (non-fused) torch path
    with torch.no_grad():
        for name, p in seq.named_parameters():
            if "norm" in name or name.startswith("gn"):
                p.uniform_(0.5, 1.5) if name.endswith("weight") else p.uniform_(-0.5, 0.5)
    tokens = torch.randint(1, 20, (3, 7))
    tokens[1, 5:] = 0  # padding
    torch.save(seq.state_dict(), tmp_path / "torch_seq_sd.pt")
    torch.save({"tokens": tokens, "y": seq(tokens).detach()}, tmp_path / "torch_seq_io.pt")

    run_gtest("NnCppInterop.*", "NNCPP_INTEROP_DIR", tmp_path, passed=2)

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
    header = json.loads(raw[8 : 8 + n])
    header.pop("__metadata__", None)
    assert set(header) == set(sd)
    np_dtype = {"F32": np.float32, "I64": np.int64}
    for k, info in header.items():
        b, e = info["data_offsets"]
        arr = np.frombuffer(raw[8 + n + b : 8 + n + e], dtype=np_dtype[info["dtype"]]).reshape(
            info["shape"]
        )
        assert torch.equal(torch.from_numpy(arr.copy()), sd[k]), k
