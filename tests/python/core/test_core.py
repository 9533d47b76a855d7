import numpy as np
import pytest

import tensorcore as tc


def test_tensor_from_data_infers_dtype():
    assert tc.tensor([1, 2]).dtype == tc.int64
    assert tc.tensor([1.0, 2]).dtype == tc.float32
    assert tc.tensor([True]).dtype == tc.bool
    assert tc.tensor([1 + 2j]).dtype == tc.complex64
    assert tc.tensor(np.zeros(3, dtype=np.float64)).dtype == tc.float64


def test_numpy_roundtrip_is_zero_copy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = tc.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42 if hasattr(t, "__getitem__") else t.numpy()[0, 0] == 42
    back = t.numpy()
    assert np.shares_memory(back, a)


def test_arithmetic_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((5,)).astype(np.float32)
    ta, tb = tc.from_numpy(a), tc.from_numpy(b)
    np.testing.assert_allclose((ta + tb).numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose((ta * tb - 2).numpy(), a * b - 2, rtol=1e-6)
    np.testing.assert_allclose((ta / tb).numpy(), a / b, rtol=1e-6)
    np.testing.assert_allclose(ta.sum(1).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(ta.t().sum(0).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(ta.mean((0, 1)).numpy(), a.mean(), rtol=1e-5)


def test_type_promotion_matches_torch(torch_ref):
    cases = [(tc.int32, 1.5), (tc.uint8, -1), (tc.float16, 2), (tc.int64, True)]
    for dt, scalar in cases:
        t = tc.ones(3, dtype=dt)
        r = torch_ref.ones(3, dtype=getattr(torch_ref, str(dt).split(".")[1]))
        assert str((t + scalar).dtype).split(".")[1] == str((r + scalar).dtype).split(".")[1]


def test_floor_division_matches_python():
    a = tc.tensor([-7, 7, -7, 7])
    b = tc.tensor([2, -2, -2, 2])
    assert (a // b).tolist() == [-4, -4, 3, 3]
    assert tc.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, 3, 3]


def test_autograd_simple_chain():
    x = tc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 4, 6])
    (gx,) = tc.autograd.grad((x.exp()).sum(), x)
    np.testing.assert_allclose(gx.numpy(), np.exp([1, 2, 3]), rtol=1e-6)


def test_double_backward():
    x = tc.tensor([0.5, 1.5], dtype=tc.float64, requires_grad=True)
    y = (x * x * x).sum()
    (g,) = tc.autograd.grad(y, x, create_graph=True)
    (h,) = tc.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * np.array([0.5, 1.5]))


def test_no_grad_and_inplace_leaf_error():
    x = tc.ones(3, requires_grad=True)
    with tc.no_grad():
        y = x * 2
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="in-place"):
        x.add_(1)


def test_errors_are_python_exceptions():
    with pytest.raises(ValueError, match=r"\[2, 3\]"):
        tc.zeros(2, 3) + tc.zeros(4)
    with pytest.raises(IndexError):
        tc.zeros(2).sum(3)
    if not tc.cuda.is_available():  # no CUDA build or no GPU: a clear error
        with pytest.raises(NotImplementedError, match="CUDA"):
            tc.zeros(2, device="cuda")


def test_repr_like_torch():
    assert repr(tc.tensor([1.0, 2.5])) == "tensor([1.0000, 2.5000])"
    assert repr(tc.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(tc.zeros(2, dtype=tc.float64)) == "tensor([0., 0.], dtype=tensorcore.float64)"


def test_dlpack_roundtrip_zero_copy():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = tc.from_dlpack(a)
    assert t.dtype == tc.float64 and tuple(t.shape) == (2, 3)
    a[1, 2] = -1
    assert t.numpy()[1, 2] == -1
    back = np.from_dlpack(t.t())
    assert back.shape == (3, 2) and back[2, 1] == -1


def test_dlpack_with_torch(torch_ref):
    x = torch_ref.arange(12, dtype=torch_ref.float32).reshape(3, 4)[:, 1:]
    t = tc.from_dlpack(x)
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    y = torch_ref.from_dlpack(tc.arange(5))
    assert y.tolist() == [0, 1, 2, 3, 4]
