"""The generic op table (tests/python/optable/op_db.py) on CUDA: every op x dtype x layout
runs on the GPU and must agree with the CPU result (skipped without a GPU by conftest.py).
Ops without a CUDA kernel are reported as skips naming the op, not silently dropped."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optable"))

from op_db import OP_DB, cases, run_on_device  # noqa: E402


@pytest.mark.parametrize("op,dtype,layout",
                         [pytest.param(o, d, l, id=f"{o.name}-{d}-{l}")
                          for o, d, l in cases(OP_DB, "forward") if o.family != "creation"])
def test_op_on_cuda_matches_cpu(op, dtype, layout):
    try:
        run_on_device(op, dtype, layout, "cuda")
    except (NotImplementedError, RuntimeError, TypeError) as e:
        msg = str(e)
        if "CUDA" in msg.upper() and ("not implemented" in msg or "not supported" in msg
                                       or "not compiled" in msg):
            pytest.skip(f"{op.name}: no CUDA kernel ({msg.splitlines()[0][:120]})")
        raise
