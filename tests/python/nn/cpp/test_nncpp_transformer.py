"""tc::nn::Transformer (C++) against torch.nn.Transformer: torch's weights load strictly and give
torch's outputs (NnCppTransformerInterop.MatchesTorch), and a C++ state dict loads into torch."""

import pytest
from nncpp_testing import needs_tc_tests, run_gtest

torch = pytest.importorskip("torch")

CONFIGS = [dict(activation="gelu", batch_first=True, norm_first=True), dict()]


def make(cfg):
    return torch.nn.Transformer(
        d_model=8,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=16,
        dropout=0.0,
        **cfg,
    )


@needs_tc_tests
def test_transformer_matches_torch(tmp_path):
    torch.manual_seed(0)
    for i, cfg in enumerate(CONFIGS):
        model = make(cfg)
        with torch.no_grad():  # non-trivial norms
            for name, p in model.named_parameters():
                if "norm" in name:
                    p.uniform_(0.5, 1.5) if name.endswith("weight") else p.uniform_(-0.5, 0.5)
        model.train()  # dropout 0; the regular (non-fused) path handles the padding mask like tc
        bf = cfg.get("batch_first", False)
        S, T, N = 6, 5, 3
        src = torch.randn(N, S, 8) if bf else torch.randn(S, N, 8)
        tgt = torch.randn(N, T, 8) if bf else torch.randn(T, N, 8)
        src_kpm = torch.zeros(N, S, dtype=torch.bool)
        src_kpm[1, 4:] = True
        tgt_mask = model.generate_square_subsequent_mask(T)
        y = model(
            src,
            tgt,
            tgt_mask=tgt_mask,
            src_key_padding_mask=src_kpm,
            memory_key_padding_mask=src_kpm,
        )
        torch.save(model.state_dict(), tmp_path / f"torch_sd{i}.pt")
        torch.save(
            {"src": src, "tgt": tgt, "tgt_mask": tgt_mask, "src_kpm": src_kpm, "y": y.detach()},
            tmp_path / f"torch_io{i}.pt",
        )

    run_gtest("NnCppTransformerInterop.*", "NNCPP_TRANSFORMER_DIR", tmp_path, passed=1)

    for i, cfg in enumerate(CONFIGS):
        sd = torch.load(tmp_path / f"cpp_sd{i}.pt")
        ref = make(cfg)
        assert list(sd.keys()) == list(ref.state_dict().keys())
        ref.load_state_dict(sd, strict=True)
        # xavier_uniform_ on every matrix, as torch: bound sqrt(6 / (fan_in + fan_out)).
        w = sd["encoder.layers.0.linear1.weight"]
        assert w.abs().max() <= (6 / (8 + 16)) ** 0.5 + 1e-6
