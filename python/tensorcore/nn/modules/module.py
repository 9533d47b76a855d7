"""nn.Module: the base class of every layer, with PyTorch's registration and traversal rules."""

import itertools
from collections import OrderedDict, namedtuple

from ... import _C
from ..._C import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..parameter import Parameter
from ..utils.clip_grad import _zero_grads

_set_data = _C._nn_py.set_data


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by register_*_hook; `handle.remove()` unregisters the hook."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self._hooks_dict = hooks_dict
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        self._hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(hooks_dict, hook):
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    return handle


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _parse_to(*args, **kwargs):
    """Module.to(device), .to(dtype), .to(device, dtype), .to(tensor) -> (device, dtype)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    tensor = kwargs.pop("tensor", None)
    if kwargs:
        raise TypeError(f"Module.to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            tensor = a
        elif isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, _C.device, int)):
            device = _C.device(a) if not isinstance(a, int) else _C.device("cuda", a)
        elif isinstance(a, bool):
            pass
        else:
            raise TypeError(f"Module.to() received an invalid argument of type {type(a).__name__}")
    if tensor is not None:
        device, dtype = tensor.device, tensor.dtype
    if isinstance(device, str):
        device = _C.device(device)
    return device, dtype


class Module:
    """Base class for all neural network modules; subclass it and define forward()."""

    dump_patches = False
    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ---- registration ----
    def _check_registration(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_buffer(self, name, tensor, persistent=True):
        self._check_registration(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        self._check_registration(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                "created explicitly: use nn.Parameter(tensor.detach()) for a computed value"
            )
        self._parameters[name] = param

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_registration(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        return self._get_registered(target, "_parameters", "parameter")

    def get_buffer(self, target):
        return self._get_registered(target, "_buffers", "buffer")

    def _get_registered(self, target, store, kind):
        # "a.b.name": `name` in the `store` dict (_parameters or _buffers) of submodule a.b.
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        registered = getattr(mod, store)
        if name not in registered:
            raise AttributeError(f"{type(mod).__name__} has no {kind} `{name}`")
        return registered[name]

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*stores):
            for store in stores:
                if name in store:
                    del store[name]

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(
                self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set
            )
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(
                self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set
            )
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' "
                    "(nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(k for k in keys if not k[0].isdigit()))

    # ---- calling ----
    def register_forward_pre_hook(self, hook):
        return _add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        return _add_hook(self._forward_hooks, hook)

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) runs once the gradients with respect to the
        module's tensor inputs are computed; a non-None result replaces grad_input."""
        return _add_hook(self._backward_hooks, hook)

    register_backward_hook = register_full_backward_hook

    def _call_impl(self, *args, **kwargs):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if self._backward_hooks and is_grad_enabled():
            return self._call_with_backward_hooks(args, kwargs)
        output = self.forward(*args, **kwargs)
        if self._forward_hooks:
            output = self._run_forward_hooks(args, output)
        return output

    __call__ = _call_impl

    def _run_forward_hooks(self, args, output):
        # A forward hook's non-None result replaces the output.
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def _call_with_backward_hooks(self, args, kwargs):
        # Identity autograd nodes around the module: the one on the outputs records grad_output,
        # the one on the inputs sees grad_input and calls the hooks.
        state = _BackwardHookState(self)
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        state.n_inputs = len(tensor_pos)
        if tensor_pos:
            wrapped = _BackwardHookFunction.apply(
                state.on_grad_input, *[args[i] for i in tensor_pos]
            )
            args = list(args)
            for i, t in zip(tensor_pos, wrapped):
                args[i] = t
            args = tuple(args)
        output = self.forward(*args, **kwargs)
        if self._forward_hooks:
            output = self._run_forward_hooks(args, output)
        outs = output if isinstance(output, tuple) else (output,)
        out_pos = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not out_pos:
            return output
        wrapped = _BackwardHookFunction.apply(state.on_grad_output, *[outs[i] for i in out_pos])
        outs = list(outs)
        for i, t in zip(out_pos, wrapped):
            outs[i] = t
        return tuple(outs) if isinstance(output, tuple) else outs[0]

    # ---- traversal ----
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    # ---- modes and bulk changes ----
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        _zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for key, param in self._parameters.items():
                if param is None:
                    continue
                # Swap the data under the same Parameter object, so optimizers and user
                # references keep pointing at the module's parameters.
                _set_data(param, fn(param))
                if param.grad is not None:
                    _set_data(param.grad, fn(param.grad))
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        device, dtype = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )

        def convert(t):
            target = (
                dtype if (dtype is not None and (t.is_floating_point() or t.is_complex())) else None
            )
            return t.to(device=device, dtype=target)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.to(device="cpu"))

    def cuda(self, device=None):
        dev = (
            "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device)
        )
        return self._apply(lambda t: t.to(device=dev))

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dtype=dst_type))

    def _float_cast(self, dt):
        return self._apply(lambda t: t.to(dtype=dt) if t.is_floating_point() else t)

    def float(self):
        return self._float_cast(_C.float32)

    def double(self):
        return self._float_cast(_C.float64)

    def half(self):
        return self._float_cast(_C.float16)

    def bfloat16(self):
        return self._float_cast(_C.bfloat16)

    def share_memory(self):
        """Moves every parameter and buffer into shared memory (for multiprocessing)."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    # ---- state dict ----
    def register_state_dict_hook(self, hook):
        return _add_hook(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook):
        return _add_hook(self._load_state_dict_pre_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # positional (destination, prefix, keep_vars), as in older torch
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {})
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
            if v is not None
        }
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected a Tensor from checkpoint '
                    f"but received {type(input_param).__name__}"
                )
                continue
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{_fmt_shape(input_param.shape)} from checkpoint, the shape in current model "
                    f"is {_fmt_shape(param.shape)}."
                )
                continue
            try:
                with no_grad():
                    param.copy_(input_param)
            except Exception as ex:  # dtype/device problems: report with the key, keep going
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{_fmt_shape(param.shape)} and whose dimensions in the checkpoint are "
                    f"{_fmt_shape(input_param.shape)}, an exception occurred : {ex}."
                )
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != prefix + "_metadata":
                    input_name = key[len(prefix) :].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict).__name__}."
            )
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(
                state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)
                    ),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ----
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Objects pickled by an older version may lack newer bookkeeping attributes.
        for name in (
            "_forward_hooks",
            "_forward_pre_hooks",
            "_backward_hooks",
            "_state_dict_hooks",
            "_load_state_dict_pre_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_forward_hooks_with_kwargs", set())


class _BackwardHookState:
    def __init__(self, module):
        self.module = module
        self.grad_output = None
        self.n_inputs = 0

    def on_grad_output(self, grads):
        self.grad_output = grads
        if self.n_inputs == 0:  # no input needs a gradient: hooks get grad_input of Nones
            self._run_hooks((None,))
        return None

    def on_grad_input(self, grads):
        return self._run_hooks(grads)

    def _run_hooks(self, grad_input):
        replaced = None
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                if len(result) != len(grad_input):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got "
                        f"{len(result)}, but expected {len(grad_input)}"
                    )
                grad_input = replaced = result
        return replaced


class _BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        replaced = ctx.callback(grads)
        return (None,) + tuple(replaced if replaced is not None else grads)


def _fmt_shape(shape):
    return "tensorcore.Size([" + ", ".join(str(int(s)) for s in shape) + "])"
