"""Docstrings of tensorcore's reductions, scans, sorting and searching functions."""

from ._style import DIM, DIM_OPT, DTYPE, INPUT, KEEPDIM, fn

TARGET = "tensorcore"

_X = ">>> x = tc.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])\n"
_UNBIASED = "unbiased (bool, optional): Bessel's correction (divide by N - 1); the default."
_CORRECTION = "correction (int, optional): the divisor is N - correction (overrides ``unbiased``)."
_VALUES_INDICES = "A named tuple ``(values, indices)``."


def _reduce(name, what, example="", dtype=False, dim_default="None"):
    params = ["input", f"dim={dim_default}", "keepdim=False"] + (
        ["*", "dtype=None"] if dtype else []
    )
    return fn(
        name,
        params,
        f"{what} over the dimension(s) ``dim``, or over all elements when ``dim`` is omitted.",
        [INPUT, DIM_OPT, KEEPDIM],
        [DTYPE] if dtype else [],
        example,
    )


def _scan(name, what, example="", dtype=False):
    return fn(
        name,
        ["input", "dim"] + (["*", "dtype=None"] if dtype else []),
        f"{what} along ``dim``: element ``i`` of the result combines elements ``0..i`` of the input.",
        [INPUT, "dim (int): the dimension to scan."],
        [DTYPE] if dtype else [],
        example,
        returns="Tensor" if name != "cummax" and name != "cummin" else "(Tensor, LongTensor)",
    )


DOCS = {
    "sum": _reduce(
        "sum",
        "Sum of the elements",
        _X + ">>> tc.sum(x)\ntensor(21.)\n>>> tc.sum(x, dim=1)\ntensor([ 8., 13.])\n"
        ">>> tc.sum(x, 0, keepdim=True)\ntensor([[5., 8., 8.]])",
        dtype=True,
    ),
    "mean": _reduce(
        "mean",
        "Arithmetic mean of the elements (floating or complex input)",
        _X + ">>> tc.mean(x, dim=0)\ntensor([2.5000, 4.0000, 4.0000])",
        dtype=True,
    ),
    "prod": _reduce(
        "prod",
        "Product of the elements",
        ">>> tc.prod(tc.tensor([1, 2, 3, 4]))\ntensor(24)",
        dtype=True,
    ),
    "nansum": _reduce("nansum", "Sum of the elements, treating NaN as zero", dtype=True),
    "nanmean": _reduce("nanmean", "Mean of the non-NaN elements", dtype=True),
    "amax": _reduce(
        "amax", "Maximum of the elements (the gradient is shared among ties)", dim_default="()"
    ),
    "amin": _reduce(
        "amin", "Minimum of the elements (the gradient is shared among ties)", dim_default="()"
    ),
    "all": _reduce(
        "all",
        "True when every element is non-zero, as a bool tensor,",
        ">>> tc.all(tc.tensor([True, False]))\ntensor(False)",
    ),
    "any": _reduce(
        "any",
        "True when some element is non-zero, as a bool tensor,",
        ">>> tc.any(tc.tensor([True, False]))\ntensor(True)",
    ),
    "logsumexp": fn(
        "logsumexp",
        ["input", "dim", "keepdim=False"],
        ":math:`\\log \\sum_i e^{x_i}` over ``dim``, computed stably (no overflow for large inputs).",
        [INPUT, DIM_OPT, KEEPDIM],
        example=">>> tc.logsumexp(tc.tensor([1000.0, 1000.0], dtype=tc.float64), dim=0)\ntensor(1000.6931, dtype=tensorcore.float64)",
    ),
    "argmax": fn(
        "argmax",
        ["input", "dim=None", "keepdim=False"],
        "Index of the largest element along ``dim`` (of the flattened input when ``dim`` is None); "
        "the first one on ties.",
        [INPUT, "dim (int, optional): the dimension to reduce.", KEEPDIM],
        example=_X + ">>> tc.argmax(x)\ntensor(5)\n>>> tc.argmax(x, dim=1)\ntensor([1, 2])",
    ),
    "argmin": fn(
        "argmin",
        ["input", "dim=None", "keepdim=False"],
        "Index of the smallest element along ``dim`` (of the flattened input when ``dim`` is None); "
        "the first one on ties.",
        [INPUT, "dim (int, optional): the dimension to reduce.", KEEPDIM],
    ),
    "max": fn(
        "max",
        ["input", "dim=None", "keepdim=False"],
        "Three forms: ``max(input)`` is the largest element; ``max(input, dim, keepdim=False)`` is "
        "a named tuple ``(values, indices)`` of the maxima along ``dim`` and their positions; "
        "``max(input, other)`` is :func:`tensorcore.maximum`.",
        [
            INPUT,
            "dim (int, optional): the dimension to reduce.",
            KEEPDIM,
            "other (Tensor, optional): compare element-wise with this tensor instead.",
        ],
        example=_X + ">>> tc.max(x)\ntensor(6.)\n>>> values, indices = tc.max(x, dim=1)\n"
        ">>> values, indices\n(tensor([5., 6.]), tensor([1, 2]))",
        returns="Tensor or (Tensor, LongTensor)",
    ),
    "min": fn(
        "min",
        ["input", "dim=None", "keepdim=False"],
        "Three forms: ``min(input)`` is the smallest element; ``min(input, dim, keepdim=False)`` is "
        "a named tuple ``(values, indices)`` of the minima along ``dim`` and their positions; "
        "``min(input, other)`` is :func:`tensorcore.minimum`.",
        [
            INPUT,
            "dim (int, optional): the dimension to reduce.",
            KEEPDIM,
            "other (Tensor, optional): compare element-wise with this tensor instead.",
        ],
        returns="Tensor or (Tensor, LongTensor)",
    ),
    "std": fn(
        "std",
        ["input", "dim=None", "unbiased=True", "keepdim=False", "*", "correction=None"],
        "Standard deviation over ``dim`` (all elements when omitted); the sample (N - 1) "
        "estimate by default.",
        [INPUT, DIM_OPT, _UNBIASED, KEEPDIM],
        [_CORRECTION],
        ">>> tc.std(tc.tensor([1.0, 2.0, 3.0, 4.0]))\ntensor(1.2910)",
    ),
    "var": fn(
        "var",
        ["input", "dim=None", "unbiased=True", "keepdim=False", "*", "correction=None"],
        "Variance over ``dim`` (all elements when omitted); the sample (N - 1) estimate by default.",
        [INPUT, DIM_OPT, _UNBIASED, KEEPDIM],
        [_CORRECTION],
        ">>> tc.var(tc.tensor([1.0, 2.0, 3.0, 4.0]), unbiased=False)\ntensor(1.2500)",
    ),
    "std_mean": fn(
        "std_mean",
        ["input", "dim=None", "unbiased=True", "keepdim=False", "*", "correction=None"],
        "The tuple ``(std, mean)`` over ``dim``, computed in one pass.",
        [INPUT, DIM_OPT, _UNBIASED, KEEPDIM],
        [_CORRECTION],
        returns="(Tensor, Tensor)",
    ),
    "var_mean": fn(
        "var_mean",
        ["input", "dim=None", "unbiased=True", "keepdim=False", "*", "correction=None"],
        "The tuple ``(var, mean)`` over ``dim``, computed in one pass.",
        [INPUT, DIM_OPT, _UNBIASED, KEEPDIM],
        [_CORRECTION],
        returns="(Tensor, Tensor)",
    ),
    "median": fn(
        "median",
        ["input", "dim=None", "keepdim=False"],
        "Median of the elements; for an even count, the lower of the two middle values (as torch). "
        "With ``dim``, a named tuple ``(values, indices)``.",
        [INPUT, "dim (int, optional): the dimension to reduce.", KEEPDIM],
        example=">>> tc.median(tc.tensor([3.0, 1.0, 4.0, 2.0]))\ntensor(2.)",
        returns="Tensor or (Tensor, LongTensor)",
    ),
    "nanmedian": fn(
        "nanmedian",
        ["input", "dim=None", "keepdim=False"],
        "Median of the non-NaN elements (see :func:`tensorcore.median`).",
        [INPUT, "dim (int, optional): the dimension to reduce.", KEEPDIM],
        returns="Tensor or (Tensor, LongTensor)",
    ),
    "mode": fn(
        "mode",
        ["input", "dim=-1", "keepdim=False"],
        "Most frequent value along ``dim`` (the smallest on ties) and the index of one occurrence.",
        [INPUT, "dim (int): the dimension to reduce.", KEEPDIM],
        returns="(Tensor, LongTensor)",
    ),
    "count_nonzero": fn(
        "count_nonzero",
        ["input", "dim=None"],
        "Number of non-zero elements over ``dim`` (all elements when omitted), as int64.",
        [INPUT, DIM_OPT],
        example=">>> tc.count_nonzero(tc.tensor([0, 1, 2, 0]))\ntensor(2)",
    ),
    "aminmax": fn(
        "aminmax",
        ["input", "*", "dim=None", "keepdim=False"],
        "The named tuple ``(min, max)`` of the elements over ``dim`` (all elements when omitted).",
        [INPUT],
        ["dim (int, optional): the dimension to reduce.", KEEPDIM],
        ">>> lo, hi = tc.aminmax(tc.tensor([3, 1, 2]))\n>>> lo, hi\n(tensor(1), tensor(3))",
        returns="(Tensor, Tensor)",
    ),
    "quantile": fn(
        "quantile",
        ["input", "q", "dim=None", "keepdim=False", "*", "interpolation='linear'"],
        "The ``q``-th quantiles over ``dim`` (of the flattened input when omitted). Between two "
        "data points the value is interpolated: ``'linear'``, ``'lower'``, ``'higher'``, "
        "``'midpoint'`` or ``'nearest'``. A tensor ``q`` adds a leading dimension to the result.",
        [
            INPUT,
            "q (float or Tensor): quantile(s) in [0, 1].",
            "dim (int, optional): the dimension to reduce.",
            KEEPDIM,
        ],
        ["interpolation (str): the interpolation method."],
        ">>> tc.quantile(tc.tensor([0.0, 1.0, 2.0, 3.0]), 0.5)\ntensor(1.5000)",
    ),
    "nanquantile": fn(
        "nanquantile",
        ["input", "q", "dim=None", "keepdim=False", "*", "interpolation='linear'"],
        "Like :func:`tensorcore.quantile`, ignoring NaN values.",
        [
            INPUT,
            "q (float or Tensor): quantile(s) in [0, 1].",
            "dim (int, optional): the dimension to reduce.",
            KEEPDIM,
        ],
        ["interpolation (str): the interpolation method."],
    ),
    "norm": fn(
        "norm",
        ["input", "p='fro'", "dim=None", "keepdim=False", "dtype=None"],
        "Vector or matrix norm. ``p`` is a number (vector p-norm over ``dim``, or over all "
        "elements), ``'fro'`` (Frobenius) or ``'nuc'`` (nuclear, over two dims). Prefer "
        ":func:`tensorcore.linalg.norm` in new code.",
        [INPUT, "p (int, float, inf or str): the norm.", DIM_OPT, KEEPDIM, DTYPE],
        example=">>> tc.norm(tc.tensor([3.0, 4.0]))\ntensor(5.)",
    ),
    "dist": fn(
        "dist",
        ["input", "other", "p=2"],
        "The p-norm of ``input - other`` (the two broadcast).",
        ["input (Tensor): first tensor.", "other (Tensor): second tensor.", "p (float): the norm."],
        example=">>> tc.dist(tc.tensor([0.0, 0.0]), tc.tensor([3.0, 4.0]))\ntensor(5.)",
    ),
    "cumsum": _scan(
        "cumsum",
        "Cumulative sum",
        ">>> tc.cumsum(tc.tensor([1, 2, 3]), dim=0)\ntensor([1, 3, 6])",
        dtype=True,
    ),
    "cumprod": _scan(
        "cumprod",
        "Cumulative product",
        ">>> tc.cumprod(tc.tensor([1, 2, 3]), dim=0)\ntensor([1, 2, 6])",
        dtype=True,
    ),
    "cummax": _scan("cummax", "Running maximum (values and their indices)"),
    "cummin": _scan("cummin", "Running minimum (values and their indices)"),
    "logcumsumexp": _scan("logcumsumexp", "Running :math:`\\log \\sum e^{x}`, computed stably,"),
    "sort": fn(
        "sort",
        ["input", "dim=-1", "descending=False", "*", "stable=False"],
        "Sorts along ``dim``; returns the named tuple ``(values, indices)`` with the positions of "
        "the sorted values in the input. NaN sorts as the largest value.",
        [INPUT, "dim (int): the dimension to sort.", "descending (bool): largest first."],
        ["stable (bool): keep the order of equal elements."],
        ">>> values, indices = tc.sort(tc.tensor([3, 1, 2]))\n>>> values, indices\n(tensor([1, 2, 3]), tensor([1, 2, 0]))",
        returns="(Tensor, LongTensor)",
    ),
    "argsort": fn(
        "argsort",
        ["input", "dim=-1", "descending=False", "*", "stable=False"],
        "The indices that sort ``input`` along ``dim`` (the ``indices`` of :func:`tensorcore.sort`).",
        [INPUT, "dim (int): the dimension to sort.", "descending (bool): largest first."],
        ["stable (bool): keep the order of equal elements."],
        ">>> tc.argsort(tc.tensor([3, 1, 2]))\ntensor([1, 2, 0])",
    ),
    "msort": fn(
        "msort",
        ["input"],
        "Sorts along the first dimension (the values of ``sort(input, dim=0)``).",
        [INPUT],
    ),
    "topk": fn(
        "topk",
        ["input", "k", "dim=-1", "largest=True", "sorted=True"],
        "The ``k`` largest (or smallest) elements along ``dim`` and their indices.",
        [
            INPUT,
            "k (int): how many elements.",
            "dim (int): the dimension to search.",
            "largest (bool): largest (True) or smallest (False) elements.",
            "sorted (bool): return them in sorted order.",
        ],
        example=">>> values, indices = tc.topk(tc.tensor([1, 5, 3, 4]), 2)\n>>> values, indices\n(tensor([5, 4]), tensor([1, 3]))",
        returns="(Tensor, LongTensor)",
    ),
    "kthvalue": fn(
        "kthvalue",
        ["input", "k", "dim=-1", "keepdim=False"],
        "The ``k``-th smallest element along ``dim`` (k counts from 1) and its index.",
        [INPUT, "k (int): the rank, from 1.", "dim (int): the dimension to search.", KEEPDIM],
        returns="(Tensor, LongTensor)",
    ),
    "unique": fn(
        "unique",
        ["input", "sorted=True", "return_inverse=False", "return_counts=False", "dim=None"],
        "The distinct elements of ``input`` (or distinct slices along ``dim``), sorted. Optionally "
        "also the index of each input element in the result and the count of each distinct value.",
        [
            INPUT,
            "sorted (bool): sort the result (it is always sorted here, as torch's CPU version).",
            "return_inverse (bool): also return where each input element went.",
            "return_counts (bool): also return the number of occurrences.",
            "dim (int, optional): compare slices along this dimension instead of elements.",
        ],
        example=">>> tc.unique(tc.tensor([2, 1, 2, 3]), return_counts=True)\n(tensor([1, 2, 3]), tensor([1, 2, 1]))",
        returns="Tensor or tuple of Tensors",
    ),
    "unique_consecutive": fn(
        "unique_consecutive",
        ["input", "return_inverse=False", "return_counts=False", "dim=None"],
        "Collapses runs of equal consecutive elements (or slices along ``dim``) to one.",
        [
            INPUT,
            "return_inverse (bool): also return where each input element went.",
            "return_counts (bool): also return the length of each run.",
            "dim (int, optional): compare slices along this dimension.",
        ],
        example=">>> tc.unique_consecutive(tc.tensor([1, 1, 2, 1]))\ntensor([1, 2, 1])",
        returns="Tensor or tuple of Tensors",
    ),
    "bincount": fn(
        "bincount",
        ["input", "weights=None", "minlength=0"],
        "Counts the occurrences of each value of a 1-D non-negative integer tensor (or sums "
        "``weights`` per value). The result has ``max(input) + 1`` bins, at least ``minlength``.",
        [
            "input (Tensor): 1-D int tensor.",
            "weights (Tensor, optional): weight of each element.",
            "minlength (int): minimum number of bins.",
        ],
        example=">>> tc.bincount(tc.tensor([0, 1, 1, 3]))\ntensor([1, 2, 0, 1])",
    ),
    "histc": fn(
        "histc",
        ["input", "bins=100", "min=0", "max=0"],
        "Histogram of the elements in ``bins`` equal-width bins over ``[min, max]`` (the data's range "
        "when both are 0); elements outside are ignored.",
        [
            INPUT,
            "bins (int): number of bins.",
            "min (float): lower end.",
            "max (float): upper end.",
        ],
        example=">>> tc.histc(tc.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)\ntensor([0., 2., 1., 0.])",
    ),
    "searchsorted": fn(
        "searchsorted",
        [
            "sorted_sequence",
            "input",
            "*",
            "out_int32=False",
            "right=False",
            "side=None",
            "sorter=None",
        ],
        "For each value of ``input``, the index where it would be inserted into the innermost "
        "dimension of ``sorted_sequence`` to keep it sorted (the first such index; the last with "
        "``right=True`` or ``side='right'``).",
        [
            "sorted_sequence (Tensor): sorted along its last dimension.",
            "input (Tensor or Number): values to place.",
        ],
        [
            "out_int32 (bool): int32 instead of int64 indices.",
            "right (bool): take the last suitable index.",
            "side (str, optional): ``'left'`` or ``'right'`` (same as ``right``).",
            "sorter (LongTensor, optional): the indices that sort an unsorted ``sorted_sequence``.",
        ],
        ">>> tc.searchsorted(tc.tensor([1, 3, 5, 7]), tc.tensor([3, 6]))\ntensor([1, 3])",
    ),
    "bucketize": fn(
        "bucketize",
        ["input", "boundaries", "*", "out_int32=False", "right=False"],
        "The bucket index of each element of ``input`` given sorted 1-D ``boundaries``.",
        ["input (Tensor or Number): values.", "boundaries (Tensor): sorted 1-D boundaries."],
        [
            "out_int32 (bool): int32 instead of int64 indices.",
            "right (bool): which side of a boundary is inside a bucket.",
        ],
        ">>> tc.bucketize(tc.tensor([1, 5, 9]), tc.tensor([2, 4, 6, 8]))\ntensor([0, 2, 4])",
    ),
}
del DIM
