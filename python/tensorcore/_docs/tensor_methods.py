"""Docstrings of the tensorcore.Tensor methods and properties that have no top-level function
(the others are derived from the function's docstring by tensorcore._docs)."""

from ._style import doc

TARGET = "tensorcore.Tensor"


def _cast(name, dtype):
    return doc(
        f"{name}() -> Tensor",
        f"``self`` converted to {dtype} (``self.to({dtype})``); ``self`` itself when it already has that dtype.",
    )


_GEN = "generator (Generator, optional): the random source."

DOCS = {
    "shape": "The size of each dimension, as a :class:`tensorcore.Size` (a tuple subclass). Same as :meth:`size`.",
    "ndim": "Number of dimensions (0 for a scalar tensor).",
    "dtype": "The data type of the elements (a :class:`tensorcore.dtype` such as ``tensorcore.float32``).",
    "device": "The :class:`tensorcore.device` holding the data (``cpu`` or ``cuda:N``).",
    "is_cuda": "True when the tensor lives on a CUDA device.",
    "is_cpu": "True when the tensor lives in host memory.",
    "itemsize": "Bytes per element (same as :meth:`element_size`).",
    "nbytes": "Bytes taken by the elements (numel * itemsize; views report their own extent).",
    "requires_grad": "Whether autograd records operations on this tensor; settable on leaves. See :meth:`requires_grad_`.",
    "grad": "The gradient accumulated by :meth:`backward` (None until then); a tensor of the same shape.",
    "grad_fn": "The autograd node that produced this tensor (None for leaves and for tensors created without recording).",
    "is_leaf": "True for tensors not produced by a recorded operation (user-created tensors and ones with ``requires_grad=False``); only leaves get ``.grad`` by default.",
    "retains_grad": "True when :meth:`retain_grad` was called on this non-leaf tensor, so its ``.grad`` is kept.",
    "data": "The tensor's data as a tensor detached from autograd (shares memory); assigning to it replaces the data in place.",
    "real": "The real part, as a view (a real tensor returns itself).",
    "imag": "The imaginary part of a complex tensor, as a view.",
    "T": "The tensor with its dimensions reversed (a view); for matrices the transpose.",
    "mT": "The transpose of the last two dimensions (a view) of a batch of matrices.",
    "size": doc(
        "size(dim=None) -> Size or int",
        "The shape as a :class:`tensorcore.Size`, or the size of one dimension.",
        ["dim (int, optional): the dimension (negative counts from the end)."],
        example=">>> x = tc.zeros(2, 3)\n>>> x.size()\ntensorcore.Size([2, 3])\n>>> x.size(-1)\n3",
    ),
    "stride": doc(
        "stride(dim=None) -> tuple or int",
        "The step in elements between consecutive entries of each dimension (or of ``dim``).",
        ["dim (int, optional): the dimension."],
        example=">>> tc.zeros(2, 3).stride()\n(3, 1)",
    ),
    "dim": doc("dim() -> int", "Number of dimensions (same as :attr:`ndim`)."),
    "ndimension": doc("ndimension() -> int", "Number of dimensions (old name of :meth:`dim`)."),
    "nelement": doc("nelement() -> int", "Number of elements (old name of :meth:`numel`)."),
    "element_size": doc("element_size() -> int", "Bytes per element."),
    "storage_offset": doc(
        "storage_offset() -> int",
        "Position of the first element in the underlying storage, in elements.",
    ),
    "data_ptr": doc("data_ptr() -> int", "Address of the first element."),
    "untyped_storage_ptr": doc(
        "untyped_storage_ptr() -> int",
        "Address of the start of the underlying storage (shared by all views of it).",
    ),
    "is_contiguous": doc(
        "is_contiguous(memory_format=None) -> bool",
        "Whether the elements are laid out densely in row-major order (or in ``memory_format``).",
        ["memory_format (optional): e.g. ``tensorcore.channels_last``."],
    ),
    "contiguous": doc(
        "contiguous(memory_format=None) -> Tensor",
        "``self`` if already contiguous, else a contiguous copy.",
        ["memory_format (optional): the required layout."],
    ),
    "is_same_size": doc(
        "is_same_size(other) -> bool",
        "Whether ``other`` has the same shape.",
        ["other (Tensor): the tensor to compare."],
    ),
    "is_shared": doc(
        "is_shared() -> bool",
        "Whether the storage is in shared memory (see :meth:`share_memory_`).",
    ),
    "is_pinned": doc("is_pinned() -> bool", "Whether the storage is page-locked host memory."),
    "pin_memory": doc(
        "pin_memory() -> Tensor",
        "A copy in page-locked host memory (faster, asynchronous copies to the GPU).",
    ),
    "get_device": doc("get_device() -> int", "The CUDA device index, or -1 for a CPU tensor."),
    "item": doc(
        "item() -> number",
        "The value of a one-element tensor as a Python number.",
        example=">>> tc.tensor([2.5]).item()\n2.5",
    ),
    "tolist": doc(
        "tolist() -> list or number",
        "The elements as (nested) Python lists of numbers.",
        example=">>> tc.tensor([[1, 2], [3, 4]]).tolist()\n[[1, 2], [3, 4]]",
    ),
    "numpy": doc(
        "numpy(force=False) -> numpy.ndarray",
        "A NumPy array sharing memory with this CPU tensor. Raises for tensors that require grad or live on a GPU unless ``force`` (which copies).",
        ["force (bool): detach and copy to the CPU if needed."],
        example=">>> tc.tensor([1, 2]).numpy()\narray([1, 2])",
    ),
    "to": doc(
        "to(*args, **kwargs) -> Tensor",
        "Converts dtype and/or device: ``to(dtype)``, ``to(device, dtype=None)``, ``to(other)`` (like ``other``). Returns ``self`` when nothing changes, unless ``copy=True``.",
        [
            "dtype (tensorcore.dtype, optional): the target dtype.",
            "device (tensorcore.device or str, optional): the target device.",
            "non_blocking (bool): asynchronous host-device copy when possible.",
            "copy (bool): always return a new tensor.",
        ],
        example=">>> tc.tensor([1.7]).to(tc.int64)\ntensor([1])",
    ),
    "type": doc(
        "type(dtype=None) -> str or Tensor",
        "Without argument, the legacy type name (``'tensorcore.FloatTensor'``); with a dtype or type name, the converted tensor.",
        ["dtype (dtype or str, optional): the target type."],
    ),
    "type_as": doc(
        "type_as(other) -> Tensor",
        "``self`` converted to ``other``'s dtype.",
        ["other (Tensor): the tensor whose dtype is used."],
    ),
    "float": _cast("float", "float32"),
    "double": _cast("double", "float64"),
    "half": _cast("half", "float16"),
    "bfloat16": _cast("bfloat16", "bfloat16"),
    "int": _cast("int", "int32"),
    "long": _cast("long", "int64"),
    "short": _cast("short", "int16"),
    "char": _cast("char", "int8"),
    "byte": _cast("byte", "uint8"),
    "bool": _cast("bool", "bool"),
    "cfloat": _cast("cfloat", "complex64"),
    "cdouble": _cast("cdouble", "complex128"),
    "view": doc(
        "view(*shape) -> Tensor",
        "A view with another shape over the same memory (one dimension may be -1). The strides must allow it (see :meth:`reshape` otherwise). ``view(dtype)`` reinterprets the bytes as another dtype.",
        ["*shape (int): the new shape, or one dtype."],
        example=">>> tc.arange(6).view(2, 3)\ntensor([[0, 1, 2],\n        [3, 4, 5]])",
    ),
    "view_as": doc(
        "view_as(other) -> Tensor",
        "``self.view(other.shape)``.",
        ["other (Tensor): the tensor whose shape is used."],
    ),
    "reshape_as": doc(
        "reshape_as(other) -> Tensor",
        "``self.reshape(other.shape)``.",
        ["other (Tensor): the tensor whose shape is used."],
    ),
    "expand": doc(
        "expand(*sizes) -> Tensor",
        "A view with size-1 dimensions repeated to ``sizes`` without copying (stride 0); -1 keeps a dimension, and new leading dimensions may be added.",
        ["*sizes (int): the target shape."],
        example=">>> tc.tensor([[1], [2]]).expand(2, 3)\ntensor([[1, 1, 1],\n        [2, 2, 2]])",
    ),
    "expand_as": doc(
        "expand_as(other) -> Tensor",
        "``self.expand(other.shape)``.",
        ["other (Tensor): the tensor whose shape is used."],
    ),
    "repeat": doc(
        "repeat(*repeats) -> Tensor",
        "Copies the tensor ``repeats[i]`` times along each dimension (extra leading counts add dimensions).",
        ["*repeats (int): repetitions per dimension."],
        example=">>> tc.tensor([1, 2]).repeat(2)\ntensor([1, 2, 1, 2])",
    ),
    "sum_to_size": doc(
        "sum_to_size(*size) -> Tensor",
        "Sums over the dimensions that broadcasting would have expanded, giving ``size`` (the reverse of :meth:`expand`).",
        ["*size (int): a shape ``self`` broadcasts from."],
    ),
    "new_zeros": doc(
        "new_zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor",
        "A zero tensor of ``size`` with ``self``'s dtype and device by default.",
        ["*size (int): the shape."],
        ["dtype, device, requires_grad: as for :func:`tensorcore.zeros`."],
    ),
    "new_ones": doc(
        "new_ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor",
        "A tensor of ones of ``size`` with ``self``'s dtype and device by default.",
        ["*size (int): the shape."],
        ["dtype, device, requires_grad: as for :func:`tensorcore.ones`."],
    ),
    "new_empty": doc(
        "new_empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor",
        "An uninitialized tensor of ``size`` with ``self``'s dtype and device by default.",
        ["*size (int): the shape."],
        ["dtype, device, requires_grad: as for :func:`tensorcore.empty`."],
    ),
    "new_full": doc(
        "new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor",
        "A tensor of ``size`` filled with ``fill_value``, with ``self``'s dtype and device by default.",
        ["size (tuple): the shape.", "fill_value (Number): the value."],
        ["dtype, device, requires_grad: as for :func:`tensorcore.full`."],
    ),
    "copy_": doc(
        "copy_(src, non_blocking=False) -> Tensor",
        "Copies the elements of ``src`` (broadcast, cast, possibly from another device) into ``self``; returns ``self``.",
        ["src (Tensor): the source.", "non_blocking (bool): asynchronous copy when possible."],
        example=">>> x = tc.zeros(3)\n>>> x.copy_(tc.tensor([1, 2, 3]))\ntensor([1., 2., 3.])",
    ),
    "resize_": doc(
        "resize_(*sizes) -> Tensor",
        "Changes the shape in place to contiguous ``sizes``, growing the storage if needed (contents of new elements are undefined).",
        ["*sizes (int): the new shape."],
    ),
    "resize_as_": doc(
        "resize_as_(the_template) -> Tensor",
        "``self.resize_(the_template.shape)``.",
        ["the_template (Tensor): the tensor whose shape is used."],
    ),
    "fill_diagonal_": doc(
        "fill_diagonal_(fill_value, wrap=False) -> Tensor",
        "Writes ``fill_value`` on the main diagonal in place (all dimensions equal, or a tall matrix).",
        [
            "fill_value (Number): the value.",
            "wrap (bool): for tall matrices, restart the diagonal every N+1 rows.",
        ],
    ),
    "uniform_": doc(
        "uniform_(from=0.0, to=1.0, *, generator=None) -> Tensor",
        "Fills in place with samples from U(from, to).",
        ["from (float): lower bound.", "to (float): upper bound."],
        [_GEN],
    ),
    "normal_": doc(
        "normal_(mean=0.0, std=1.0, *, generator=None) -> Tensor",
        "Fills in place with samples from N(mean, std^2).",
        ["mean (float): the mean.", "std (float): the standard deviation."],
        [_GEN],
    ),
    "exponential_": doc(
        "exponential_(lambd=1.0, *, generator=None) -> Tensor",
        "Fills in place with samples from the exponential distribution of rate ``lambd``.",
        ["lambd (float): the rate."],
        [_GEN],
    ),
    "random_": doc(
        "random_(from=0, to=None, *, generator=None) -> Tensor",
        "Fills in place with integers drawn uniformly from ``[from, to)`` (``random_(to)``: from 0; no bounds: the dtype's mantissa range).",
        ["from (int): lower bound.", "to (int, optional): upper bound (excluded)."],
        [_GEN],
    ),
    "backward": doc(
        "backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None",
        "Computes the gradient of this tensor with respect to the graph leaves and accumulates it in their ``.grad``. A non-scalar tensor needs ``gradient`` (same shape).",
        [
            "gradient (Tensor, optional): gradient with respect to this tensor.",
            "retain_graph (bool, optional): keep the graph for another backward.",
            "create_graph (bool): record the backward pass (higher-order derivatives).",
            "inputs (sequence of Tensors, optional): accumulate only into these.",
        ],
        example=">>> x = tc.tensor([1.0, 2.0], requires_grad=True)\n>>> (x * x).sum().backward()\n>>> x.grad\ntensor([2., 4.])",
    ),
    "requires_grad_": doc(
        "requires_grad_(requires_grad=True) -> Tensor",
        "Sets :attr:`requires_grad` in place (leaves only) and returns ``self``.",
        ["requires_grad (bool): record operations on this tensor."],
    ),
    "retain_grad": doc(
        "retain_grad() -> None",
        "Keeps the ``.grad`` of this non-leaf tensor during backward (leaves always get it).",
    ),
    "register_hook": doc(
        "register_hook(hook) -> RemovableHandle",
        "Registers ``hook(grad)`` called when the gradient of this tensor is computed; a returned tensor replaces the gradient. ``handle.remove()`` unregisters it.",
        ["hook (callable): the hook."],
        example=">>> x = tc.tensor([1.0], requires_grad=True)\n>>> h = x.register_hook(lambda g: g * 10)\n>>> (x * 2).sum().backward()\n>>> x.grad\ntensor([20.])",
    ),
    "record_stream": doc(
        "record_stream(stream) -> None",
        "Marks the memory as in use by a CUDA ``stream``, so the caching allocator does not reuse it before the stream's pending work finishes.",
        ["stream (tensorcore.cuda.Stream): the stream."],
    ),
}
