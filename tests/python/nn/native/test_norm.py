import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(11)


def randn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def leaf(a):
    return tc.tensor(a).requires_grad_(True)


def check_grads(pairs, tol):
    for ours, ref in pairs:
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)


def backward_both(torch, y, ry, dtype=np.float64):
    """Backpropagates the same random output gradient through our result and torch's."""
    g = randn(*y.shape, dtype=dtype)
    (y * tc.tensor(g)).sum().backward()
    (ry * torch.tensor(g)).sum().backward()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_matches_torch(F, torch_ref, dtype, training, shape):
    C = shape[1]
    x, w, b = randn(*shape, dtype=dtype), randn(C, dtype=dtype), randn(C, dtype=dtype)
    rm0, rv0 = randn(C, dtype=dtype), np.abs(randn(C, dtype=dtype)) + 0.5
    tx, tw, tb = leaf(x), leaf(w), leaf(b)
    trm, trv = tc.tensor(rm0.copy()), tc.tensor(rv0.copy())
    y = F.batch_norm(tx, trm, trv, tw, tb, training=training, momentum=0.2, eps=1e-3)
    rx, rw, rb = (torch_ref.tensor(a, requires_grad=True) for a in (x, w, b))
    rrm, rrv = torch_ref.tensor(rm0.copy()), torch_ref.tensor(rv0.copy())
    ry = torch_ref.nn.functional.batch_norm(
        rx, rrm, rrv, rw, rb, training=training, momentum=0.2, eps=1e-3
    )
    backward_both(torch_ref, y, ry, dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    ours, ref = [y, trm, trv, tx.grad, tw.grad, tb.grad], [ry, rrm, rrv, rx.grad, rw.grad, rb.grad]
    check_grads(zip(ours, ref), tol)


def test_batch_norm_without_running_stats_and_affine(F, torch_ref):
    x = randn(5, 4, 3)
    y = F.batch_norm(tc.tensor(x), None, None, training=True)
    ry = torch_ref.nn.functional.batch_norm(torch_ref.tensor(x), None, None, training=True)
    np.testing.assert_allclose(y.numpy(), ry.numpy(), rtol=1e-10, atol=1e-10)
    # naive reference
    m, v = x.mean(axis=(0, 2), keepdims=True), x.var(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape,normalized", [((4, 7), (7,)), ((2, 3, 4, 5), (4, 5)), ((3, 50), (50,))]
)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(F, torch_ref, dtype, shape, normalized, affine):
    x = randn(*shape, dtype=dtype)
    w, b = randn(*normalized, dtype=dtype), randn(*normalized, dtype=dtype)
    tx, tw, tb = leaf(x), leaf(w), leaf(b)
    rx, rw, rb = (torch_ref.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.layer_norm(tx, normalized, tw if affine else None, tb if affine else None, eps=1e-4)
    ry = torch_ref.nn.functional.layer_norm(
        rx, normalized, rw if affine else None, rb if affine else None, eps=1e-4
    )
    backward_both(torch_ref, y, ry, dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    pairs = [(y, ry), (tx.grad, rx.grad)]
    if affine:
        pairs += [(tw.grad, rw.grad), (tb.grad, rb.grad)]
    check_grads(pairs, tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 4)])
def test_group_norm_matches_torch(F, torch_ref, dtype, shape, groups):
    C = shape[1]
    x, w, b = randn(*shape, dtype=dtype), randn(C, dtype=dtype), randn(C, dtype=dtype)
    tx, tw, tb = leaf(x), leaf(w), leaf(b)
    rx, rw, rb = (torch_ref.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.group_norm(tx, groups, tw, tb)
    ry = torch_ref.nn.functional.group_norm(rx, groups, rw, rb)
    backward_both(torch_ref, y, ry, dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    check_grads([(y, ry), (tx.grad, rx.grad), (tw.grad, rw.grad), (tb.grad, rb.grad)], tol)


def test_instance_norm_matches_torch(F, torch_ref):
    x, w, b = randn(2, 3, 4, 5), randn(3), randn(3)
    rm0, rv0 = randn(3), np.abs(randn(3)) + 0.5
    tx, tw, tb = leaf(x), leaf(w), leaf(b)
    trm, trv = tc.tensor(rm0.copy()), tc.tensor(rv0.copy())
    rx, rw, rb = (torch_ref.tensor(a, requires_grad=True) for a in (x, w, b))
    rrm, rrv = torch_ref.tensor(rm0.copy()), torch_ref.tensor(rv0.copy())
    y = F.instance_norm(tx, trm, trv, tw, tb, use_input_stats=True, momentum=0.3)
    ry = torch_ref.nn.functional.instance_norm(
        rx, rrm, rrv, rw, rb, use_input_stats=True, momentum=0.3
    )
    backward_both(torch_ref, y, ry)
    ours, ref = [y, trm, trv, tx.grad, tw.grad, tb.grad], [ry, rrm, rrv, rx.grad, rw.grad, rb.grad]
    check_grads(zip(ours, ref), 1e-10)
    y2 = F.instance_norm(tc.tensor(x), trm, trv, use_input_stats=False)
    ry2 = torch_ref.nn.functional.instance_norm(
        torch_ref.tensor(x), rrm, rrv, use_input_stats=False
    )
    check_grads([(y2, ry2)], 1e-10)


@pytest.mark.parametrize("shape,size", [((2, 7, 5), 3), ((2, 6, 3, 4), 4), ((1, 5, 2, 2, 2), 2)])
def test_local_response_norm_matches_torch(F, torch_ref, shape, size):
    x = randn(*shape)
    tx, rx = leaf(x), torch_ref.tensor(x, requires_grad=True)
    y = F.local_response_norm(tx, size, alpha=0.1, beta=0.6, k=2.0)
    ry = torch_ref.nn.functional.local_response_norm(rx, size, alpha=0.1, beta=0.6, k=2.0)
    backward_both(torch_ref, y, ry)
    check_grads([(y, ry), (tx.grad, rx.grad)], 1e-10)


def test_norm_gradcheck_and_gradgradcheck(F):
    x = leaf(randn(3, 4, 5))
    w, b = leaf(randn(4)), leaf(randn(4))
    wl, bl = leaf(randn(5)), leaf(randn(5))
    for fn, args in [
        (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b)),
        (lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b)),
        (lambda x, w, b: F.layer_norm(x, (5,), w, b), (x, wl, bl)),
    ]:
        assert tc.autograd.gradcheck(fn, args)
        assert tc.autograd.gradgradcheck(fn, args)
    rm, rv = tc.tensor(randn(4)), tc.tensor(np.abs(randn(4)) + 1)
    assert tc.autograd.gradcheck(
        lambda x, w: F.batch_norm(x, rm, rv, w, None, training=False), (x, w)
    )


def test_norm_errors(F):
    with pytest.raises(
        ValueError, match=r"batch_norm: expected running stats, weight and bias of shape \[3\]"
    ):
        F.batch_norm(tc.zeros(2, 3, 4), tc.zeros(4), tc.ones(4))
    with pytest.raises(ValueError, match="expected more than 1 value per channel when training"):
        F.batch_norm(tc.zeros(1, 3), None, None, training=True)
    with pytest.raises(
        ValueError,
        match=r"layer_norm: expected input with shape \[\*, 4, 5\], but got input of size \[2, 3, 5\]",
    ):
        F.layer_norm(tc.zeros(2, 3, 5), (4, 5))
    with pytest.raises(
        ValueError,
        match=r"group_norm: expected number of channels in input \(6\) to be divisible by num_groups \(4\)",
    ):
        F.group_norm(tc.zeros(2, 6, 3), 4)
