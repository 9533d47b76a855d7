"""The nn modules added for torch 1.13 coverage: 3-d adaptive pools, MaxUnpool1d/3d,
ConvTranspose3d, fractional max pools, the lazy transposed convolutions and norms,
CrossMapLRN2d and AdaptiveLogSoftmaxWithLoss, against torch 1.13 (skipped without it)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn

torch = pytest.importorskip("torch")


def _copy_state(mine, ref):
    mine.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})


def _close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if isinstance(a, tc.Tensor) else a
    np.testing.assert_allclose(a, b.detach().numpy(), rtol=rtol, atol=atol)


def test_pools_unpools_and_transposed_conv3d():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 7, 5)).astype(np.float32)
    for name, args in (("AdaptiveAvgPool3d", (3,)), ("AdaptiveMaxPool3d", ((2, 3, 2),))):
        _close(
            getattr(nn, name)(*args)(tc.tensor(x)), getattr(torch.nn, name)(*args)(torch.tensor(x))
        )
    out, idx = nn.AdaptiveMaxPool3d(2, return_indices=True)(tc.tensor(x))
    ref, ridx = torch.nn.AdaptiveMaxPool3d(2, return_indices=True)(torch.tensor(x))
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    x1 = rng.standard_normal((2, 3, 8)).astype(np.float32)
    p, i = tc.nn.functional.max_pool1d(tc.tensor(x1), 2, return_indices=True)
    tp, ti = torch.nn.functional.max_pool1d(torch.tensor(x1), 2, return_indices=True)
    _close(nn.MaxUnpool1d(2)(p, i), torch.nn.MaxUnpool1d(2)(tp, ti))
    p3, i3 = tc.nn.functional.max_pool3d(tc.tensor(x[:, :, :6, :6, :4]), 2, return_indices=True)
    tp3, ti3 = torch.nn.functional.max_pool3d(
        torch.tensor(x[:, :, :6, :6, :4]), 2, return_indices=True
    )
    _close(nn.MaxUnpool3d(2)(p3, i3), torch.nn.MaxUnpool3d(2)(tp3, ti3))
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1, output_padding=1)
    mine = nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1, output_padding=1)
    _copy_state(mine, ref)
    _close(mine(tc.tensor(x)), ref(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_fractional_max_pool_modules():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 12, 12)).astype(np.float32)
    samples = rng.uniform(0, 1, (2, 3, 2)).astype(np.float32)
    mine = nn.FractionalMaxPool2d(3, output_size=5, _random_samples=tc.tensor(samples))
    ref = torch.nn.FractionalMaxPool2d(3, output_size=5, _random_samples=torch.tensor(samples))
    _close(mine(tc.tensor(x)), ref(torch.tensor(x)), rtol=0, atol=0)
    assert tuple(nn.FractionalMaxPool3d(2, output_ratio=0.5)(tc.zeros(1, 2, 8, 8, 8)).shape) == (
        1,
        2,
        4,
        4,
        4,
    )
    with pytest.raises(ValueError, match="either an output size, or a pooling ratio"):
        nn.FractionalMaxPool2d(2)


@pytest.mark.parametrize(
    "name, shape",
    [
        ("LazyConvTranspose1d", (2, 3, 9)),
        ("LazyConvTranspose2d", (2, 3, 6, 5)),
        ("LazyConvTranspose3d", (1, 2, 4, 5, 3)),
    ],
)
def test_lazy_transposed_convs(name, shape):
    mine = getattr(nn, name)(6, 3, stride=2, groups=1)
    x = tc.randn(*shape)
    out = mine(x)
    target = name.replace("Lazy", "")
    assert type(mine) is getattr(nn, target)  # became the regular class
    assert mine.in_channels == shape[1]
    assert tuple(mine.weight.shape) == (shape[1], 6) + (3,) * (len(shape) - 2)
    ref = getattr(torch.nn, target)(shape[1], 6, 3, stride=2)
    _copy_state(mine, ref)
    _close(mine(x), ref(torch.tensor(x.numpy())), rtol=1e-4, atol=1e-5)
    assert out.shape == mine(x).shape
    # A state dict materializes the parameters too.
    fresh = getattr(nn, name)(6, 3, stride=2)
    fresh.load_state_dict(mine.state_dict())
    assert fresh.weight.equal(mine.weight)


@pytest.mark.parametrize(
    "name, shape",
    [
        ("LazyBatchNorm1d", (4, 5)),
        ("LazyBatchNorm1d", (4, 5, 3)),
        ("LazyBatchNorm2d", (4, 3, 5, 5)),
        ("LazyBatchNorm3d", (2, 3, 4, 4, 4)),
        ("LazyInstanceNorm1d", (2, 3, 6)),
        ("LazyInstanceNorm2d", (2, 3, 5, 5)),
        ("LazyInstanceNorm3d", (2, 3, 4, 4, 4)),
    ],
)
def test_lazy_norms_match_torch(name, shape):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    kwargs = {} if "Batch" in name else dict(affine=True, track_running_stats=True)
    mine = getattr(nn, name)(**kwargs)
    ref = getattr(torch.nn, name)(**kwargs)
    _close(mine(tc.tensor(x)), ref(torch.tensor(x)))
    assert type(mine).__name__ == name.replace("Lazy", "")
    _close(mine.running_mean, ref.running_mean)
    _close(mine.running_var, ref.running_var)
    # Loading a checkpoint into a fresh lazy module gives it the right sizes.
    fresh = getattr(nn, name)(**kwargs)
    fresh.load_state_dict(mine.state_dict())
    assert fresh.num_features == mine.num_features
    assert fresh.running_mean.equal(mine.running_mean)


def test_cross_map_lrn2d_matches_torch():
    x = np.random.default_rng(3).standard_normal((2, 7, 4, 3)).astype(np.float64)
    for size in (1, 2, 3, 5, 9):
        mine = nn.CrossMapLRN2d(size, alpha=1e-2, beta=0.75, k=2)
        ref = torch.nn.CrossMapLRN2d(size, alpha=1e-2, beta=0.75, k=2)
        _close(mine(tc.tensor(x)), ref(torch.tensor(x)), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="4-D"):
        nn.CrossMapLRN2d(3)(tc.zeros(2, 3))


def test_adaptive_log_softmax_with_loss_matches_torch():
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 30, [5, 12, 20], div_value=2.0, head_bias=True)
    mine = nn.AdaptiveLogSoftmaxWithLoss(16, 30, [5, 12, 20], div_value=2.0, head_bias=True)
    assert list(mine.state_dict()) == list(ref.state_dict())
    _copy_state(mine, ref)
    x = rng.standard_normal((11, 16)).astype(np.float32)
    t = np.array([0, 4, 5, 11, 12, 19, 20, 29, 3, 25, 7])
    mx = tc.tensor(x, requires_grad=True)
    rx = torch.tensor(x, requires_grad=True)
    out, loss = mine(mx, tc.tensor(t))
    rout, rloss = ref(rx, torch.tensor(t))
    _close(out, rout)
    _close(loss, rloss)
    loss.backward()
    rloss.backward()
    _close(mx.grad, rx.grad)
    _close(mine.log_prob(tc.tensor(x)), ref.log_prob(torch.tensor(x)))
    np.testing.assert_array_equal(
        mine.predict(tc.tensor(x)).numpy(), ref.predict(torch.tensor(x)).numpy()
    )
    single, _ = mine(tc.tensor(x[0]), tc.tensor(t[0]))
    assert single.dim() == 0
    with pytest.raises(RuntimeError, match="Target values should be in"):
        mine(tc.tensor(x[:2]), tc.tensor([0, 30]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 30, [12, 5])


def test_lazy_instance_norm_unbatched_input():
    # torch 1.13 sizes these from dim 1 even for unbatched (C, L) input; tensorcore uses dim 0.
    norm = nn.LazyInstanceNorm1d(affine=True)
    out = norm(tc.randn(3, 6))
    assert norm.num_features == 3 and tuple(out.shape) == (3, 6)
