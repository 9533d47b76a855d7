"""Grad-mode context managers (also usable as decorators), as in torch.autograd.grad_mode."""

import functools

from .. import _C

_ag = _C._autograd


def is_grad_enabled():
    return _ag.is_grad_enabled()


class _DecoratorContextManager:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_DecoratorContextManager):
    _args = ()

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag.set_grad_enabled(False)

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)
        return False


class enable_grad(_DecoratorContextManager):
    _args = ()

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag.set_grad_enabled(True)

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    def __init__(self, mode):
        self._args = (mode,)
        self.prev = _ag.is_grad_enabled()
        _ag.set_grad_enabled(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)
        return False


class inference_mode(_DecoratorContextManager):
    def __init__(self, mode=True):
        self._args = (mode,)
        self.mode = mode

    def __enter__(self):
        self.prev_grad = _ag.is_grad_enabled()
        self.prev_inf = _ag.is_inference_mode_enabled()
        _ag.set_inference_mode(self.mode)
        if self.mode:
            _ag.set_grad_enabled(False)

    def __exit__(self, *exc):
        _ag.set_inference_mode(self.prev_inf)
        _ag.set_grad_enabled(self.prev_grad)
        return False
