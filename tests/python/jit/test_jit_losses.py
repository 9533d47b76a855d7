"""tc.jit traces a loss call as one node (the _C._nn binding) and replays it through
tensorcore/jit/ops_losses.cpp, legacy flags and keyword arguments included."""

import numpy as np

import tensorcore as tc
import tensorcore.nn.functional as F


class Losses(tc.nn.Module):
    def forward(self, x, t, c, ml):
        return (
            F.mse_loss(x, t)
            + F.cross_entropy(x, c, label_smoothing=0.1)
            + F.smooth_l1_loss(x, t, beta=0.5, size_average=False)
            + F.multi_margin_loss(x, c, p=2)
            + F.gaussian_nll_loss(x, t, 0.5)
            + F.kl_div(x, t.softmax(1), reduction="batchmean")
            + F.multilabel_margin_loss(x, ml)
            + F.hinge_embedding_loss(x, t.sign())
            + F.nll_loss(x, c, ignore_index=1)
            + F.binary_cross_entropy_with_logits(x, t.sigmoid())
            + F.triplet_margin_loss(x, t, x * 2)
        )


def test_traced_losses_replay_after_save_and_load(tmp_path):
    t, c = tc.randn(4, 3), tc.tensor([0, 2, 1, 1])
    ml = tc.tensor([[1, -1, 0]] * 4)
    model = Losses()
    traced = tc.jit.trace(model, (tc.randn(4, 3), t, c, ml))
    tc.jit.save(traced, tmp_path / "losses.pt")
    loaded = tc.jit.load(tmp_path / "losses.pt")
    x = tc.randn(4, 3)
    expected = model(x, t, c, ml).item()
    assert np.isfinite(expected)
    assert traced(x, t, c, ml).item() == expected
    assert loaded(x, t, c, ml).item() == expected
