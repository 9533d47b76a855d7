"""Central-difference gradients, the reference for autograd checks of ops whose gradient has no
closed form worth writing in NumPy (indexing, shape ops)."""

import numpy as np

import tensorcore as tc


def numgrad(f, x, eps=1e-6):
    """d(f(x).sum())/dx by central differences; x a tensorcore tensor or a NumPy array, f maps a
    tensorcore tensor to a tensor."""
    x0 = x.detach().numpy().copy() if isinstance(x, tc.Tensor) else np.array(x)
    g = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        xp, xm = x0.copy(), x0.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(tc.tensor(xp)).sum().item() - f(tc.tensor(xm)).sum().item()) / (2 * eps)
    return g
