"""The generic op table (op_db.OP_DB) run over every op x dtype x layout:
forward values and result dtype vs NumPy, gradcheck in float64/complex128 through the layout
views, and the Tensor method form against the function form."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import op_db  # noqa: E402
from op_db import OP_DB, cases, check_forward, check_grad, check_method  # noqa: E402

# NumPy warns on the empty-input references (mean of nothing is nan, as in torch)
pytestmark = [
    pytest.mark.filterwarnings("ignore:Mean of empty slice"),
    pytest.mark.filterwarnings("ignore:invalid value encountered"),
]


def _params(check):
    out = []
    for op, dt, lay in cases(OP_DB, check):
        marks = []
        for key in ((dt, check), ("*", check), (dt, "*"), ("*", "*")):
            if key in op.xfail:
                marks.append(pytest.mark.xfail(reason=op.xfail[key], strict=True))
                break
        out.append(pytest.param(op, dt, lay, id=f"{op.name}-{dt}-{lay}", marks=marks))
    return out


@pytest.mark.parametrize("op,dtype,layout", _params("forward"))
def test_forward(op, dtype, layout):
    check_forward(op, dtype, layout)


@pytest.mark.parametrize("op,dtype,layout", _params("grad"))
def test_gradcheck(op, dtype, layout):
    assert check_grad(op, dtype, layout) > 0, f"{op.name}: no sample was small enough to gradcheck"


@pytest.mark.parametrize("op,dtype,layout", _params("method"))
def test_method_matches_function(op, dtype, layout):
    check_method(op, dtype, layout)


def test_table_covers_every_family():
    families = {op.family for op in OP_DB}
    assert {
        "creation",
        "shape",
        "indexing",
        "elementwise",
        "reduction",
        "scan",
        "sort",
        "linalg",
        "complex",
        "conversion",
    } <= families
    names = [op.name for op in OP_DB]
    assert len(names) == len(set(names)), "duplicate op names in the table"


def test_layouts_really_differ():
    """The layout helper yields what it claims (non-contiguous / stride-0 views, same values)."""
    import numpy as np

    a = np.arange(24.0).reshape(2, 3, 4)
    for lay in op_db.LAYOUTS:
        base, fn, ref = op_db.layout_input(a, lay)
        t = fn(op_db.to_tensor(base, "float64"))
        np.testing.assert_array_equal(t.numpy(), ref)
        if lay == "noncontiguous":
            assert not t.is_contiguous()
        if lay == "expanded":
            assert 0 in tuple(t.stride())
