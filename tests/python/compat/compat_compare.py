"""What the torch-compatibility tests compare with: a tensorcore result against torch's."""

import numpy as np

import tensorcore as tc


def same(got, exp, rtol=1e-10, atol=1e-12):
    """got (tensorcore) equals exp (torch or NumPy) within the tolerances, shape included;
    tuples and lists item by item."""
    if isinstance(exp, (tuple, list)):
        assert len(got) == len(exp)
        for g, e in zip(got, exp):
            same(g, e, rtol, atol)
        return
    g = got.detach().numpy() if isinstance(got, tc.Tensor) else np.asarray(got)
    e = exp.detach().numpy() if hasattr(exp, "numpy") else np.asarray(exp)
    assert g.shape == e.shape, (g.shape, e.shape)
    np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
