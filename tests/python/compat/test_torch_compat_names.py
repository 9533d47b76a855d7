"""Names that ordinary PyTorch programs use (issue 25, point 6), against torch 1.13."""

import pytest

import tensorcore as tc


@pytest.mark.parametrize("spec", [".4f", "", ">10.2e", "+.1%"])
def test_zero_dim_tensor_formats_like_its_number(spec, torch_ref):
    for value in (1.23456, -7.0):
        assert format(tc.tensor(value), spec) == format(torch_ref.tensor(value), spec)
    assert format(tc.tensor(3), "05d") == format(torch_ref.tensor(3), "05d")
    assert f"{tc.tensor(0.5):.3f}" == "0.500"


def test_non_scalar_tensor_format():
    t = tc.tensor([1.0, 2.0])
    assert format(t) == str(t)
    with pytest.raises(TypeError):
        format(t, ".2f")  # as torch: a format spec needs a 0-d tensor


def test_versions_and_backends():
    for module in (tc, tc.vision, tc.audio):
        assert isinstance(module.__version__, str) and module.__version__[0].isdigit()
    assert tc.backends.mps.is_available() is False and tc.backends.mps.is_built() is False
    assert tc.backends.openmp.is_available() is True


def test_random_module(torch_ref):
    tc.random.manual_seed(5)
    a = tc.rand(4)
    tc.random.manual_seed(5)
    with tc.random.fork_rng():
        tc.rand(10)  # draws inside the block do not shift the stream after it
    assert tc.equal(tc.rand(4), a)
    assert tc.random.initial_seed() == 5
    state = tc.random.get_rng_state()
    b = tc.randn(3)
    tc.random.set_rng_state(state)
    assert tc.equal(tc.randn(3), b)
    assert sorted(n for n in tc.random.__all__ if n != "default_generator") == sorted(
        n
        for n in (
            "fork_rng",
            "get_rng_state",
            "initial_seed",
            "manual_seed",
            "seed",
            "set_rng_state",
        )
    )
    assert all(hasattr(torch_ref.random, n) for n in tc.random.__all__)


@pytest.mark.parametrize(
    "name",
    [
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "ByteTensor",
        "CharTensor",
        "ShortTensor",
        "IntTensor",
        "LongTensor",
        "BoolTensor",
    ],
)
def test_legacy_constructors(name, torch_ref):
    ours, theirs = getattr(tc, name), getattr(torch_ref, name)
    data = [[1, 0], [3, 1]]
    x, y = ours(data), theirs(data)
    assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
    assert x.tolist() == y.tolist()
    assert ours(2, 3).shape == tuple(theirs(2, 3).shape)
    assert ours(tc.Size([4])).shape == (4,)
    assert ours().numel() == 0
    assert isinstance(x, ours) and not isinstance(x.to(tc.complex64), ours)
    assert isinstance(ours(tc.ones(2, dtype=tc.float64)), ours)
    with pytest.raises(TypeError, match=name):
        ours("a", "b")


def test_randint_size_keyword(torch_ref):
    tc.manual_seed(0)
    x = tc.randint(0, 5, size=(3, 4))
    assert x.shape == tuple(torch_ref.randint(0, 5, size=(3, 4)).shape)
    assert x.dtype == tc.int64 and int(x.min()) >= 0 and int(x.max()) < 5
    assert tc.randint(7, size=(2,)).shape == (2,)
    assert tc.randint(3, 9, (5,)).shape == (5,)
    with pytest.raises(TypeError, match="randint"):
        tc.randint(1, 2, 3, size=(2,))


def test_range_data_and_indices(torch_ref):
    assert tc.tensor(range(4)).tolist() == torch_ref.tensor(range(4)).tolist()
    x = tc.arange(10) * 2
    assert x[range(2, 5)].tolist() == (torch_ref.arange(10) * 2)[range(2, 5)].tolist()


def test_data_parallel_wraps_the_module(torch_ref):
    net = tc.nn.Linear(3, 2)
    dp = tc.nn.DataParallel(net)
    x = tc.randn(4, 3)
    assert tc.equal(dp(x), net(x))
    assert list(dp.state_dict()) == list(
        torch_ref.nn.DataParallel(torch_ref.nn.Linear(3, 2)).state_dict()
    )
    assert dp.module is net
    with pytest.raises(TypeError, match="nn.Module"):
        tc.nn.DataParallel(lambda t: t)


KEYWORD_CALLS = {
    "permute": dict(dims=(1, 0)),
    "reshape": dict(shape=(3, 2)),
    "view": dict(size=(3, 2)),
    "expand": dict(size=(2, 2, 3)),
    "flip": dict(dims=(0,)),
    "repeat": dict(repeats=(1, 2)),
    "tile": dict(dims=(2,)),
    "narrow": dict(dim=1, start=0, length=2),
    "transpose": dict(dim0=0, dim1=1),
    "unsqueeze": dict(dim=0),
    "select": dict(dim=0, index=1),
    "swapaxes": dict(axis0=0, axis1=1),
    "swapdims": dict(dim0=0, dim1=1),
    "broadcast_to": dict(size=(2, 2, 3)),
    "fill_": dict(value=1.5),
    "mul_": dict(other=2.0),
    "floor_divide": dict(other=2.0),
    "true_divide": dict(other=2.0),
    "clamp_max_": dict(max=0.5),
    "clamp_min_": dict(min=0.5),
    "sum_to_size": dict(size=(1, 3)),
    "resize_": dict(size=(3, 2)),
}


@pytest.mark.parametrize("method", sorted(KEYWORD_CALLS))
def test_methods_take_torch_keywords(method, torch_ref):
    import numpy as np

    data = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    kwargs = KEYWORD_CALLS[method]
    ours = getattr(tc.tensor(data), method)(**kwargs)
    theirs = getattr(torch_ref.tensor(data), method)(**kwargs)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if method != "resize_":  # resize_ leaves new elements uninitialized
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("method", ["expand_as", "view_as", "reshape_as"])
def test_as_methods_take_other(method):
    x = tc.ones(6)
    other = tc.ones(3, 2) if method != "expand_as" else tc.ones(4, 6)
    assert getattr(x, method)(other=other).shape == other.shape


def test_narrow_on_a_zero_dim_tensor_raises(torch_ref):
    # Named arguments let the API sweep reach narrow(0-d, dim=0): it read past the sizes.
    with pytest.raises(IndexError, match="0-dim"):
        tc.tensor(1.0).narrow(0, 2, 2)
    with pytest.raises(IndexError, match="0-dim"):
        tc.narrow(tc.tensor(1.0), dim=0, start=0, length=1)
    with pytest.raises((IndexError, RuntimeError)):
        torch_ref.tensor(1.0).narrow(0, 2, 2)
