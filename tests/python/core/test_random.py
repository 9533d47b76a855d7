import numpy as np
import pytest

import tensorcore as tc


def test_generator_api():
    g = tc.Generator()
    assert g.manual_seed(123) is g
    assert g.initial_seed() == 123
    assert g.device == tc.device("cpu")
    s = g.seed()
    assert g.initial_seed() == s and s >= 0
    assert tc.manual_seed(5) is tc.default_generator
    assert tc.initial_seed() == 5
    st = g.get_state()
    assert st.dtype == tc.uint8
    a = tc.rand(10, generator=g)
    g.set_state(st)
    b = tc.rand(10, generator=g)
    assert np.array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError):
        g.set_state(tc.zeros(3, dtype=tc.uint8))
    with pytest.raises(TypeError):
        g.set_state(tc.zeros(16))


@pytest.mark.parametrize(
    "fn",
    [
        lambda g: tc.rand(100, generator=g),
        lambda g: tc.randn(3, 50, generator=g),
        lambda g: tc.randint(0, 1000, (100,), generator=g),
        lambda g: tc.randperm(50, generator=g),
        lambda g: tc.multinomial(tc.ones(20), 5, generator=g),
        lambda g: tc.normal(0.0, 2.0, (20,), generator=g),
        lambda g: tc.bernoulli(tc.full((50,), 0.5), generator=g),
        lambda g: tc.empty(30).exponential_(generator=g),
    ],
)
def test_determinism(fn):
    a = fn(tc.Generator().manual_seed(42))
    b = fn(tc.Generator().manual_seed(42))
    c = fn(tc.Generator().manual_seed(43))
    assert np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def test_global_seed_and_successive_calls_differ():
    tc.manual_seed(0)
    a = tc.rand(5)
    b = tc.rand(5)
    assert not np.array_equal(a.numpy(), b.numpy())
    tc.manual_seed(0)
    assert np.array_equal(tc.rand(5).numpy(), a.numpy())


def test_thread_count_independent():
    n = tc.get_num_threads()
    g = tc.Generator().manual_seed(7)
    a = tc.randn(200000, generator=g)
    tc.set_num_threads(1)
    try:
        b = tc.randn(200000, generator=tc.Generator().manual_seed(7))
    finally:
        tc.set_num_threads(n)
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16, tc.bfloat16])
def test_uniform_normal_stats(dtype):
    g = tc.Generator().manual_seed(1)
    u = tc.rand(200000, generator=g, dtype=dtype).double().numpy()
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.01
    z = tc.randn(200000, generator=g, dtype=dtype).double().numpy()
    assert abs(z.mean()) < 0.02 and abs(z.var() - 1) < 0.03
    x = tc.empty(100000, dtype=dtype).uniform_(-2, 3, generator=g).double().numpy()
    assert x.min() >= -2 and x.max() <= 3 and abs(x.mean() - 0.5) < 0.05
    y = tc.empty(100000, dtype=dtype).normal_(3, 0.5, generator=g).double().numpy()
    assert abs(y.mean() - 3) < 0.02 and abs(y.std() - 0.5) < 0.02


def test_dtype_device_kwargs():
    assert tc.rand(2, 3).dtype == tc.get_default_dtype()
    assert tc.rand((2, 3)).shape == (2, 3)
    assert tc.rand([2, 3], dtype=tc.float64).dtype == tc.float64
    assert tc.randn(2, device="cpu", requires_grad=True).requires_grad
    assert tc.randint(5, (3,)).dtype == tc.int64
    assert tc.randint(3, 5, (3,), dtype=tc.int32).dtype == tc.int32
    assert tc.randperm(4, dtype=tc.float32).dtype == tc.float32
    x = tc.zeros(2, 3, dtype=tc.float64)
    assert tc.rand_like(x).dtype == tc.float64 and tc.rand_like(x).shape == (2, 3)
    assert tc.randn_like(x, dtype=tc.float32).dtype == tc.float32
    r = tc.randint_like(x, 10)
    assert r.dtype == tc.float64 and r.numpy().max() < 10
    r = tc.randint_like(x, 3, 5)
    assert set(np.unique(r.numpy())) <= {3.0, 4.0}


def test_randint_range_and_distribution():
    g = tc.Generator().manual_seed(3)
    x = tc.randint(-3, 4, (70000,), generator=g).numpy()
    assert x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3)
    assert np.all(np.abs(counts / 70000 - 1 / 7) < 0.01)
    with pytest.raises(ValueError):
        tc.randint(5, 5, (2,))


def test_random_():
    g = tc.Generator().manual_seed(3)
    x = tc.empty(1000, dtype=tc.int64).random_(10, generator=g).numpy()
    assert x.min() >= 0 and x.max() < 10
    x = tc.empty(1000, dtype=tc.int32).random_(-5, 5, generator=g).numpy()
    assert x.min() >= -5 and x.max() < 5
    x = tc.empty(1000, dtype=tc.uint8).random_(generator=g).numpy()
    assert x.max() > 200
    x = tc.empty(1000).random_(generator=g).numpy()
    assert x.min() >= 0 and x.max() <= 2**24 and np.all(x == np.round(x))
    b = tc.empty(1000, dtype=tc.bool).random_(generator=g).numpy()
    assert b.any() and not b.all()


def test_randperm():
    for n in [0, 1, 2, 10, 1000]:
        p = tc.randperm(n).numpy()
        assert sorted(p.tolist()) == list(range(n))
    p = tc.randperm(1000).numpy()
    assert not np.array_equal(p, np.arange(1000))


def test_normal_forms():
    g = tc.Generator().manual_seed(0)
    mean = tc.arange(5, dtype=tc.float64) * 10
    x = tc.normal(mean, 0.001, generator=g)
    assert np.allclose(x.numpy(), mean.numpy(), atol=0.01)
    std = tc.full((4,), 1e-4, dtype=tc.float64)
    y = tc.normal(2.0, std, generator=g)
    assert y.shape == (4,) and np.allclose(y.numpy(), 2, atol=1e-2)
    z = tc.normal(mean, tc.full((5,), 1e-4, dtype=tc.float64), generator=g)
    assert np.allclose(z.numpy(), mean.numpy(), atol=1e-2)
    w = tc.normal(1.0, 2.0, size=(100000,), generator=g).numpy()
    assert abs(w.mean() - 1) < 0.03 and abs(w.std() - 2) < 0.03
    with pytest.raises(ValueError):
        tc.empty(3).normal_(0, -1)


def test_bernoulli_and_exponential():
    g = tc.Generator().manual_seed(0)
    p = tc.tensor([0.0, 0.2, 0.9, 1.0]).expand(50000, 4).contiguous()
    b = tc.bernoulli(p, generator=g).numpy()
    assert b.dtype == np.float32
    assert np.allclose(b.mean(0), [0, 0.2, 0.9, 1], atol=0.01)
    x = tc.empty(100000).bernoulli_(0.3, generator=g).numpy()
    assert abs(x.mean() - 0.3) < 0.01
    x = tc.zeros(100000, dtype=tc.int64).bernoulli_(tc.tensor(0.7), generator=g).numpy()
    assert abs(x.mean() - 0.7) < 0.01
    x = tc.bernoulli(tc.zeros(1000), 0.5, generator=g).numpy()
    assert abs(x.mean() - 0.5) < 0.07
    with pytest.raises(ValueError):
        tc.bernoulli(tc.tensor([1.5]))
    e = tc.empty(100000, dtype=tc.float64).exponential_(2.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.01


def test_noncontiguous_inplace():
    x = tc.zeros(100, 4)
    col = x.select(1, 2)
    col.uniform_(1, 2)
    a = x.numpy()
    assert np.all(a[:, 2] >= 1) and np.all(a[:, [0, 1, 3]] == 0)


def test_multinomial():
    g = tc.Generator().manual_seed(0)
    probs = tc.tensor([0.1, 0.2, 0.0, 0.7])
    s = tc.multinomial(probs, 100000, replacement=True, generator=g).numpy()
    assert s.dtype == np.int64 and s.shape == (100000,)
    freq = np.bincount(s, minlength=4) / 100000
    assert np.allclose(freq, [0.1, 0.2, 0.0, 0.7], atol=0.01)
    # without replacement: distinct, never a zero-probability category
    rows = tc.tensor([[1.0, 1.0, 0.0, 2.0, 1.0]]).expand(2000, 5).contiguous()
    w = tc.multinomial(rows, 3, generator=g).numpy()
    assert w.shape == (2000, 3)
    assert all(len(set(r)) == 3 for r in w.tolist())
    assert not (w == 2).any()
    first = np.bincount(w[:, 0], minlength=5) / 2000
    assert np.allclose(first, [0.2, 0.2, 0, 0.4, 0.2], atol=0.04)
    with pytest.raises(ValueError, match="without replacement"):
        tc.multinomial(tc.ones(3), 4)
    with pytest.raises(ValueError):
        tc.multinomial(tc.tensor([-1.0, 2.0]), 1)
    with pytest.raises(ValueError):
        tc.multinomial(tc.tensor([0.0, 0.0]), 1)
    with pytest.raises(ValueError):
        tc.multinomial(tc.tensor([1.0, 0.0]), 2)
    assert probs.multinomial(2).shape == (2,)


def test_inplace_on_leaf_raises():
    x = tc.zeros(3, requires_grad=True)
    with pytest.raises(Exception, match="leaf"):
        x.uniform_()
