"""Docstrings of tensorcore's shape, joining, splitting and indexing functions."""

from ._style import INPUT, fn

TARGET = "tensorcore"

_TENSORS = "tensors (sequence of Tensors): the tensors to join."
_VIEW = " The result is a view: it shares memory with ``input``."
_INDEX = "index (LongTensor): the indices."
_DIM = "dim (int): the dimension."

DOCS = {
    "cat": fn(
        "cat",
        ["tensors", "dim=0"],
        "Concatenates tensors along an existing dimension ``dim``. All tensors have the same shape "
        "except along ``dim`` (1-D empty tensors are skipped); dtypes are promoted.",
        [_TENSORS, "dim (int): the dimension to join along."],
        example=">>> a = tc.tensor([[1, 2]])\n>>> tc.cat([a, a], dim=0)\ntensor([[1, 2],\n        [1, 2]])\n"
        ">>> tc.cat([a, a], dim=1)\ntensor([[1, 2, 1, 2]])",
    ),
    "stack": fn(
        "stack",
        ["tensors", "dim=0"],
        "Joins tensors of the same shape along a new dimension inserted at ``dim``.",
        [_TENSORS, "dim (int): where the new dimension goes."],
        example=">>> tc.stack([tc.tensor([1, 2]), tc.tensor([3, 4])], dim=1)\ntensor([[1, 3],\n        [2, 4]])",
    ),
    "hstack": fn(
        "hstack",
        ["tensors"],
        "Concatenates horizontally: along dim 1, or dim 0 for 1-D tensors.",
        [_TENSORS],
    ),
    "vstack": fn(
        "vstack",
        ["tensors"],
        "Concatenates vertically, along dim 0, after making each tensor at least 2-D.",
        [_TENSORS],
    ),
    "dstack": fn(
        "dstack",
        ["tensors"],
        "Concatenates depth-wise, along dim 2, after making each tensor at least 3-D.",
        [_TENSORS],
    ),
    "column_stack": fn(
        "column_stack",
        ["tensors"],
        "Stacks tensors as columns: 1-D and 0-D tensors become columns, then ``hstack``.",
        [_TENSORS],
    ),
    "split": fn(
        "split",
        ["tensor", "split_size_or_sections", "dim=0"],
        "Splits into views along ``dim``: chunks of ``split_size_or_sections`` elements (the last "
        "may be smaller), or chunks of the listed sizes.",
        [
            "tensor (Tensor): the tensor to split.",
            "split_size_or_sections (int or list of ints): chunk size or sizes.",
            "dim (int): the dimension to split.",
        ],
        example=">>> tc.split(tc.arange(5), 2)\n(tensor([0, 1]), tensor([2, 3]), tensor([4]))",
        returns="tuple of Tensors",
    ),
    "split_with_sizes": fn(
        "split_with_sizes",
        ["input", "split_sizes", "dim=0"],
        "Splits into views of the listed sizes along ``dim`` (they must add up to its length).",
        [INPUT, "split_sizes (list of ints): the sizes.", "dim (int): the dimension to split."],
        returns="tuple of Tensors",
    ),
    "chunk": fn(
        "chunk",
        ["input", "chunks", "dim=0"],
        "Splits into ``chunks`` views of (nearly) equal size along ``dim``; fewer chunks come back "
        "when the length does not allow ``chunks`` non-empty ones.",
        [INPUT, "chunks (int): number of chunks.", "dim (int): the dimension to split."],
        example=">>> tc.chunk(tc.arange(6), 3)\n(tensor([0, 1]), tensor([2, 3]), tensor([4, 5]))",
        returns="tuple of Tensors",
    ),
    "hsplit": fn(
        "hsplit",
        ["input", "indices_or_sections"],
        "``tensor_split`` along dim 1 (dim 0 for 1-D input).",
        [INPUT, "indices_or_sections (int or list of ints): parts or split points."],
        returns="tuple of Tensors",
    ),
    "vsplit": fn(
        "vsplit",
        ["input", "indices_or_sections"],
        "``tensor_split`` along dim 0 of an input with at least 2 dimensions.",
        [INPUT, "indices_or_sections (int or list of ints): parts or split points."],
        returns="tuple of Tensors",
    ),
    "dsplit": fn(
        "dsplit",
        ["input", "indices_or_sections"],
        "``tensor_split`` along dim 2 of an input with at least 3 dimensions.",
        [INPUT, "indices_or_sections (int or list of ints): parts or split points."],
        returns="tuple of Tensors",
    ),
    "unbind": fn(
        "unbind",
        ["input", "dim=0"],
        "Removes dimension ``dim``, returning the slices along it as a tuple of views.",
        [INPUT, "dim (int): the dimension to remove."],
        example=">>> tc.unbind(tc.tensor([[1, 2], [3, 4]]))\n(tensor([1, 2]), tensor([3, 4]))",
        returns="tuple of Tensors",
    ),
    "narrow": fn(
        "narrow",
        ["input", "dim", "start", "length"],
        "The view ``input`` restricted to ``length`` elements from ``start`` along ``dim``.",
        [INPUT, _DIM, "start (int): first index.", "length (int): number of elements."],
        example=">>> tc.narrow(tc.arange(6), 0, 2, 3)\ntensor([2, 3, 4])",
    ),
    "select": fn(
        "select",
        ["input", "dim", "index"],
        "The slice at ``index`` along ``dim`` (that dimension is removed), as a view; "
        "``select(x, 0, i)`` is ``x[i]``.",
        [INPUT, _DIM, "index (int): the position."],
    ),
    "index_select": fn(
        "index_select",
        ["input", "dim", "index"],
        "The entries of ``input`` at the positions ``index`` along ``dim`` (a copy).",
        [INPUT, _DIM, "index (LongTensor): 1-D positions."],
        example=">>> x = tc.tensor([[1, 2], [3, 4], [5, 6]])\n>>> tc.index_select(x, 0, tc.tensor([2, 0]))\ntensor([[5, 6],\n        [1, 2]])",
    ),
    "masked_select": fn(
        "masked_select",
        ["input", "mask"],
        "A 1-D tensor of the elements where the boolean ``mask`` (broadcast to ``input``) is True.",
        [INPUT, "mask (BoolTensor): the selector."],
        example=">>> x = tc.tensor([1, -2, 3])\n>>> tc.masked_select(x, x > 0)\ntensor([1, 3])",
    ),
    "masked_fill": fn(
        "masked_fill",
        ["input", "mask", "value"],
        "A copy of ``input`` with ``value`` where the boolean ``mask`` (broadcast) is True.",
        [INPUT, "mask (BoolTensor): where to write.", "value (Number or 0-d Tensor): the value."],
        example=">>> x = tc.tensor([1.0, -2.0, 3.0])\n>>> tc.masked_fill(x, x < 0, 0.0)\ntensor([1., 0., 3.])",
    ),
    "masked_scatter": fn(
        "masked_scatter",
        ["input", "mask", "source"],
        "A copy of ``input`` where the positions with a True ``mask`` take consecutive elements of ``source``.",
        [
            INPUT,
            "mask (BoolTensor): where to write.",
            "source (Tensor): the values, read in order.",
        ],
    ),
    "take": fn(
        "take",
        ["input", "index"],
        "Elements of the flattened ``input`` at ``index``; the result has ``index``'s shape.",
        [INPUT, _INDEX],
        example=">>> tc.take(tc.tensor([[1, 2], [3, 4]]), tc.tensor([0, 3]))\ntensor([1, 4])",
    ),
    "take_along_dim": fn(
        "take_along_dim",
        ["input", "indices", "dim=None"],
        "Picks values along ``dim`` at ``indices`` (which broadcasts with ``input``), as returned "
        "by ``argsort``/``argmax``; the flattened input when ``dim`` is None.",
        [
            INPUT,
            "indices (LongTensor): positions along ``dim``.",
            "dim (int, optional): the dimension.",
        ],
    ),
    "gather": fn(
        "gather",
        ["input", "dim", "index", "*", "sparse_grad=False"],
        "Gathers values along ``dim``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and "
        "likewise for other dims). The result has ``index``'s shape.",
        [
            INPUT,
            "dim (int): the axis to index along.",
            "index (LongTensor): indices, same number of dimensions as ``input``.",
        ],
        ["sparse_grad (bool): accepted for torch compatibility; the gradient is dense."],
        ">>> x = tc.tensor([[1, 2], [3, 4]])\n>>> tc.gather(x, 1, tc.tensor([[0, 0], [1, 0]]))\ntensor([[1, 1],\n        [4, 3]])",
    ),
    "scatter": fn(
        "scatter",
        ["input", "dim", "index", "src=None", "*", "value=None", "reduce=None"],
        "Out-of-place :meth:`Tensor.scatter_`: a copy of ``input`` where, for ``dim=0``, "
        "``out[index[i][j]][j] = src[i][j]`` (or ``value``). With ``reduce='add'`` or "
        "``'multiply'`` the values are combined instead of written.",
        [
            INPUT,
            "dim (int): the axis to index along.",
            _INDEX,
            "src (Tensor, optional): the values to write.",
        ],
        [
            "value (Number, optional): one value to write instead of ``src``.",
            "reduce (str, optional): ``'add'`` or ``'multiply'``.",
        ],
        ">>> tc.scatter(tc.zeros(3), 0, tc.tensor([2, 0]), tc.tensor([5.0, 7.0]))\ntensor([7., 0., 5.])",
    ),
    "scatter_add": fn(
        "scatter_add",
        ["input", "dim", "index", "src"],
        "A copy of ``input`` with the values of ``src`` added at ``index`` along ``dim`` "
        "(repeated indices accumulate).",
        [INPUT, "dim (int): the axis to index along.", _INDEX, "src (Tensor): the values to add."],
        example=">>> tc.scatter_add(tc.zeros(2), 0, tc.tensor([1, 1, 0]), tc.tensor([1.0, 2.0, 3.0]))\ntensor([3., 3.])",
    ),
    "scatter_reduce": fn(
        "scatter_reduce",
        ["input", "dim", "index", "src", "reduce", "*", "include_self=True"],
        "Reduces the values of ``src`` into a copy of ``input`` at ``index`` along ``dim`` with "
        "``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.",
        [
            INPUT,
            "dim (int): the axis to index along.",
            _INDEX,
            "src (Tensor): the values.",
            "reduce (str): the reduction.",
        ],
        ["include_self (bool): whether ``input``'s own values take part."],
    ),
    "index_add": fn(
        "index_add",
        ["input", "dim", "index", "source", "*", "alpha=1"],
        "A copy of ``input`` with the slices of ``source`` (times ``alpha``) added at the positions "
        "``index`` along ``dim``.",
        [INPUT, _DIM, "index (LongTensor): 1-D positions.", "source (Tensor): the slices to add."],
        ["alpha (Number): multiplier of ``source``."],
    ),
    "index_copy": fn(
        "index_copy",
        ["input", "dim", "index", "source"],
        "A copy of ``input`` with the slices of ``source`` written at the positions ``index`` along ``dim``.",
        [INPUT, _DIM, "index (LongTensor): 1-D positions.", "source (Tensor): the slices."],
    ),
    "index_fill": fn(
        "index_fill",
        ["input", "dim", "index", "value"],
        "A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``.",
        [INPUT, _DIM, "index (LongTensor): 1-D positions.", "value (Number): the value."],
    ),
    "index_put": fn(
        "index_put",
        ["input", "indices", "values", "accumulate=False"],
        "A copy of ``input`` with ``values`` written at the advanced index ``indices`` (a tuple of "
        "index tensors, as ``x[indices] = values``); summed into place with ``accumulate=True``.",
        [
            INPUT,
            "indices (tuple of Tensors): one index tensor per leading dimension.",
            "values (Tensor): the values.",
            "accumulate (bool): add instead of write.",
        ],
    ),
    "nonzero": fn(
        "nonzero",
        ["input", "*", "as_tuple=False"],
        "The indices of the non-zero elements: an N x ndim int64 tensor, or with ``as_tuple=True`` "
        "one 1-D tensor per dimension (usable as an index).",
        [INPUT],
        ["as_tuple (bool): return a tuple of index tensors."],
        ">>> tc.nonzero(tc.tensor([[0, 1], [2, 0]]))\ntensor([[0, 1],\n        [1, 0]])",
    ),
    "argwhere": fn(
        "argwhere",
        ["input"],
        "The indices of the non-zero elements as an N x ndim tensor (``nonzero(input)``).",
        [INPUT],
    ),
    "reshape": fn(
        "reshape",
        ["input", "shape"],
        "A tensor with ``input``'s elements in the given shape; one dimension may be -1 (inferred). "
        "A view when the strides allow it, a copy otherwise.",
        [INPUT, "shape (tuple of ints): the new shape."],
        example=">>> tc.reshape(tc.arange(6), (2, -1))\ntensor([[0, 1, 2],\n        [3, 4, 5]])",
    ),
    "squeeze": fn(
        "squeeze",
        ["input", "dim=None"],
        "Removes dimensions of size 1 (only ``dim`` when given)." + _VIEW,
        [INPUT, "dim (int, optional): the dimension to remove if it has size 1."],
        example=">>> tc.squeeze(tc.zeros(2, 1, 3)).shape\ntensorcore.Size([2, 3])",
    ),
    "unsqueeze": fn(
        "unsqueeze",
        ["input", "dim"],
        "Inserts a dimension of size 1 at position ``dim`` (negative counts from the end)." + _VIEW,
        [INPUT, "dim (int): where the new dimension goes."],
        example=">>> tc.unsqueeze(tc.tensor([1, 2]), 1)\ntensor([[1],\n        [2]])",
    ),
    "flatten": fn(
        "flatten",
        ["input", "start_dim=0", "end_dim=-1"],
        "Merges the dimensions ``start_dim..end_dim`` into one (a view when possible).",
        [
            INPUT,
            "start_dim (int): first dimension to merge.",
            "end_dim (int): last dimension to merge.",
        ],
        example=">>> tc.flatten(tc.zeros(2, 3, 4), start_dim=1).shape\ntensorcore.Size([2, 12])",
    ),
    "unflatten": fn(
        "unflatten",
        ["input", "dim", "sizes"],
        "Splits dimension ``dim`` into the dimensions ``sizes`` (one may be -1)." + _VIEW,
        [INPUT, "dim (int): the dimension to split.", "sizes (tuple of ints): its new shape."],
    ),
    "ravel": fn(
        "ravel",
        ["input"],
        "The elements as a 1-D tensor (a view when ``input`` is contiguous).",
        [INPUT],
    ),
    "permute": fn(
        "permute",
        ["input", "dims"],
        "Reorders the dimensions: dimension ``i`` of the result is ``dims[i]`` of the input."
        + _VIEW,
        [INPUT, "dims (tuple of ints): the new order."],
        example=">>> tc.permute(tc.zeros(2, 3, 4), (2, 0, 1)).shape\ntensorcore.Size([4, 2, 3])",
    ),
    "movedim": fn(
        "movedim",
        ["input", "source", "destination"],
        "Moves the dimension(s) ``source`` to the position(s) ``destination``; the others keep their order."
        + _VIEW,
        [
            INPUT,
            "source (int or tuple of ints): dimensions to move.",
            "destination (int or tuple of ints): where they go.",
        ],
    ),
    "transpose": fn(
        "transpose",
        ["input", "dim0", "dim1"],
        "Swaps dimensions ``dim0`` and ``dim1``." + _VIEW,
        [INPUT, "dim0 (int): first dimension.", "dim1 (int): second dimension."],
        example=">>> tc.transpose(tc.tensor([[1, 2, 3]]), 0, 1)\ntensor([[1],\n        [2],\n        [3]])",
    ),
    "concatenate": fn(
        "concatenate",
        ["tensors", "axis=0"],
        "NumPy's name of :func:`tensorcore.cat`: concatenates along ``axis``.",
        [_TENSORS, "axis (int): the dimension to join along."],
    ),
    "swapaxes": fn(
        "swapaxes",
        ["input", "axis0", "axis1"],
        "NumPy's name of :func:`tensorcore.transpose`: swaps two dimensions." + _VIEW,
        [INPUT, "axis0 (int): first dimension.", "axis1 (int): second dimension."],
    ),
    "t": fn(
        "t",
        ["input"],
        "Transpose of a tensor with at most 2 dimensions (0-D and 1-D are returned as is)." + _VIEW,
        [INPUT],
    ),
    "adjoint": fn(
        "adjoint", ["input"], "Conjugate transpose of the last two dimensions (a view).", [INPUT]
    ),
    "flip": fn(
        "flip",
        ["input", "dims"],
        "Reverses the order of the elements along ``dims`` (a copy).",
        [INPUT, "dims (int or tuple of ints): the dimensions to reverse."],
        example=">>> tc.flip(tc.tensor([1, 2, 3]), [0])\ntensor([3, 2, 1])",
    ),
    "fliplr": fn(
        "fliplr",
        ["input"],
        "Reverses dimension 1 (left/right); the input has at least 2 dimensions.",
        [INPUT],
    ),
    "flipud": fn("flipud", ["input"], "Reverses dimension 0 (up/down).", [INPUT]),
    "roll": fn(
        "roll",
        ["input", "shifts", "dims=None"],
        "Rotates the elements along ``dims`` by ``shifts`` positions (wrapping around); without "
        "``dims``, the flattened tensor is rolled and the shape restored.",
        [
            INPUT,
            "shifts (int or tuple of ints): the shift per dimension.",
            "dims (int or tuple of ints, optional): the dimensions.",
        ],
        example=">>> tc.roll(tc.tensor([1, 2, 3, 4]), 1)\ntensor([4, 1, 2, 3])",
    ),
    "rot90": fn(
        "rot90",
        ["input", "k=1", "dims=(0, 1)"],
        "Rotates by 90 degrees ``k`` times in the plane of ``dims`` (from the first toward the second).",
        [INPUT, "k (int): number of quarter turns.", "dims (pair of ints): the plane."],
    ),
    "tile": fn(
        "tile",
        ["input", "dims"],
        "Repeats ``input`` ``dims[i]`` times along each dimension (missing leading counts are 1).",
        [INPUT, "dims (tuple of ints): repetitions per dimension."],
        example=">>> tc.tile(tc.tensor([1, 2]), (2,))\ntensor([1, 2, 1, 2])",
    ),
    "broadcast_to": fn(
        "broadcast_to",
        ["input", "size"],
        "``input`` expanded to ``size`` by broadcasting (a view with zero strides).",
        [INPUT, "size (tuple of ints): the target shape; -1 keeps a dimension."],
    ),
    "broadcast_tensors": fn(
        "broadcast_tensors",
        ["*tensors"],
        "Views of the tensors expanded to their common broadcast shape.",
        ["*tensors (Tensor): tensors of broadcastable shapes."],
        returns="tuple of Tensors",
    ),
    "meshgrid": fn(
        "meshgrid",
        ["*tensors", "indexing=None"],
        "Coordinate grids from 1-D tensors: with N inputs, N tensors of shape (len(t1), ..., len(tN)) "
        "for ``indexing='ij'`` (the default), or with the first two dimensions swapped for ``'xy'``.",
        [
            "*tensors (Tensor): 1-D coordinate vectors.",
            "indexing (str, optional): ``'ij'`` or ``'xy'``.",
        ],
        returns="tuple of Tensors",
        example=">>> ys, xs = tc.meshgrid(tc.tensor([0, 1]), tc.tensor([5, 6, 7]), indexing='ij')\n>>> xs\ntensor([[5, 6, 7],\n        [5, 6, 7]])",
    ),
    "diag": fn(
        "diag",
        ["input", "diagonal=0"],
        "For a 1-D input, the square matrix with it on the ``diagonal``-th diagonal; for a 2-D "
        "input, that diagonal as a 1-D tensor.",
        [INPUT, "diagonal (int): 0 is the main diagonal, positive above, negative below."],
        example=">>> tc.diag(tc.tensor([1, 2]))\ntensor([[1, 0],\n        [0, 2]])",
    ),
    "diagflat": fn(
        "diagflat",
        ["input", "offset=0"],
        "The 2-D matrix with the flattened ``input`` on diagonal ``offset``.",
        [INPUT, "offset (int): the diagonal."],
    ),
    "diagonal": fn(
        "diagonal",
        ["input", "offset=0", "dim1=0", "dim2=1"],
        "The diagonal of the planes (``dim1``, ``dim2``) as a view; it becomes the last dimension.",
        [
            INPUT,
            "offset (int): the diagonal.",
            "dim1 (int): first dimension of the plane.",
            "dim2 (int): second dimension of the plane.",
        ],
    ),
    "tril": fn(
        "tril",
        ["input", "diagonal=0"],
        "The lower triangle of the matrices in ``input`` (elements above ``diagonal`` set to 0).",
        [INPUT, "diagonal (int): which diagonal bounds the triangle."],
        example=">>> tc.tril(tc.ones(2, 2))\ntensor([[1., 0.],\n        [1., 1.]])",
    ),
    "triu": fn(
        "triu",
        ["input", "diagonal=0"],
        "The upper triangle of the matrices in ``input`` (elements below ``diagonal`` set to 0).",
        [INPUT, "diagonal (int): which diagonal bounds the triangle."],
        example=">>> tc.triu(tc.ones(2, 2))\ntensor([[1., 1.],\n        [0., 1.]])",
    ),
    "block_diag": fn(
        "block_diag",
        ["*tensors"],
        "The block-diagonal matrix with the given matrices (or scalars/vectors) on its diagonal.",
        ["*tensors (Tensor): the blocks."],
    ),
    "cartesian_prod": fn(
        "cartesian_prod",
        ["*tensors"],
        "All combinations of one element from each 1-D tensor, one per row.",
        ["*tensors (Tensor): 1-D tensors."],
    ),
    "combinations": fn(
        "combinations",
        ["input", "r=2", "with_replacement=False"],
        "All length-``r`` combinations of the elements of a 1-D tensor, one per row (as itertools.combinations).",
        [
            INPUT,
            "r (int): combination length.",
            "with_replacement (bool): allow repeated elements.",
        ],
    ),
    "as_strided": fn(
        "as_strided",
        ["input", "size", "stride", "storage_offset=None"],
        "A view of ``input``'s storage with the given shape, strides and offset (no bounds beyond the storage are allowed).",
        [
            INPUT,
            "size (tuple of ints): the shape.",
            "stride (tuple of ints): the strides.",
            "storage_offset (int, optional): the first element.",
        ],
    ),
    "as_strided_": fn(
        "as_strided_",
        ["input", "size", "stride", "storage_offset=None"],
        "Gives ``input`` itself the shape, strides and offset (in place; within its storage). "
        "Refused for tensors that require grad.",
        [
            INPUT,
            "size (tuple of ints): the shape.",
            "stride (tuple of ints): the strides.",
            "storage_offset (int, optional): the first element.",
        ],
    ),
    "clone": fn(
        "clone",
        ["input", "*", "memory_format=None"],
        "A copy of ``input`` in new memory; gradients flow back to ``input``.",
        [INPUT],
        ["memory_format (optional): the layout of the copy (default: preserve)."],
    ),
    "numel": fn(
        "numel",
        ["input"],
        "The number of elements of ``input``.",
        [INPUT],
        returns="int",
        example=">>> tc.numel(tc.zeros(2, 3))\n6",
    ),
    "is_tensor": fn(
        "is_tensor",
        ["obj"],
        "True when ``obj`` is a tensorcore Tensor (or subclass such as Parameter).",
        ["obj (object): the object to test."],
        returns="bool",
    ),
    "is_floating_point": fn(
        "is_floating_point",
        ["input"],
        "True when ``input`` has a floating dtype (float16, bfloat16, float32, float64).",
        [INPUT],
        returns="bool",
    ),
    "is_complex": fn(
        "is_complex", ["input"], "True when ``input`` has a complex dtype.", [INPUT], returns="bool"
    ),
    "is_nonzero": fn(
        "is_nonzero",
        ["input"],
        "The truth value of a one-element tensor (errors for other sizes).",
        [INPUT],
        returns="bool",
    ),
    "is_signed": fn(
        "is_signed",
        ["input"],
        "True when ``input``'s dtype is signed (everything except uint8 and bool).",
        [INPUT],
        returns="bool",
    ),
    "isin": fn(
        "isin",
        ["elements", "test_elements", "*", "assume_unique=False", "invert=False"],
        "Boolean tensor of ``elements``' shape: True where the element occurs in ``test_elements``.",
        [
            "elements (Tensor or Number): values to look up.",
            "test_elements (Tensor or Number): the set.",
        ],
        [
            "assume_unique (bool): both inputs hold distinct values (faster).",
            "invert (bool): negate the result.",
        ],
        ">>> tc.isin(tc.tensor([1, 2, 3]), tc.tensor([2, 9]))\ntensor([False,  True, False])",
    ),
    "view_as_real": fn(
        "view_as_real",
        ["input"],
        "A real view of a complex tensor with a trailing dimension of 2 (real, imaginary).",
        [INPUT],
    ),
    "view_as_complex": fn(
        "view_as_complex",
        ["input"],
        "A complex view of a real tensor whose last dimension has size 2 and stride 1.",
        [INPUT],
    ),
    "atleast_1d": fn(
        "atleast_1d",
        ["input"],
        "``input`` with at least one dimension (0-D becomes shape (1,)).",
        [INPUT],
    ),
    "atleast_2d": fn(
        "atleast_2d",
        ["input"],
        "``input`` with at least two dimensions (size-1 dimensions are added in front).",
        [INPUT],
    ),
    "atleast_3d": fn("atleast_3d", ["input"], "``input`` with at least three dimensions.", [INPUT]),
}

ALIASES = {
    "concat": "cat",
    "row_stack": "vstack",
    "swapdims": "transpose",
    "moveaxis": "movedim",
}
