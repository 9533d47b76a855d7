"""gradcheck / gradgradcheck: compare analytical gradients (vjp per output element) against
central finite differences. Complex inputs are perturbed along the real and imaginary axes;
complex outputs are probed with grad_output 1 and 1j (PyTorch's conjugate-Wirtinger convention:
for L = Re(sum(conj(v) * out)), grad = dL/dRe(x) + 1j * dL/dIm(x))."""

import numpy as np

from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a check fails."""


def _tensors(x):
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def _is_diff(t):
    return (
        isinstance(t, _C.Tensor) and t.requires_grad and (t.is_floating_point() or t.is_complex())
    )


def _outputs(func, inputs):
    out = func(*inputs)
    if isinstance(out, _C.Tensor):
        return (out,)
    return tuple(o for o in out if isinstance(o, _C.Tensor))


def _np(t):
    return t.detach().contiguous().numpy().copy()


def _eval(func, inputs, i, arr):
    """Runs func with inputs[i] replaced by a tensor holding `arr` (no grad)."""
    new = list(inputs)
    new[i] = (
        _C.from_numpy(np.ascontiguousarray(arr))
        .to(inputs[i].dtype)
        .requires_grad_(inputs[i].requires_grad)
    )
    outs = _outputs(func, new)
    return [_np(o).astype(np.complex128 if o.is_complex() else np.float64).ravel() for o in outs]


def _numerical(func, inputs, diff_idx, eps):
    """num[i] : list over (element, part) of list over outputs of d out / d (part of x_j)."""
    num = {}
    for i in diff_idx:
        x = _np(inputs[i])
        flat = x.reshape(-1)
        parts = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
        cols = []
        for j in range(flat.size):
            per_part = []
            for d in parts:
                orig = flat[j]
                flat[j] = orig + d * eps
                plus = _eval(func, inputs, i, x)
                flat[j] = orig - d * eps
                minus = _eval(func, inputs, i, x)
                flat[j] = orig
                per_part.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
            cols.append(per_part)
        num[i] = cols
    return num


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Checks gradients of `func` at `inputs` against finite differences (use float64)."""
    from . import grad as _grad

    inputs = _tensors(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _is_diff(t)]
    if not diff_idx:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True."
        )
    for i in diff_idx:
        if inputs[i].dtype not in (_C.float64, _C.complex128):
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex."
            )
    outputs = _outputs(func, inputs)
    num = _numerical(func, inputs, diff_idx, eps)
    diff_inputs = [inputs[i] for i in diff_idx]
    for oi, out in enumerate(outputs):
        if not (out.is_floating_point() or out.is_complex()):
            continue
        n_out = out.numel()
        vs = (1.0, 1j) if out.is_complex() else (1.0,)
        for i_pos, i in enumerate(diff_idx):
            x = inputs[i]
            n_in = x.numel()
            xc = x.is_complex()
            # Jacobians indexed [input elem * parts, output elem * len(vs)].
            parts = 2 if xc else 1
            numerical = np.zeros((n_in * parts, n_out * len(vs)))
            analytical = np.zeros_like(numerical)
            for j in range(n_in):
                for p in range(parts):
                    d = num[i][j][p][oi]
                    for vi, v in enumerate(vs):
                        numerical[j * parts + p, vi :: len(vs)] = np.real(np.conj(v) * d)
            if out.requires_grad:
                for k in range(n_out):
                    for vi, v in enumerate(vs):
                        go = np.zeros(
                            n_out, dtype=np.complex128 if out.is_complex() else np.float64
                        )
                        go[k] = v
                        go_t = _C.from_numpy(go.reshape(tuple(out.shape))).to(out.dtype)
                        grads = _grad(
                            [out], diff_inputs, [go_t], retain_graph=True, allow_unused=True
                        )
                        g = grads[i_pos]
                        if g is None:
                            continue
                        if tuple(g.shape) != tuple(x.shape):
                            return _fail(
                                f"Gradient for input {i} has shape {tuple(g.shape)} but the input "
                                f"has shape {tuple(x.shape)}",
                                raise_exception,
                            )
                        ga = _np(g).reshape(-1)
                        col = k * len(vs) + vi
                        if xc:
                            analytical[0::2, col] = np.real(ga)
                            analytical[1::2, col] = np.imag(ga)
                        else:
                            analytical[:, col] = np.real(ga)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                kind = "complex " if (xc or out.is_complex()) else ""
                return _fail(
                    f"Jacobian mismatch for output {oi} with respect to input {i},\n"
                    f"{kind}numerical:{numerical.T}\nanalytical:{analytical.T}\n"
                    f"max abs difference {np.abs(analytical - numerical).max()}",
                    raise_exception,
                )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Checks second derivatives: gradcheck of (inputs, grad_outputs) -> vjp(func)."""
    from . import grad as _grad

    inputs = _tensors(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _is_diff(t)]
    outputs = [o for o in _outputs(func, inputs) if o.is_floating_point() or o.is_complex()]
    if grad_outputs is None:
        rng = np.random.RandomState(0)
        grad_outputs = []
        for o in outputs:
            a = rng.randn(*tuple(o.shape)) if o.dim() else np.array(rng.randn())
            if o.is_complex():
                a = a + 1j * (rng.randn(*tuple(o.shape)) if o.dim() else rng.randn())
            grad_outputs.append(_C.from_numpy(np.asarray(a)).to(o.dtype).requires_grad_(True))
    grad_outputs = list(_tensors(grad_outputs))
    n_in = len(inputs)

    def first_grad(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, ins) if o.is_floating_point() or o.is_complex()]
        diff = [ins[i] for i in diff_idx]
        grads = _grad(outs, diff, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_grad,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
