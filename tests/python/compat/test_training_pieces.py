"""Training pieces real programs use (issue 25, point 6): LBFGS, dropout2d's ranks, BCE at 0/1,
in-place activations under autograd, non-contiguous gradients; compared with torch 1.13."""

import warnings

import numpy as np
import pytest

import tensorcore as tc


def _lbfgs_run(lib, line_search_fn, history_size=5, steps=4):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((32, 5)).astype(np.float64))
    y = lib.tensor(rng.standard_normal((32, 1)).astype(np.float64))
    w1 = lib.tensor(rng.standard_normal((5, 8)).astype(np.float64) * 0.5).requires_grad_()
    w2 = lib.tensor(rng.standard_normal((8, 1)).astype(np.float64) * 0.5).requires_grad_()
    opt = lib.optim.LBFGS(
        [w1, w2], lr=1, max_iter=10, history_size=history_size, line_search_fn=line_search_fn
    )

    def closure():
        opt.zero_grad()
        loss = ((lib.tanh(x @ w1) @ w2 - y) ** 2).mean()
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return losses, opt.state[w1]["func_evals"], opt.state[w1]["n_iter"], w2.detach().numpy()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("history_size", [3, 100])
def test_lbfgs_follows_torch(line_search_fn, history_size, torch_ref):
    ours = _lbfgs_run(tc, line_search_fn, history_size)
    theirs = _lbfgs_run(torch_ref, line_search_fn, history_size)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9)
    assert ours[1:3] == theirs[1:3]  # same evaluations and iterations: same search path
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-7, atol=1e-9)
    assert ours[0][-1] < ours[0][0] / 10


def test_lbfgs_rosenbrock_converges():
    xy = tc.tensor([-1.5, 2.0], dtype=tc.float64, requires_grad=True)
    opt = tc.optim.LBFGS([xy], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(xy.detach().numpy(), [1.0, 1.0], atol=1e-5)


def test_lbfgs_bad_arguments():
    p = tc.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="line_search_fn"):
        tc.optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(ValueError, match="parameter groups"):
        tc.optim.LBFGS([{"params": [p]}, {"params": [tc.zeros(1, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="closure"):
        tc.optim.LBFGS([p]).step(None)


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
def test_dropout2d_ranks_and_warnings_as_torch(shape, torch_ref):
    ours, our_warnings = _warnings_of(lambda: tc.nn.functional.dropout2d(tc.ones(*shape), 0.5))
    theirs, their_warnings = _warnings_of(
        lambda: torch_ref.nn.functional.dropout2d(torch_ref.ones(*shape), 0.5)
    )
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert our_warnings == their_warnings
    # Whole (dim 0, dim 1) slices are dropped together, as torch's feature dropout.
    flat = ours.numpy().reshape(shape[0] * shape[1], -1)
    assert all(len(set(row.tolist())) == 1 for row in flat)
    assert set(np.unique(flat).tolist()) <= {0.0, 2.0}


def test_dropout2d_rejects_1d():
    with pytest.raises(ValueError, match="2 dimensions"):
        tc.nn.functional.dropout2d(tc.ones(5), 0.5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_at_zero_and_one(reduction, weighted, torch_ref):
    probs, targets, weights = [0.0, 1.0, 0.3, 1.0, 0.0], [1.0, 0.0, 0.6, 1.0, 0.0], [1, 2, 3, 4, 5]
    results = []
    for lib in (tc, torch_ref):
        x = lib.tensor(probs, requires_grad=True)
        y = lib.tensor(targets, requires_grad=True)
        w = lib.tensor(weights, dtype=lib.float32) if weighted else None
        loss = lib.nn.functional.binary_cross_entropy(x, y, weight=w, reduction=reduction)
        loss.sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    (l1, gx1, gy1), (l2, gx2, gy2) = results
    np.testing.assert_allclose(l1, l2, rtol=1e-6)
    assert np.isfinite(gx1).all()  # clamped log: no NaN at 0 and 1
    np.testing.assert_allclose(gx1, gx2, rtol=1e-6)
    np.testing.assert_allclose(gy1, gy2, rtol=1e-6)  # torch's target gradient is inf at 0/1


def test_binary_cross_entropy_gradcheck():
    x = tc.tensor([0.2, 0.7, 0.45], dtype=tc.float64, requires_grad=True)
    y = tc.tensor([0.1, 0.9, 0.5], dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(tc.nn.functional.binary_cross_entropy, (x, y))


INPLACE_ACTIVATIONS = [
    ("ReLU", ()),
    ("LeakyReLU", (0.2,)),
    ("ELU", ()),
    ("Hardtanh", ()),
    ("ReLU6", ()),
    ("SELU", ()),
    ("CELU", ()),
    ("Hardswish", ()),
    ("Hardsigmoid", ()),
    ("SiLU", ()),
    ("Mish", ()),
    ("Threshold", (0.1, 0.0)),
]


@pytest.mark.parametrize("name,args", INPLACE_ACTIVATIONS, ids=[a[0] for a in INPLACE_ACTIVATIONS])
def test_inplace_activation_backward_matches_torch(name, args, torch_ref):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((3, 4)).astype(np.float64)
    x = rng.standard_normal((5, 3)).astype(np.float64)
    grads, outs = [], []
    for lib in (tc, torch_ref):
        weight = lib.tensor(w, requires_grad=True)
        act = getattr(lib.nn, name)(*args, inplace=True)
        hidden = lib.tensor(x) @ weight
        out = act(hidden)
        assert out is hidden or out.data_ptr() == hidden.data_ptr()  # really in place
        (out * lib.arange(20.0, dtype=lib.float64).reshape(5, 4)).sum().backward()
        grads.append(weight.grad.numpy())
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)


OPTIMIZERS = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adadelta", dict()),
    ("Adamax", dict()),
    ("NAdam", dict()),
    ("RAdam", dict()),
]


def _optimize(lib, name, kwargs, p0, grads, transposed):
    p = lib.tensor(p0, requires_grad=True)
    opt = getattr(lib.optim, name)([p], **kwargs)
    for g in grads:
        # The same values as a transposed (non-contiguous) tensor or a contiguous one.
        p.grad = lib.tensor(np.ascontiguousarray(g.T)).t() if transposed else lib.tensor(g)
        assert p.grad.is_contiguous() != transposed
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_optimizers_take_non_contiguous_grads(name, kwargs, torch_ref):
    rng = np.random.default_rng(2)
    p0 = rng.standard_normal((3, 4)).astype(np.float32)
    grads = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3)]
    strided = _optimize(tc, name, kwargs, p0, grads, transposed=True)
    np.testing.assert_array_equal(strided, _optimize(tc, name, kwargs, p0, grads, False))
    if (
        name != "NAdam"
    ):  # torch 1.13's NAdam multiplies mu twice into mu_product_next (fixed in 2.0)
        theirs = _optimize(torch_ref, name, kwargs, p0, grads, transposed=True)
        np.testing.assert_allclose(strided, theirs, rtol=1e-5, atol=1e-6)
