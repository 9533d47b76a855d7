import numpy as np
import pytest

import tensorcore as tc
from shared_inputs import EMBEDDING_BAG_CASES

RNG = np.random.default_rng(17)


def randn(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(padding_idx=2),
        dict(padding_idx=-1, scale_grad_by_freq=True),
        dict(max_norm=1.0),
        dict(max_norm=0.5, norm_type=1.0),
    ],
)
def test_embedding_matches_torch(F, torch_ref, kwargs):
    w = randn(7, 4)
    idx = np.array([[0, 2, 6], [2, 2, 5]])
    tw = tc.tensor(w.copy()).requires_grad_(True)
    rw = torch_ref.tensor(w.copy(), requires_grad=True)
    y = F.embedding(tc.tensor(idx), tw, **kwargs)
    ry = torch_ref.nn.functional.embedding(torch_ref.tensor(idx), rw, **kwargs)
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        tw.detach().numpy(), rw.detach().numpy(), rtol=1e-12
    )  # max_norm renorm
    g = randn(2, 3, 4)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tw.grad.numpy(), rw.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("idx,offsets,kwargs", EMBEDDING_BAG_CASES)
def test_embedding_bag_matches_torch(F, torch_ref, idx, offsets, kwargs):
    w = randn(10, 3)
    tw = tc.tensor(w).requires_grad_(True)
    rw = torch_ref.tensor(w, requires_grad=True)
    y = F.embedding_bag(
        tc.tensor(idx), tw, None if offsets is None else tc.tensor(offsets), **kwargs
    )
    ry = torch_ref.nn.functional.embedding_bag(
        torch_ref.tensor(idx), rw, None if offsets is None else torch_ref.tensor(offsets), **kwargs
    )
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-12)
    g = randn(*y.shape)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tw.grad.numpy(), rw.grad.numpy(), rtol=1e-12)


def test_embedding_bag_scale_grad_by_freq(F):
    # Each occurrence's gradient is divided by its row's frequency in the batch (as embedding does;
    # torch 1.13's CPU embedding_bag deviates from this for repeated rows).
    w = tc.tensor(randn(10, 3)).requires_grad_(True)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    y = F.embedding_bag(
        tc.tensor(idx), w, tc.tensor(np.array([0, 4])), mode="sum", scale_grad_by_freq=True
    )
    y.sum().backward()
    expected = np.zeros((10, 3))
    expected[np.unique(idx)] = 1.0
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)


def test_embedding_bag_per_sample_weights(F, torch_ref):
    w, psw = randn(10, 3), randn(8)
    idx, off = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4])
    tw, tp = tc.tensor(w).requires_grad_(True), tc.tensor(psw).requires_grad_(True)
    rw, rp = torch_ref.tensor(w, requires_grad=True), torch_ref.tensor(psw, requires_grad=True)
    y = F.embedding_bag(tc.tensor(idx), tw, tc.tensor(off), mode="sum", per_sample_weights=tp)
    ry = torch_ref.nn.functional.embedding_bag(
        torch_ref.tensor(idx), rw, torch_ref.tensor(off), mode="sum", per_sample_weights=rp
    )
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-12)
    g = randn(2, 3)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tw.grad.numpy(), rw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tp.grad.numpy(), rp.grad.numpy(), rtol=1e-12)
    # naive reference
    ref = np.stack([(w[idx[:4]] * psw[:4, None]).sum(0), (w[idx[4:]] * psw[4:, None]).sum(0)])
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-12)


def test_embedding_gradcheck(F):
    w = tc.tensor(randn(6, 3)).requires_grad_(True)
    idx = tc.tensor(np.array([[0, 5], [3, 3]]))
    assert tc.autograd.gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert tc.autograd.gradcheck(
        lambda w: F.embedding_bag(
            tc.tensor(np.array([0, 1, 5, 3])), w, tc.tensor(np.array([0, 1])), mode="mean"
        ),
        (w,),
    )


def test_embedding_errors(F):
    w = tc.zeros(5, 3)
    with pytest.raises(
        IndexError, match="embedding: index 5 is out of range for a weight with 5 rows"
    ):
        F.embedding(tc.tensor(np.array([1, 5])), w)
    with pytest.raises(TypeError, match="embedding: expected int64 or int32 indices, got float32"):
        F.embedding(tc.zeros(2), w)
    with pytest.raises(ValueError, match="embedding_bag: per_sample_weights was not None"):
        F.embedding_bag(
            tc.tensor(np.array([[1, 2]])), w, per_sample_weights=tc.ones(1, 2), mode="mean"
        )
    with pytest.raises(ValueError, match="offsets has to be None if input is 2-d"):
        F.embedding_bag(tc.tensor(np.array([[1, 2]])), w, tc.tensor(np.array([0])))


def test_embedding_double_backward(F):
    # Gradients are tensor ops (index_add), so second derivatives flow through grad_output.
    w = tc.tensor(randn(6, 3)).requires_grad_(True)
    idx = tc.tensor(np.array([0, 5, 3, 3]))
    assert tc.autograd.gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))
    assert tc.autograd.gradgradcheck(
        lambda w: F.embedding_bag(idx, w, tc.tensor(np.array([0, 2])), mode="max") ** 2, (w,)
    )
