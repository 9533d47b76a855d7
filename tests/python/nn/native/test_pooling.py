import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(7)


def randn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def compare(F, torch_ref, name, x, kwargs, dtype, n_out=1):
    tx = tc.tensor(x).requires_grad_(True)
    rx = torch_ref.tensor(x, requires_grad=True)
    out = getattr(F, name)(tx, **kwargs)
    ref = getattr(torch_ref.nn.functional, name)(rx, **kwargs)
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for o, r in zip(outs, refs):
        assert tuple(o.shape) == tuple(r.shape)
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=tol, atol=tol)
    g = randn(*outs[0].shape, dtype=dtype)
    (outs[0] * tc.tensor(g)).sum().backward()
    (refs[0] * torch_ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=tol, atol=tol)


POOL_CASES = [
    ("max_pool2d", (2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    (
        "max_pool2d",
        (2, 3, 9, 8),
        dict(kernel_size=(3, 2), stride=(2, 1), dilation=(2, 1), ceil_mode=True),
    ),
    ("max_pool2d", (3, 7, 7), dict(kernel_size=2, ceil_mode=True, return_indices=True)),
    (
        "max_pool1d",
        (2, 3, 11),
        dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, return_indices=True),
    ),
    ("avg_pool2d", (2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    (
        "avg_pool2d",
        (2, 3, 9, 8),
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True),
    ),
    ("avg_pool2d", (2, 3, 9, 8), dict(kernel_size=(2, 3), divisor_override=5)),
    (
        "avg_pool1d",
        (2, 3, 10),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    ),
    ("adaptive_avg_pool2d", (2, 3, 9, 7), dict(output_size=(4, 3))),
    ("adaptive_avg_pool2d", (2, 3, 9, 7), dict(output_size=(None, 5))),
    ("adaptive_avg_pool1d", (2, 3, 10), dict(output_size=4)),
    ("adaptive_max_pool2d", (2, 3, 9, 7), dict(output_size=(4, 3), return_indices=True)),
    ("adaptive_max_pool1d", (2, 3, 10), dict(output_size=3, return_indices=True)),
    ("max_pool3d", (2, 2, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool3d", (2, 5, 6, 7), dict(kernel_size=(2, 3, 2), dilation=(1, 1, 2), ceil_mode=True)),
    (
        "avg_pool3d",
        (2, 2, 5, 6, 7),
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    ),
    (
        "avg_pool3d",
        (2, 2, 5, 6, 7),
        dict(kernel_size=(2, 3, 3), ceil_mode=True, divisor_override=7),
    ),
    ("adaptive_avg_pool3d", (2, 2, 5, 6, 7), dict(output_size=(2, 4, 1))),
    ("adaptive_avg_pool3d", (2, 2, 5, 6, 7), dict(output_size=1)),
    ("adaptive_max_pool3d", (2, 2, 5, 6, 7), dict(output_size=(3, 2, 4), return_indices=True)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,shape,kwargs", POOL_CASES)
def test_pooling_matches_torch(F, torch_ref, dtype, name, shape, kwargs):
    compare(F, torch_ref, name, randn(*shape, dtype=dtype), kwargs, dtype)


def test_max_pool_naive_numpy(F):
    x = randn(2, 3, 6, 6)
    y = F.max_pool2d(tc.tensor(x), 2).numpy()
    ref = x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(y, ref)
    a = F.avg_pool2d(tc.tensor(x), 2).numpy()
    np.testing.assert_allclose(a, x.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)), rtol=1e-12)


def test_max_unpool2d_matches_torch(F, torch_ref):
    x = randn(2, 3, 8, 6)
    y, idx = F.max_pool2d(tc.tensor(x), 2, return_indices=True)
    ry, ridx = torch_ref.nn.functional.max_pool2d(torch_ref.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    u = F.max_unpool2d(y, idx, 2)
    ru = torch_ref.nn.functional.max_unpool2d(ry, ridx, 2)
    np.testing.assert_array_equal(u.numpy(), ru.numpy())
    u2 = F.max_unpool2d(y, idx, 2, output_size=(9, 7))
    assert tuple(u2.shape) == (2, 3, 9, 7)


@pytest.mark.parametrize("nd,shape", [(1, (2, 3, 9)), (3, (2, 2, 4, 6, 5))])
def test_max_unpool_1d_3d_match_torch(F, torch_ref, nd, shape):
    x = randn(*shape)
    y, idx = getattr(F, f"max_pool{nd}d")(tc.tensor(x), 2, return_indices=True)
    ry, ridx = getattr(torch_ref.nn.functional, f"max_pool{nd}d")(
        torch_ref.tensor(x), 2, return_indices=True
    )
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    out_size = shape[2:]
    u = getattr(F, f"max_unpool{nd}d")(y, idx, 2, output_size=out_size)
    ru = getattr(torch_ref.nn.functional, f"max_unpool{nd}d")(ry, ridx, 2, output_size=out_size)
    np.testing.assert_array_equal(u.numpy(), ru.numpy())


def test_pooling_gradcheck(F):
    x = tc.tensor(randn(1, 2, 6, 5)).requires_grad_(True)
    for fn in [
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda x: F.adaptive_avg_pool2d(x, (4, 3)),
        lambda x: F.max_pool2d(x, 2, 1, dilation=(1, 2)),
        lambda x: F.adaptive_max_pool2d(x, 3),
    ]:
        assert tc.autograd.gradcheck(fn, (x,))
        assert tc.autograd.gradgradcheck(fn, (x,))


def test_pooling_errors(F):
    with pytest.raises(
        ValueError, match=r"max_pool2d: expected a 3-d or 4-d input, got shape \[4, 4\]"
    ):
        F.max_pool2d(tc.zeros(4, 4), 2)
    with pytest.raises(ValueError, match="avg_pool2d: padding should be at most half"):
        F.avg_pool2d(tc.zeros(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(ValueError, match="max_pool2d: output size is too small"):
        F.max_pool2d(tc.zeros(1, 1, 2, 2), 3)
    with pytest.raises(
        TypeError,
        match="max_pool1d: expected a float32, float64, float16 or bfloat16 input, got int32",
    ):
        F.max_pool1d(tc.zeros(1, 1, 4, dtype=tc.int32), 2)
    y, idx = F.max_pool2d(tc.zeros(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match="max_unpool2d: indices shape"):
        F.max_unpool2d(y, idx[..., :1], 2)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=2),
        dict(kernel_size=3, stride=1, padding=1, dilation=2),
        dict(kernel_size=3, stride=2, ceil_mode=True),
    ],
)
def test_max_pool2d_channels_last_input(kwargs):
    # NHWC input (what frozen graphs' convolutions hand over) takes its own kernel: the same
    # values and indices as the NCHW kernel, ties and NaNs included, in NHWC layout as torch's.
    x = np.round(randn(2, 19, 11, 13, dtype=np.float32) * 2) / 2  # many ties
    x[0, 3, 4, 5] = np.nan
    nchw = tc.tensor(x)
    nhwc = nchw.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert not nhwc.is_contiguous()
    F = tc.nn.functional
    y, i = F.max_pool2d(nchw, return_indices=True, **kwargs)
    y2, i2 = F.max_pool2d(nhwc, return_indices=True, **kwargs)
    np.testing.assert_array_equal(y2.numpy(), y.numpy())
    np.testing.assert_array_equal(i2.numpy(), i.numpy())
    assert y2.stride()[1] == 1  # channels-last out
    torch = pytest.importorskip("torch")
    ty = torch.nn.functional.max_pool2d(
        torch.from_numpy(x).contiguous(memory_format=torch.channels_last), **kwargs
    )
    np.testing.assert_array_equal(y2.numpy(), ty.numpy())
