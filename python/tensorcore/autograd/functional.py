"""tensorcore.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp (reverse mode; jvp via
the double-vjp trick)."""

from .. import _C

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x):
    if isinstance(x, _C.Tensor):
        return (x,), True
    return tuple(x), False


def _grad_preprocess(inputs, create_graph):
    # Fresh leaves (or differentiable aliases with create_graph) so grads are w.r.t. these.
    res = []
    for t in inputs:
        if create_graph and t.requires_grad:
            res.append(t.view_as(t))
        else:
            res.append(t.detach().requires_grad_(True))
    return tuple(res)


def _grad_postprocess(xs, create_graph):
    if create_graph:
        return xs
    return tuple(None if x is None else x.detach() for x in xs)


def _grad(outputs, inputs, grad_outputs, create_graph, retain_graph=True):
    from . import grad as _autograd_grad

    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if o is not None and o.requires_grad:
            outs.append(o)
            gos.append(g)
    if not outs:
        return (None,) * len(inputs)
    return _autograd_grad(
        outs,
        list(inputs),
        gos,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _fill_none(grads, refs, strict, what):
    res = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The {what} for input {i} is independent of the output (strict=True was given)"
                )
            g = _C.zeros_like(r)
        res.append(g)
    return tuple(res)


def _check_v(v, refs, what, when_none):
    """vjp's/jvp's v as a tuple shaped like refs (its outputs/inputs); None means ones, allowed only
    when refs is one single-element tensor."""
    if v is None:
        if any(r.numel() != 1 for r in refs):
            raise RuntimeError(
                f"The vector v can only be None if {when_none} with a single element."
            )
        return tuple(_C.ones_like(r) for r in refs)
    v, _ = _as_tuple(v)
    for r, vv in zip(refs, v):
        if tuple(r.shape) != tuple(vv.shape):
            raise RuntimeError(
                f"Mismatch in shape: {what} has shape {tuple(r.shape)} but v has "
                f"shape {tuple(vv.shape)}"
            )
    return v


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    from .grad_mode import enable_grad

    with enable_grad():
        inputs, single_in = _as_tuple(inputs)
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        outputs, single_out = _as_tuple(outputs)
        v = _check_v(v, outputs, "output", "the user-provided function returns a single Tensor")
        grads = _grad(outputs, inputs, v, create_graph)
        grads = _fill_none(grads, inputs, strict, "vjp")
    outputs = _grad_postprocess(outputs, create_graph)
    grads = _grad_postprocess(grads, create_graph)
    return (outputs[0] if single_out else outputs), (grads[0] if single_in else grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    from .grad_mode import enable_grad

    with enable_grad():
        inputs, single_in = _as_tuple(inputs)
        inputs = _grad_preprocess(inputs, create_graph)
        v = _check_v(
            v, inputs, "input", "the input to the user-provided function is a single Tensor"
        )
        outputs, single_out = _as_tuple(func(*inputs))
        # Double-vjp: g(u) = J^T u is linear in u, so d<g(u), v>/du = J v.
        us = tuple(_C.zeros_like(o).requires_grad_(True) for o in outputs)
        g = _grad(outputs, inputs, us, create_graph=True)
        res = _grad(g, us, v, create_graph)
        res = _fill_none(res, outputs, strict, "jvp")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return (outputs[0] if single_out else outputs), (res[0] if single_out else res)


def _stack(ts):
    if hasattr(_C, "stack"):
        return _C.stack(ts)
    return _C.cat([t.unsqueeze(0) for t in ts]) if hasattr(_C, "cat") else None


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """J[i][j] has shape outputs[i].shape + inputs[j].shape."""
    from .grad_mode import enable_grad

    with enable_grad():
        inputs, single_in = _as_tuple(inputs)
        inputs = _grad_preprocess(inputs, create_graph)
        outputs, single_out = _as_tuple(func(*inputs))
        jac = []
        for o in outputs:
            rows = [[] for _ in inputs]
            flat = o.reshape(-1)
            for k in range(o.numel()):
                if flat.requires_grad:
                    from . import grad as _autograd_grad

                    gs = _autograd_grad(
                        [flat.select(0, k)],
                        list(inputs),
                        None,
                        retain_graph=True,
                        create_graph=create_graph,
                        allow_unused=True,
                    )
                else:
                    gs = (None,) * len(inputs)
                for j, (g, x) in enumerate(zip(gs, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {len(jac)} of the user-provided function is "
                                f"independent of input {j} (strict=True was given)"
                            )
                        g = _C.zeros_like(x)
                    rows[j].append(g)
            per_in = []
            for j, x in enumerate(inputs):
                if o.numel() == 0:
                    J = _C.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                else:
                    J = _stack(rows[j]).reshape(tuple(o.shape) + tuple(x.shape))
                per_in.append(J if create_graph else J.detach())
            jac.append(tuple(per_in))
    if single_out:
        return jac[0][0] if single_in else jac[0]
    return tuple(j[0] for j in jac) if single_in else tuple(jac)


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    inputs_t, single_in = _as_tuple(inputs)

    def check_scalar(*xs):
        out = func(*xs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor with a single element"
            )
        return out.reshape(())

    def jac_func(*xs):
        j = jacobian(check_scalar, xs, create_graph=True, strict=strict)
        return j

    res = jacobian(jac_func, inputs_t, create_graph=create_graph, strict=strict)
    if single_in:
        return res[0][0] if isinstance(res[0], tuple) else res[0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    from .grad_mode import enable_grad

    with enable_grad():
        inputs, single_in = _as_tuple(inputs)
        inputs = _grad_preprocess(inputs, create_graph)
        out = func(*inputs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hvp/vhp should return a single Tensor with a single element"
            )
        if v is None:
            v = tuple(_C.ones_like(x) for x in inputs)
        else:
            v, _ = _as_tuple(v)
        g = _grad([out], inputs, [_C.ones_like(out)], create_graph=True)
        g = _fill_none(g, inputs, strict, "gradient")
        res = _grad(g, inputs, v, create_graph)
        res = _fill_none(res, inputs, strict, "hvp")
    out = out if create_graph else out.detach()
    res = _grad_postprocess(res, create_graph)
    return out, (res[0] if single_in else res)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    # The Hessian of a scalar function is symmetric, so hvp == vhp.
    return vhp(func, inputs, v, create_graph, strict)
