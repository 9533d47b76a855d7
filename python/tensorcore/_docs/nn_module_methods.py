"""Docstrings of the methods of tensorcore.nn.Module."""

from ._style import doc

TARGET = "tensorcore.nn.Module"

_RECURSE = "recurse (bool): include the submodules' (default), or only this module's own."
_PREFIX = "prefix (str): prepended to every name."
_DUP = "remove_duplicate (bool): yield a shared object once."

DOCS = {
    "forward": doc(
        "forward(*args, **kwargs)",
        "The computation of the module; subclasses override it. Call the module (``module(x)``) rather than ``forward`` so that hooks run.",
    ),
    "add_module": doc(
        "add_module(name, module) -> None",
        "Registers ``module`` as the child ``name`` (the same as assigning ``self.name = module``).",
        ["name (str): the attribute name.", "module (Module or None): the child."],
    ),
    "register_parameter": doc(
        "register_parameter(name, param) -> None",
        "Registers a :class:`Parameter` (or None) under ``name``; it appears in :meth:`parameters` and the state dict.",
        ["name (str): the attribute name.", "param (Parameter or None): the parameter."],
    ),
    "register_buffer": doc(
        "register_buffer(name, tensor, persistent=True) -> None",
        "Registers a tensor that is state but not a parameter (e.g. BatchNorm's running mean): it moves with :meth:`to` and, if persistent, is saved in the state dict.",
        [
            "name (str): the attribute name.",
            "tensor (Tensor or None): the buffer.",
            "persistent (bool): include it in :meth:`state_dict`.",
        ],
    ),
    "apply": doc(
        "apply(fn) -> Module",
        "Calls ``fn`` on every submodule (children first) and on this module; returns self. Typical use: weight initialization.",
        ["fn (callable): takes a Module."],
        example=">>> net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n>>> seen = []\n>>> _ = net.apply(lambda m: seen.append(type(m).__name__))\n>>> seen\n['Linear', 'ReLU', 'Sequential']",
    ),
    "children": doc("children() -> Iterator[Module]", "Iterates over the immediate child modules."),
    "named_children": doc(
        "named_children() -> Iterator[(str, Module)]",
        "Iterates over the immediate child modules with their names.",
    ),
    "modules": doc(
        "modules() -> Iterator[Module]",
        "Iterates over all modules of the tree, this one first (each once).",
    ),
    "named_modules": doc(
        "named_modules(memo=None, prefix='', remove_duplicate=True) -> Iterator[(str, Module)]",
        "Iterates over all modules of the tree with their dotted names, this one first (named ``prefix``).",
        ["memo (set, optional): modules already seen.", _PREFIX, _DUP],
    ),
    "parameters": doc(
        "parameters(recurse=True) -> Iterator[Parameter]",
        "Iterates over the module's parameters (typically passed to an optimizer).",
        [_RECURSE],
        example=">>> sum(p.numel() for p in nn.Linear(3, 2).parameters())\n8",
    ),
    "named_parameters": doc(
        "named_parameters(prefix='', recurse=True, remove_duplicate=True) -> Iterator[(str, Parameter)]",
        "Iterates over the parameters with their dotted names (``'0.weight'``, ...).",
        [_PREFIX, _RECURSE, _DUP],
    ),
    "buffers": doc(
        "buffers(recurse=True) -> Iterator[Tensor]",
        "Iterates over the module's buffers.",
        [_RECURSE],
    ),
    "named_buffers": doc(
        "named_buffers(prefix='', recurse=True, remove_duplicate=True) -> Iterator[(str, Tensor)]",
        "Iterates over the buffers with their dotted names.",
        [_PREFIX, _RECURSE, _DUP],
    ),
    "get_submodule": doc(
        "get_submodule(target) -> Module",
        "The submodule at the dotted path ``target`` (``''`` is this module); AttributeError if absent.",
        ["target (str): e.g. ``'encoder.layers.0'``."],
    ),
    "get_parameter": doc(
        "get_parameter(target) -> Parameter",
        "The parameter at the dotted path ``target``.",
        ["target (str): e.g. ``'0.weight'``."],
    ),
    "get_buffer": doc(
        "get_buffer(target) -> Tensor",
        "The buffer at the dotted path ``target``.",
        ["target (str): e.g. ``'bn.running_mean'``."],
    ),
    "state_dict": doc(
        "state_dict(*, destination=None, prefix='', keep_vars=False) -> dict",
        "An ordered dict of the parameters and persistent buffers by dotted name (detached unless ``keep_vars``), the format of :meth:`load_state_dict` and :func:`tensorcore.save`.",
        [],
        [
            "destination (dict, optional): filled and returned.",
            _PREFIX,
            "keep_vars (bool): keep the tensors attached to autograd.",
        ],
        example=">>> list(nn.Linear(2, 1).state_dict().keys())\n['weight', 'bias']",
    ),
    "load_state_dict": doc(
        "load_state_dict(state_dict, strict=True) -> NamedTuple",
        "Copies parameters and buffers from ``state_dict`` into this module. With ``strict``, missing or unexpected keys raise; returns ``(missing_keys, unexpected_keys)``.",
        [
            "state_dict (dict): from :meth:`state_dict`.",
            "strict (bool): require an exact key match.",
        ],
    ),
    "register_state_dict_hook": doc(
        "register_state_dict_hook(hook) -> RemovableHandle",
        "Registers ``hook(module, state_dict, prefix, local_metadata)`` called after :meth:`state_dict` builds its entries.",
        ["hook (callable): the hook."],
    ),
    "register_forward_hook": doc(
        "register_forward_hook(hook) -> RemovableHandle",
        "Registers ``hook(module, input, output)`` called after every forward; a non-None return replaces the output. ``handle.remove()`` unregisters it.",
        ["hook (callable): the hook."],
    ),
    "register_forward_pre_hook": doc(
        "register_forward_pre_hook(hook) -> RemovableHandle",
        "Registers ``hook(module, input)`` called before every forward; a non-None return replaces the input.",
        ["hook (callable): the hook."],
    ),
    "train": doc(
        "train(mode=True) -> Module",
        "Sets training mode (``mode=True``) or evaluation mode on this module and all submodules (affects Dropout, BatchNorm, ...); returns self.",
        ["mode (bool): training (True) or evaluation (False)."],
    ),
    "eval": doc(
        "eval() -> Module",
        "Sets evaluation mode (``train(False)``): dropout off, batch norm uses running statistics. Returns self.",
    ),
    "requires_grad_": doc(
        "requires_grad_(requires_grad=True) -> Module",
        "Sets ``requires_grad`` of every parameter (e.g. to freeze a backbone); returns self.",
        ["requires_grad (bool): whether autograd records the parameters."],
    ),
    "zero_grad": doc(
        "zero_grad(set_to_none=True) -> None",
        "Resets the gradients of all parameters: to None (default) or to zero tensors.",
        ["set_to_none (bool): set ``.grad`` to None instead of zeroing it."],
    ),
    "to": doc(
        "to(*args, **kwargs) -> Module",
        "Moves and/or casts the parameters and buffers in place: ``to(device)``, ``to(dtype)`` (floating ones only), ``to(device, dtype)`` or ``to(tensor)``; returns self.",
        [
            "device (tensorcore.device or str, optional): the target device.",
            "dtype (tensorcore.dtype, optional): the target floating dtype.",
            "non_blocking (bool): accepted for torch compatibility.",
        ],
    ),
    "cpu": doc("cpu() -> Module", "Moves all parameters and buffers to the CPU; returns self."),
    "cuda": doc(
        "cuda(device=None) -> Module",
        "Moves all parameters and buffers to a CUDA device (the current one by default); returns self.",
        ["device (int or device, optional): the CUDA device."],
    ),
    "float": doc(
        "float() -> Module", "Casts floating parameters and buffers to float32; returns self."
    ),
    "double": doc(
        "double() -> Module", "Casts floating parameters and buffers to float64; returns self."
    ),
    "half": doc(
        "half() -> Module", "Casts floating parameters and buffers to float16; returns self."
    ),
    "bfloat16": doc(
        "bfloat16() -> Module", "Casts floating parameters and buffers to bfloat16; returns self."
    ),
    "type": doc(
        "type(dst_type) -> Module",
        "Casts all parameters and buffers to ``dst_type``; returns self.",
        ["dst_type (tensorcore.dtype): the dtype."],
    ),
    "extra_repr": doc(
        "extra_repr() -> str",
        "The module-specific part of its repr (e.g. ``in_features=3, out_features=2``); override it in subclasses.",
    ),
}
