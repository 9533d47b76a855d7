"""bfloat16 matmul on the CPU (oneDNN kernels, float32 accumulation): every layout agrees with
the float32 product of the same bfloat16 inputs to bfloat16 rounding."""

import numpy as np
import pytest

import tensorcore as tc

rng = np.random.default_rng(7)


def bf(*shape):
    return tc.tensor(rng.standard_normal(shape).astype(np.float32)).to(tc.bfloat16)


def check(got, a, b):
    ref = (a.float() @ b.float()).numpy()
    assert got.dtype == tc.bfloat16
    # One bfloat16 rounding of the float32 result (2^-8 relative), plus summation order.
    np.testing.assert_allclose(got.float().numpy(), ref, rtol=2**-7, atol=1e-2)


LAYOUTS = {
    "mm": lambda: (bf(33, 70), bf(70, 17)),
    "a transposed": lambda: (bf(70, 33).t(), bf(70, 17)),
    "b transposed": lambda: (bf(33, 70), bf(17, 70).t()),
    "sliced": lambda: (bf(40, 90)[3:36, 5:75], bf(80, 30)[:70, ::2]),
    "batched": lambda: (bf(4, 9, 16), bf(4, 16, 5)),
    "batch broadcast": lambda: (bf(4, 9, 16), bf(16, 5)),
    "expanded rows": lambda: (bf(1, 16).expand(9, 16), bf(16, 5)),
    "vector": lambda: (bf(16), bf(16, 5)),
    "row": lambda: (bf(1, 64), bf(64, 1)),
    "large": lambda: (bf(256, 512), bf(512, 128)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts(name):
    a, b = LAYOUTS[name]()
    check(a @ b, a, b)


def test_gradients_bfloat16():
    a = bf(8, 16).requires_grad_()
    b = bf(16, 4).requires_grad_()
    (a @ b).float().sum().backward()
    assert a.grad.dtype == tc.bfloat16 and b.grad.dtype == tc.bfloat16
    np.testing.assert_allclose(
        a.grad.float().numpy(),
        np.ones((8, 4)) @ b.detach().float().numpy().T,
        rtol=2**-7,
        atol=1e-2,
    )


def test_matches_torch(torch_ref):
    a, b = bf(64, 96), bf(96, 48)
    ta = torch_ref.tensor(a.float().numpy()).bfloat16()
    tb = torch_ref.tensor(b.float().numpy()).bfloat16()
    np.testing.assert_allclose(
        (a @ b).float().numpy(), (ta @ tb).float().numpy(), rtol=2**-7, atol=1e-2
    )
