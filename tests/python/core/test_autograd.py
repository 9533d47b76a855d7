import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd import Function, gradcheck, gradgradcheck, GradcheckError
from tensorcore.autograd import functional as F


def T(a, rg=False):
    t = tc.from_numpy(np.ascontiguousarray(np.asarray(a, dtype=np.float64)))
    return t.requires_grad_(True) if rg else t


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class ScaleMul(Function):
    # non-tensor argument, two outputs
    @staticmethod
    def forward(ctx, x, k, y):
        ctx.k = k
        ctx.save_for_backward(x, y)
        return x * y * k, x + y

    @staticmethod
    def backward(ctx, g1, g2):
        x, y = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False, ctx.needs_input_grad[2])
        return g1 * y * ctx.k + g2, None, g1 * x * ctx.k + g2


class BadGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3  # wrong


def test_function_basic():
    x = T([0.5, -1.0, 2.0], True)
    y = Exp.apply(x)
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))
    assert gradcheck(Exp.apply, (T(np.random.rand(4), True),))
    assert gradgradcheck(Exp.apply, (T(np.random.rand(3), True),))


def test_function_multi_output_and_non_tensor():
    x, y = T(np.random.rand(3), True), T(np.random.rand(3), True)
    a, b = ScaleMul.apply(x, 2.5, y)
    (a.sum() + (b * b).sum()).backward()
    xn, yn = x.detach().numpy(), y.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2.5 * yn + 2 * (xn + yn))
    np.testing.assert_allclose(y.grad.numpy(), 2.5 * xn + 2 * (xn + yn))
    # only one output used: the other gradient is materialized as zeros
    x.grad = None
    a, b = ScaleMul.apply(x, 1.0, y)
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(3))
    assert gradcheck(
        lambda x, y: ScaleMul.apply(x, 3.0, y),
        (T(np.random.rand(3), True), T(np.random.rand(3), True)),
    )


def test_function_no_grad_inputs():
    x = T([1.0, 2.0])
    y = Exp.apply(x)
    assert not y.requires_grad
    with tc.no_grad():
        z = Exp.apply(T([1.0], True))
    assert not z.requires_grad


def test_function_errors():
    class WrongCount(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    x = T([1.0], True)
    with pytest.raises(Exception, match="incorrect number of gradients"):
        WrongCount.apply(x, x).sum().backward()

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return tc.ones(5, dtype=tc.float64)

    with pytest.raises(Exception, match="invalid gradient"):
        WrongShape.apply(T([1.0, 2.0], True)).backward()

    # modified in place after save -> clear error
    x = T([1.0, 2.0], True)
    y = Exp.apply(x)
    with tc.no_grad():
        y.mul_(2)
    with pytest.raises(Exception, match="inplace"):
        y.sum().backward()


def test_function_returns_input_and_second_backward():
    class Ident(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T([1.0, 2.0], True)
    y = Ident.apply(x)
    assert y is not x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])
    z = Exp.apply(T([1.0], True))
    s = z.sum()
    s.backward()
    with pytest.raises(Exception, match="second time|freed"):
        s.backward()


def test_gradcheck_detects_errors():
    x = T(np.random.rand(3), True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(BadGrad.apply, (x,))
    assert gradcheck(BadGrad.apply, (x,), raise_exception=False) is False
    with pytest.raises(ValueError):
        gradcheck(lambda a: a * 2, (T([1.0]),))


def test_gradcheck_complex():
    z = tc.from_numpy(np.array([1 + 2j, -0.5 + 0.3j])).requires_grad_(True)
    assert gradcheck(lambda a: a * a, (z,))
    assert gradcheck(lambda a: (a * a.conj()).real, (z,))
    w = tc.from_numpy(np.array([0.3 - 1j, 2 + 0.1j])).requires_grad_(True)
    assert gradcheck(lambda a, b: a * b.conj() + b.exp(), (z, w))


def test_jacobian_hessian():
    x = T([0.5, -1.0, 2.0], True)
    J = F.jacobian(lambda a: a * a * a, x)
    np.testing.assert_allclose(J.numpy(), np.diag(3 * x.detach().numpy() ** 2))
    H = F.hessian(lambda a: (a * a * a).sum(), x)
    np.testing.assert_allclose(H.numpy(), np.diag(6 * x.detach().numpy()))
    J = F.jacobian(lambda a: a.exp(), x)
    np.testing.assert_allclose(J.numpy(), np.diag(np.exp(x.detach().numpy())))
    A = np.random.rand(2, 3)
    J = F.jacobian(lambda a: tc.mv(T(A), a), x)
    np.testing.assert_allclose(J.numpy(), A)
    # tuple inputs and outputs
    y = T([1.0, 2.0], True)
    Js = F.jacobian(lambda a, b: (a.sum() * b, b * 2), (x, y))
    assert isinstance(Js, tuple) and len(Js) == 2
    assert Js[0][0].shape == (2, 3) and Js[0][1].shape == (2, 2) and Js[1][1].shape == (2, 2)
    np.testing.assert_allclose(Js[1][1].numpy(), 2 * np.eye(2))
    np.testing.assert_allclose(Js[1][0].numpy(), np.zeros((2, 3)))
    # quadratic form x^T A x has Hessian A + A^T
    M = np.random.rand(3, 3)
    H = F.hessian(lambda a: tc.dot(a, tc.mv(T(M), a)), x)
    np.testing.assert_allclose(H.numpy(), M + M.T, rtol=1e-10)


def test_vjp_jvp_hvp():
    x = T([0.5, -1.0, 2.0])
    v = T([1.0, 2.0, 3.0])
    out, g = F.vjp(lambda a: a * a, x, v)
    np.testing.assert_allclose(out.numpy(), x.numpy() ** 2)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy() * v.numpy())
    out, jv = F.jvp(lambda a: a.exp(), x, v)
    np.testing.assert_allclose(jv.numpy(), np.exp(x.numpy()) * v.numpy())
    A = np.random.rand(2, 3)
    out, jv = F.jvp(lambda a: tc.mv(T(A), a), x, v)
    np.testing.assert_allclose(jv.numpy(), A @ v.numpy())
    out, hv = F.hvp(lambda a: (a * a * a).sum(), x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * x.numpy() * v.numpy())
    out, hv = F.vhp(lambda a: (a * a * a).sum(), x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * x.numpy() * v.numpy())
    out, g = F.vjp(lambda a: (a * a).sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    assert not g.requires_grad
    with pytest.raises(RuntimeError):
        F.vjp(lambda a: a * 2, x)


def test_vs_torch_functional(torch_ref):
    torch = torch_ref
    xn = np.random.rand(3)
    f_tc = lambda a: (a.exp() * a).sum()  # noqa: E731
    f_t = lambda a: (a.exp() * a).sum()  # noqa: E731
    np.testing.assert_allclose(
        F.hessian(f_tc, T(xn)).numpy(),
        torch.autograd.functional.hessian(f_t, torch.from_numpy(xn)).numpy(),
        rtol=1e-10,
    )
