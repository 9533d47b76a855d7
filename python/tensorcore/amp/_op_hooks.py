"""The autocast hook for ops written in Python (nn.functional composites such as linear,
softmax or the losses). C++ ops carry the same hook (TC_AUTOCAST); both use one policy table."""

import functools
import inspect

from .._C import _amp as _C_amp

_hook_armed = _C_amp.hook_armed
_autocast_call = _C_amp._autocast_call


def autocast_op(name, native=False):
    """Decorates a Python op with torch's autocast policy for the aten op `name`.

    native=True marks an op that is a single kernel in torch but a composite here: inside a
    region it always runs with autocast excluded, so its inner ops are not cast either.

    Outside autocast regions the wrapper only tests one thread-local flag. Inside one, the
    floating tensors among the arguments (and in list/tuple arguments) are cast by the op's
    policy and the op runs with autocast excluded, so the ops it is built from are not re-cast.
    """

    def decorate(fn):
        # Where a positional `dtype` argument would sit (F.softmax(x, 1, 3, tc.float32)).
        params = list(inspect.signature(fn).parameters.values())
        dtype_pos = next(
            (
                i
                for i, p in enumerate(params)
                if p.name == "dtype" and p.kind == p.POSITIONAL_OR_KEYWORD
            ),
            None,
        )

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if _hook_armed():
                explicit = (
                    dtype_pos is not None and len(args) > dtype_pos and args[dtype_pos] is not None
                )
                return _autocast_call(name, fn, args, kwargs, native, explicit)
            return fn(*args, **kwargs)

        wrapper.__autocast_op__ = name
        return wrapper

    return decorate
