"""The C++ frontend's extra losses (tc::nn::functional::l1_loss ... gaussian_nll_loss) against
torch.nn.functional: NnCppLossInterop.Values evaluates them on the inputs written here."""

import numpy as np
import pytest
from nncpp_testing import needs_tc_tests, run_gtest

torch = pytest.importorskip("torch")
Fn = torch.nn.functional


@needs_tc_tests
def test_cpp_losses_match_torch(tmp_path):
    g = torch.Generator().manual_seed(0)
    n, d = 5, 4
    inp = {
        "x": torch.randn(n, d, generator=g, dtype=torch.float64),
        "t": torch.randn(n, d, generator=g, dtype=torch.float64),
        "n": torch.randn(n, d, generator=g, dtype=torch.float64),
        "p": torch.rand(n, d, generator=g, dtype=torch.float64),
        "w": torch.rand(n, d, generator=g, dtype=torch.float64) + 0.5,
        "c": torch.randint(0, 5, (n, d), generator=g).double(),
        "var": torch.rand(n, d, generator=g, dtype=torch.float64) + 0.1,
        "var1": torch.rand(n, 1, generator=g, dtype=torch.float64) + 0.1,
        "y": torch.randint(0, 2, (n, d), generator=g).double() * 2 - 1,
        "y1": torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0], dtype=torch.float64),
        "gw": torch.randn(
            n, d, generator=g, dtype=torch.float64
        ),  # output-gradient weights for "none"
    }
    inp["p"][0, 0] = 0.0  # kl_div's 0 * log 0 = 0
    inp["logp"] = torch.log_softmax(torch.randn(n, d, generator=g, dtype=torch.float64), 1)

    def losses(x, red):
        t, p = inp["t"], inp["p"]
        return {
            "l1": Fn.l1_loss(x, t, reduction=red),
            "smooth_l1": Fn.smooth_l1_loss(x, t, reduction=red, beta=0.7),
            "huber": Fn.huber_loss(x, t, reduction=red, delta=0.6),
            "bce": Fn.binary_cross_entropy(torch.sigmoid(x), p, inp["w"], reduction=red),
            "kl": Fn.kl_div(x, p, reduction=red),
            "kl_log": Fn.kl_div(x, inp["logp"], reduction=red, log_target=True),
            "margin_ranking": Fn.margin_ranking_loss(x, t, inp["y"], margin=0.3, reduction=red),
            "poisson": Fn.poisson_nll_loss(x, inp["c"], log_input=True, full=True, reduction=red),
            "poisson_lin": Fn.poisson_nll_loss(x.exp(), inp["c"], log_input=False, reduction=red),
            "gaussian": Fn.gaussian_nll_loss(x, t, inp["var"], full=True, reduction=red),
            "gaussian_homo": Fn.gaussian_nll_loss(x, t, inp["var1"], reduction=red),
            "cosine": Fn.cosine_embedding_loss(x, t, inp["y1"], margin=0.2, reduction=red),
            "triplet": Fn.triplet_margin_loss(x, t, inp["n"], margin=1.0, p=2, reduction=red),
            "triplet_swap_p1": Fn.triplet_margin_loss(
                x, t, inp["n"], margin=0.5, p=1, swap=True, reduction=red
            ),
        }

    # "none" outputs are (n, d), or (n,) for the pairwise losses, which use gw's first column.
    assert {tuple(v.shape) for v in losses(inp["x"], "none").values()} == {(n, d), (n,)}
    torch.save({k: v for k, v in inp.items()}, tmp_path / "inputs.pt")
    run_gtest("NnCppLossInterop.*", "NNCPP_LOSS_DIR", tmp_path)
    got = torch.load(tmp_path / "cpp_losses.pt")
    for red in ("none", "mean", "sum"):
        for name in losses(inp["x"], red):
            x = inp["x"].clone().requires_grad_()
            val = losses(x, red)[name]
            s = (
                (val * (inp["gw"] if val.dim() == 2 else inp["gw"][:, 0])).sum()
                if red == "none"
                else val
            )
            s.backward()
            np.testing.assert_allclose(
                got[f"{name}.{red}"].numpy(),
                val.detach().numpy(),
                rtol=1e-10,
                atol=1e-12,
                err_msg=f"{name} {red}",
            )
            np.testing.assert_allclose(
                got[f"{name}.{red}.grad"].numpy(),
                x.grad.numpy(),
                rtol=1e-9,
                atol=1e-12,
                err_msg=f"{name} {red} grad",
            )
    x = inp["x"].clone()
    np.testing.assert_allclose(
        got["kl.batchmean"].numpy(),
        Fn.kl_div(x, inp["p"], reduction="batchmean").numpy(),
        rtol=1e-12,
    )
