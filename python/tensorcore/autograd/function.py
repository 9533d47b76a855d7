"""tensorcore.autograd.Function: user-defined differentiable ops.

class Exp(tc.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y

y = Exp.apply(x)
"""

import functools

from .. import _C
from .grad_mode import no_grad, is_grad_enabled

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    def __init__(self):
        self._to_save = ()
        self._saved_unpacked = None
        self._non_differentiable = ()
        self._materialize_grads = True
        self._attached = False
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument is of type "
                    f"{type(t).__name__}"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._saved_unpacked is not None:
            return self._saved_unpacked
        if self._attached:
            raise RuntimeError("saved_tensors can only be accessed inside backward()")
        return tuple(self._to_save)

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """Base class for custom autograd ops: define static forward(ctx, ...) and backward(ctx, ...),
    then call Cls.apply(...)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method "
            "(call Cls.apply(...))."
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def vjp(cls, ctx, *grad_outputs):
        return cls.backward(ctx, *grad_outputs)

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        grad_on = is_grad_enabled()
        ctx.needs_input_grad = tuple(
            grad_on and isinstance(a, _C.Tensor) and a.requires_grad for a in args
        )
        with no_grad():
            out = cls.forward(ctx, *args)
        is_tuple = isinstance(out, (tuple, list))
        outs = tuple(out) if is_tuple else (out,)
        if any(ctx.needs_input_grad):
            backward = cls.backward
            if backward is Function.backward and cls.vjp.__func__ is not Function.vjp.__func__:
                backward = cls.vjp
            outs = tuple(
                _C._autograd_function._attach_function(
                    cls.__name__ + "Backward",
                    ctx,
                    backward,
                    list(args),
                    list(outs),
                    list(ctx._to_save),
                    list(ctx._non_differentiable),
                    ctx._materialize_grads,
                )
            )
            ctx._to_save = ()
            ctx._attached = True
        return outs if is_tuple else outs[0]


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper
