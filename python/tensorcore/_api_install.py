"""Installs a module's torch functions into the tensorcore namespace (argument-checked by
_argcheck.harden) and its Tensor methods, leaving names the package already has alone."""

from ._C import Tensor


def install(namespace, module):
    """module._FUNCTIONS: functions exported as tensorcore.<name> (and as Tensor methods when
    module._AS_METHODS is set); module._METHODS: {name: function} set on Tensor."""
    from ._argcheck import harden

    functions = {fn.__name__: fn for fn in getattr(module, "_FUNCTIONS", ())}
    harden(functions, "tensorcore")
    as_methods = getattr(module, "_AS_METHODS", False)
    for name, fn in functions.items():
        namespace.setdefault(name, fn)
        if as_methods and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name, fn in getattr(module, "_METHODS", {}).items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
