"""The fused cross-entropy kernel (log-softmax + NLL + weights + label smoothing in one pass, the
gradient in another) against torch, in float32 at a realistic size and with double backward."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_fused_cross_entropy_matches_torch_float32(torch_ref, reduction, smoothing, weighted):
    torch = torch_ref
    x = RNG.standard_normal((64, 1000)).astype(np.float32) * 3
    t = RNG.integers(0, 1000, size=64)
    t[[3, 17]] = -100
    w = RNG.uniform(0.2, 2.0, size=1000).astype(np.float32) if weighted else None
    g = RNG.standard_normal(64).astype(np.float32) if reduction == "none" else np.float32(1.7)
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    xc = tc.from_numpy(x).requires_grad_()
    out = F.cross_entropy(xc, tc.from_numpy(t), None if w is None else tc.from_numpy(w), **kw)
    out.backward(tc.from_numpy(np.asarray(g)))
    xt = torch.from_numpy(x).requires_grad_()
    ref = torch.nn.functional.cross_entropy(
        xt, torch.from_numpy(t), None if w is None else torch.from_numpy(w), **kw
    )
    ref.backward(torch.from_numpy(np.asarray(g)))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-7)
    assert not xc.grad.numpy()[[3, 17]].any()  # ignored rows get no gradient


def test_fused_cross_entropy_double_backward_and_errors(torch_ref):
    torch = torch_ref
    xn = RNG.standard_normal((4, 5, 3))
    tn = RNG.integers(0, 5, size=(4, 3))
    tn[1, 2] = -100
    wn = RNG.uniform(0.5, 2, size=5)
    x, t, w = tc.from_numpy(xn).requires_grad_(), tc.from_numpy(tn), tc.from_numpy(wn)
    f = lambda a: F.cross_entropy(a, t, w, label_smoothing=0.15)
    assert gradcheck(f, (x,))
    assert gradgradcheck(
        lambda a: F.cross_entropy(a, t, w, reduction="none", label_smoothing=0.15), (x,)
    )
    # Scalar reduction under create_graph: d/dx |grad|^2 as torch computes it.
    (g,) = tc.autograd.grad(f(x), x, create_graph=True)
    (g * g).sum().backward()
    xt = torch.from_numpy(xn).requires_grad_()
    (gt,) = torch.autograd.grad(
        torch.nn.functional.cross_entropy(
            xt, torch.from_numpy(tn), torch.from_numpy(wn), label_smoothing=0.15
        ),
        xt,
        create_graph=True,
    )
    (gt * gt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.cross_entropy(tc.randn(2, 5), tc.tensor([1, 7]))
    with pytest.raises(ValueError, match="expected target of shape"):
        F.cross_entropy(tc.randn(2, 5), tc.tensor([1, 2, 3]))
    # Extreme logits stay finite.
    big = tc.tensor([[1e4, -1e4, 0.0]], requires_grad=True)
    loss = F.cross_entropy(big, tc.tensor([1]))
    loss.backward()
    assert float(loss) == pytest.approx(2e4)
    np.testing.assert_allclose(big.grad.numpy(), [[1, -1, 0]], atol=1e-6)
