"""Builds torch-style docstrings from their parts (signature line, description, Args:, Keyword
Args:, Example:), so the area files state only what differs between functions."""

INPUT = "input (Tensor): the input tensor."
OUT = "out (Tensor, optional): the output tensor."
DIM = "dim (int): the dimension to reduce."
DIM_OPT = (
    "dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted."
)
KEEPDIM = "keepdim (bool): whether the reduced dimensions are kept with size 1."
DTYPE = "dtype (tensorcore.dtype, optional): the dtype of the result (default: the input's)."
FACTORY_KWARGS = (
    "dtype (tensorcore.dtype, optional): the dtype of the result (default: "
    ":func:`tensorcore.get_default_dtype` for floating values).",
    "device (tensorcore.device or str, optional): where the result is allocated (default: CPU).",
    "requires_grad (bool): whether autograd records operations on the result.",
)
GENERATOR = "generator (tensorcore.Generator, optional): the random number generator to draw from."


def doc(signature, description, args=(), kwargs=(), example="", returns=""):
    parts = [signature, "", description.strip()]
    if args:
        parts += ["", "Args:"] + [f"    {a}" for a in args]
    if kwargs:
        parts += ["", "Keyword Args:"] + [f"    {k}" for k in kwargs]
    if returns:
        parts += ["", "Returns:", f"    {returns.strip()}"]
    if example:
        parts += ["", "Example:"] + ["    " + line for line in example.strip().splitlines()]
    return "\n".join(parts)


def fn(name, params, description, args=(), kwargs=(), example="", returns="Tensor", ret_doc=""):
    """A top-level function's docstring; `out=None` (and its Keyword Args entry) is added when
    the function is declared in _out.OUT_OPS, so the docs follow that one declaration."""
    from .._out import OUT_OPS

    params = list(params)
    kwargs = list(kwargs)
    if name in OUT_OPS:
        if "*" not in params and not any(p.startswith("*") for p in params):
            params.append("*")
        params.append("out=None")
        kwargs.append(OUT)
    signature = f"{name}({', '.join(params)})" + (f" -> {returns}" if returns else "")
    return doc(signature, description, args, kwargs, example, ret_doc)
