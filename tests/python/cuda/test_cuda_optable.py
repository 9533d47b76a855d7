"""The generic op table (tests/python/optable/op_db.py) on CUDA: every op x dtype x layout
runs on the GPU and must agree with the CPU result (skipped without a GPU by conftest.py).
Ops without a CUDA kernel are reported as skips naming the op, not silently dropped."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optable"))

from op_db import OP_DB, cases, run_on_device  # noqa: E402


# numpy() of a device tensor raises, as in torch, and to_device_cpu leaves the device: host-only
HOST_ONLY = {"numpy", "from_numpy_roundtrip", "as_tensor", "to_device_cpu"}


def _params():
    out = []
    for o, d, l in cases(OP_DB, "forward"):
        if o.family == "creation" or o.name in HOST_ONLY:
            continue
        reason = o.xfail.get((d, "forward")) or o.xfail.get(("*", "forward"))
        marks = [pytest.mark.xfail(reason=reason)] if reason else []
        out.append(pytest.param(o, d, l, id=f"{o.name}-{d}-{l}", marks=marks))
    return out


@pytest.mark.parametrize("op,dtype,layout", _params())
def test_op_on_cuda_matches_cpu(op, dtype, layout):
    try:
        run_on_device(op, dtype, layout, "cuda")
    except (NotImplementedError, RuntimeError, TypeError) as e:
        msg = str(e)
        # A named gap of the CUDA backend (e.g. scatter-add for int8) is a skip, not a failure.
        if "CUDA" in msg.upper() and (
            isinstance(e, NotImplementedError)
            or "not implemented" in msg
            or "not supported" in msg
            or "not compiled" in msg
        ):
            pytest.skip(f"{op.name}: no CUDA kernel ({msg.splitlines()[0][:120]})")
        raise
