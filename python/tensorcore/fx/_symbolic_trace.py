"""Tracer, symbolic_trace and wrap (torch.fx._symbolic_trace)."""

import builtins
import inspect
import math
import threading


from .graph import Graph

from .proxy import TraceError, TracerBase
from . import _patching

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "is_fx_tracing"]

# (globals dict, name) pairs registered by wrap(): patched while any trace runs.
_wrapped_fns_to_patch = []
# Function objects registered by wrap(): rebound in every traced forward's globals too.
_wrapped_fn_objects = {}
_tracing_depth = 0
# The patches are process-wide: one trace at a time (re-entrant, for a trace inside a traced call).
_trace_lock = threading.RLock()


class _PlaceholderMarker:
    def __repr__(self):
        return "PH"


PH = _PlaceholderMarker()  # concrete_args={"x": PH} keeps x a graph input


def is_fx_tracing():
    """Whether a symbolic trace is running (in this process)."""
    return _tracing_depth > 0


def wrap(fn_or_name):
    """Makes a module-level function a leaf of tracing: called with Proxy arguments it records one
    call_function node instead of running (so it may hold control flow or checks on values).
    Call at module scope: ``fx.wrap("my_fn")`` or ``fx.wrap(my_fn)``; 'len' and other builtins
    are accepted by name. Returns its argument."""
    frame = inspect.currentframe().f_back
    try:
        if callable(fn_or_name):
            name = getattr(fn_or_name, "__name__", None)
            if name is None or name == "<lambda>":
                raise ValueError("wrap: pass a named module-level function, not a lambda")
            fn = fn_or_name
        elif isinstance(fn_or_name, str):
            name = fn_or_name
            fn = None
        else:
            raise TypeError(
                f"wrap: expected a function or a function name, got {type(fn_or_name).__name__}"
            )
        if frame.f_code.co_name != "<module>":
            raise NotImplementedError("wrap must be called at the top level of a module")
        frame_globals = frame.f_globals
        _wrapped_fns_to_patch.append((frame_globals, name))
        if fn is None:
            fn = frame_globals.get(name, getattr(builtins, name, None))
        if fn is not None and not isinstance(fn, type):
            _wrapped_fn_objects[id(fn)] = fn
        return fn_or_name
    finally:
        del frame


def _is_module(obj):
    from ..nn import Module

    return isinstance(obj, Module)


class Tracer(TracerBase):
    """Turns a Module's forward (or a function) into a Graph by running it on Proxies.

    Subclass it to change what is traced through: is_leaf_module(m, qualified_name) decides which
    submodules stay call_module nodes (tensorcore.nn's own layers by default, not containers).
    autowrap_modules: modules whose public functions record call_function nodes (math by
    default; tensorcore's own namespaces always do); autowrap_functions: further functions to
    treat so, wherever a traced forward's module refers to them by a global name.
    """

    def __init__(
        self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False
    ):
        super().__init__()
        self._autowrap_modules = tuple(autowrap_modules)
        self._autowrap_functions = tuple(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.graph = None
        self.root = None

    # ---- customization points ----
    def is_leaf_module(self, m, module_qualified_name):
        from ..nn import ModuleDict, ModuleList, Sequential

        module = type(m).__module__ or ""
        is_nn = module == "tensorcore.nn" or module.startswith("tensorcore.nn.")
        return is_nn and not isinstance(m, (Sequential, ModuleList, ModuleDict))

    def path_of_module(self, mod):
        path = self._module_paths.get(id(mod))
        if path is None:
            raise NameError(
                f"module {type(mod).__name__} is not a submodule of the traced root; assign it "
                "as an attribute of a module in the tree before tracing"
            )
        return path

    def call_module(self, m, forward, args, kwargs):
        """Records m as a call_module node if it is a leaf, else traces through its forward."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """What reading a module attribute yields while tracing: a get_attr Proxy for the root's
        parameters, the value itself otherwise."""
        from ..nn import Parameter

        if isinstance(attr_val, Parameter):
            name = self._param_names.get(id(attr_val))
            if name is not None:
                if name not in parameter_proxy_cache:
                    parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a):
        from .._C import Tensor
        from ..nn import Module, Parameter

        if isinstance(a, Parameter):
            name = self._param_names.get(id(a))
            if name is None:
                raise NameError("parameter is not a member of the traced module")
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, Tensor):
            name = self._tensor_attrs.get(id(a))
            if name is None:
                # A tensor made during tracing (or held outside the tree): stored on the root.
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                name = f"_tensor_constant{i}"
                setattr(self.root, name, a)
                self._tensor_attrs[id(a)] = name
                self._keepalive.append(a)
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, Module):
            try:
                return self.create_node("get_attr", self.path_of_module(a), (), {})
            except NameError:
                raise TraceError(
                    f"a Module ({type(a).__name__}) that is not part of the traced tree was used "
                    "as an argument"
                ) from None
        return super().create_arg(a)

    # ---- tracing ----
    def _collect_tensor_attrs(self, root):
        from .._C import Tensor

        attrs = {}
        if not _is_module(root):
            return attrs
        for name, b in root.named_buffers(remove_duplicate=False):
            attrs.setdefault(id(b), name)
        for prefix, mod in root.named_modules():
            for k, v in vars(mod).items():
                if isinstance(v, Tensor) and not k.startswith("__"):
                    attrs.setdefault(id(v), f"{prefix}.{k}" if prefix else k)
        return attrs

    def _placeholders(self, fn, skip_self, concrete_args):
        """Creates the placeholders of fn's signature; returns (args, kwargs) to call it with."""
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if skip_self:
            params = params[1:]
        concrete_args = dict(concrete_args or {})
        unknown = set(concrete_args) - {p.name for p in params}
        if unknown:
            raise TraceError(
                f"concrete_args names {sorted(unknown)} that are not parameters of "
                f"{getattr(fn, '__qualname__', fn)}{sig}"
            )
        args, kwargs = [], {}
        for p in params:
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                stars = "**" if p.kind is p.VAR_KEYWORD else "*"
                raise TraceError(
                    f"cannot trace a signature with {stars}{p.name} (the number of inputs must be "
                    "known); give the inputs names, or bind them with concrete_args"
                )
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                value = concrete_args[p.name]
                # Still a parameter (with the concrete value as default) so callers need not
                # change, as torch 1.13; the graph is specialized to the value.
                self.create_node("placeholder", p.name, (value,), {})
                arg = value
            else:
                default = () if p.default is inspect.Parameter.empty else (p.default,)
                arg = self.create_proxy("placeholder", p.name, default, {})
            if p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = arg
            else:
                args.append(arg)
        return args, kwargs

    def trace(self, root, concrete_args=None):
        """Traces root (a Module or a function) and returns the Graph."""
        global _tracing_depth
        from ..nn import Module

        if _is_module(root):
            self.root = root
            fn = type(root).forward
            skip_self = True
            if fn is Module.forward:
                raise TraceError(f"{type(root).__name__} has no forward() to trace")
        elif callable(root) and not isinstance(root, type):
            self.root = Module()
            fn = root
            skip_self = False
        else:
            raise TypeError(
                f"symbolic_trace: expected an nn.Module or a function, got {type(root).__name__}"
            )
        self.graph = Graph()
        self._module_paths = {id(m): name for name, m in self.root.named_modules()}
        self._tensor_attrs = self._collect_tensor_attrs(self.root)
        self._param_names = {}
        for name, p in self.root.named_parameters(remove_duplicate=False):
            self._param_names.setdefault(id(p), name)
        self._keepalive = []
        parameter_proxy_cache = {}
        fn_globals = getattr(fn, "__globals__", None)

        patcher = _patching.Patcher()
        _trace_lock.acquire()
        _tracing_depth += 1
        try:
            self._install_patches(patcher, fn_globals, parameter_proxy_cache)
            if skip_self:
                args, kwargs = self._placeholders(fn, True, concrete_args)
                result = fn(self.root, *args, **kwargs)
            else:
                args, kwargs = self._placeholders(fn, False, concrete_args)
                result = fn(*args, **kwargs)
            self.create_node("output", "output", (self.create_arg(result),), {})
        finally:
            _tracing_depth -= 1
            patcher.restore()
            _trace_lock.release()
        return self.graph

    def _install_patches(self, patcher, fn_globals, parameter_proxy_cache):
        from .._C import Tensor
        from ..nn import Module

        for name in _patching.TENSORCORE_NAMESPACES:
            mod = _patching.import_if_present(name)
            if mod is not None:
                patcher.wrap_namespace(mod)
        for mod in self._autowrap_modules:
            patcher.wrap_namespace(mod)
        for fn in self._autowrap_functions:
            patcher.add_function(fn)
        for fn in list(_wrapped_fn_objects.values()):
            patcher.add_function(fn)
        for frame_globals, name in _wrapped_fns_to_patch:
            if name in frame_globals:
                value = frame_globals[name]
            elif hasattr(builtins, name):
                value = getattr(builtins, name)
            else:
                continue
            value = _patching.original_of(value)
            patcher.add_function(value)
            patcher.patch_dict(frame_globals, name, _patching.recording_wrapper(value))
        patcher.wrap_globals(fn_globals)
        patcher.patch_tensor_class(Tensor)

        tracer = self
        orig_call = Module.__call__
        orig_getattr = Module.__getattr__

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*a, **k):
                return orig_call(mod, *a, **k)

            patcher.wrap_globals(getattr(type(mod).forward, "__globals__", None))
            return tracer.call_module(mod, forward, args, kwargs)

        def module_getattr_wrapper(mod, attr):
            value = orig_getattr(mod, attr)
            return tracer.getattr(attr, value, parameter_proxy_cache)

        patcher.patch_attr(Module, "__call__", module_call_wrapper)
        patcher.patch_attr(Module, "__getattr__", module_getattr_wrapper)


def symbolic_trace(root, concrete_args=None):
    """Traces a Module or function into a GraphModule (torch.fx.symbolic_trace).

    concrete_args: {parameter name: value} fixes those inputs while tracing (for branches on
    them); the GraphModule keeps the parameter, with the value as its default."""
    from .graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    if _is_module(root):
        name = type(root).__name__
    else:
        name = getattr(root, "__name__", type(root).__name__)
    return GraphModule(tracer.root, graph, name)
