import itertools

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(5)


def log_softmax_np(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def brute_force_nll(lp, target, blank):
    """-log sum over every alignment path that collapses to `target`."""
    T, C = lp.shape
    total = -np.inf
    for path in itertools.product(range(C), repeat=T):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or path[i - 1] != c)]
        if collapsed == list(target):
            total = np.logaddexp(total, sum(lp[t, c] for t, c in enumerate(path)))
    return -total


@pytest.mark.parametrize("target", [[1], [1, 2], [2, 2], [1, 2, 1], []])
def test_ctc_matches_brute_force(F, target):
    T, C = 5, 3
    lp = log_softmax_np(RNG.standard_normal((T, C)))
    loss = F.ctc_loss(
        tc.tensor(lp[:, None, :]),
        tc.tensor(np.array([target + [1] * (3 - len(target))])),
        [T],
        [len(target)],
        reduction="none",
    )
    np.testing.assert_allclose(loss.numpy()[0], brute_force_nll(lp, target, 0), rtol=1e-10)


def test_ctc_brute_force_with_nonzero_blank_and_short_input(F):
    T, C = 4, 3
    lp = log_softmax_np(RNG.standard_normal((T, C)))
    loss = F.ctc_loss(
        tc.tensor(lp[:, None, :]), tc.tensor(np.array([0, 1])), [3], [2], blank=2, reduction="sum"
    )
    np.testing.assert_allclose(loss.item(), brute_force_nll(lp[:3], [0, 1], 2), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_matches_torch(F, torch_ref, dtype, reduction, concatenated):
    T, N, C, S = 30, 4, 6, 8
    logits = RNG.standard_normal((T, N, C)).astype(dtype)
    tlen = np.array([8, 3, 0, 5])
    ilen = np.array([30, 25, 10, 12])
    targets = RNG.integers(1, C, size=(N, S))
    if concatenated:
        targets = np.concatenate([targets[n, : tlen[n]] for n in range(N)])
    x = tc.tensor(logits).requires_grad_(True)
    lp = x - x.logsumexp(-1, keepdim=True)
    loss = F.ctc_loss(lp, tc.tensor(targets), tc.tensor(ilen), tc.tensor(tlen), reduction=reduction)
    rx = torch_ref.tensor(logits, requires_grad=True)
    rloss = torch_ref.nn.functional.ctc_loss(
        rx.log_softmax(-1),
        torch_ref.tensor(targets),
        torch_ref.tensor(ilen),
        torch_ref.tensor(tlen),
        reduction=reduction,
    )
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(loss.detach().numpy(), rloss.detach().numpy(), rtol=tol, atol=tol)
    g = RNG.standard_normal(tuple(loss.shape)).astype(dtype)
    (loss * tc.tensor(g)).sum().backward()
    (rloss * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), rx.grad.numpy(), rtol=tol, atol=tol)


def test_ctc_zero_infinity_and_unbatched(F, torch_ref):
    T, C = 3, 4
    logits = RNG.standard_normal((T, 2, C))
    lp = log_softmax_np(logits)
    targets = np.array([[1, 1, 1, 2], [1, 2, 0, 0]])  # sample 0 needs >= 6 frames: infeasible
    x = tc.tensor(lp).requires_grad_(True)
    loss = F.ctc_loss(x, tc.tensor(targets), [3, 3], [4, 2], reduction="none", zero_infinity=True)
    rloss = torch_ref.nn.functional.ctc_loss(
        torch_ref.tensor(lp),
        torch_ref.tensor(targets),
        [3, 3],
        [4, 2],
        reduction="none",
        zero_infinity=True,
    )
    np.testing.assert_allclose(loss.detach().numpy(), rloss.numpy(), rtol=1e-10)
    assert loss.detach().numpy()[0] == 0.0
    loss.sum().backward()
    assert np.all(x.grad.numpy()[:, 0] == 0)
    inf = F.ctc_loss(tc.tensor(lp), tc.tensor(targets), [3, 3], [4, 2], reduction="none")
    assert np.isinf(inf.numpy()[0])
    single = F.ctc_loss(tc.tensor(lp[:, 1]), tc.tensor(np.array([1, 2])), [3], [2], reduction="sum")
    np.testing.assert_allclose(single.item(), rloss.numpy()[1], rtol=1e-10)


def test_ctc_gradcheck(F):
    lp = tc.tensor(log_softmax_np(RNG.standard_normal((6, 2, 4)))).requires_grad_(True)
    targets = tc.tensor(np.array([[1, 2, 2], [3, 1, 0]]))
    fn = lambda lp: F.ctc_loss(lp, targets, [6, 5], [3, 2], reduction="sum")
    assert tc.autograd.gradcheck(fn, (lp,))


def test_ctc_errors(F):
    lp = tc.zeros(5, 2, 4)
    with pytest.raises(
        ValueError,
        match=r"ctc_loss: expected log_probs of shape \(T, N, C\) or \(T, C\), got \[5\]",
    ):
        F.ctc_loss(tc.zeros(5), tc.tensor([[1]]), [5], [1])
    with pytest.raises(ValueError, match="input_lengths\\[1\\] = 7 must be in \\[0, 5\\]"):
        F.ctc_loss(lp, tc.tensor([[1], [2]]), [5, 7], [1, 1])
    with pytest.raises(
        IndexError, match="target 0 of sample 0 must be a class in \\[0, 4\\) other than blank"
    ):
        F.ctc_loss(lp, tc.tensor([[0], [2]]), [5, 5], [1, 1])
    with pytest.raises(ValueError, match="expected target_lengths to have 2 entries"):
        F.ctc_loss(lp, tc.tensor([[1], [2]]), [5, 5], [1])
    with pytest.raises(ValueError, match="reduction must be"):
        F.ctc_loss(lp, tc.tensor([[1], [2]]), [5, 5], [1, 1], reduction="avg")
