"""The torch 1.13 functions composed in python/tensorcore/_more_ops.py, against torch."""

import numpy as np
import pytest

import tensorcore as tc
from compat_compare import same


def both(torch, a):
    a = np.asarray(a)
    return tc.from_numpy(a.copy()), torch.from_numpy(a.copy())


def test_grids_indices_and_stacks(torch_ref):
    torch = torch_ref
    a, ta = both(torch, np.arange(3.0))
    b, tb = both(torch, np.arange(4.0) * 2)
    for ix in ("ij", "xy"):
        same(tc.meshgrid(a, b, indexing=ix), torch.meshgrid(ta, tb, indexing=ix))
    same(tc.cartesian_prod(a, b), torch.cartesian_prod(ta, tb))
    for r, rep in ((2, False), (3, False), (2, True)):
        same(tc.combinations(b, r, rep), torch.combinations(tb, r, rep))
    for args in ((4, 3), (3, 5, 1), (4, 4, -1)):
        same(tc.tril_indices(*args), torch.tril_indices(*args))
        same(tc.triu_indices(*args), torch.triu_indices(*args))
    m, tm = both(torch, np.arange(6.0).reshape(2, 3))
    same(tc.atleast_3d(m), torch.atleast_3d(tm))
    same(tc.dstack([m, m]), torch.dstack([tm, tm]))
    same(tc.column_stack([a, a]), torch.column_stack([ta, ta]))
    same(tc.row_stack([m, m]), torch.row_stack([tm, tm]))
    same(tc.block_diag(m, a, m.t()), torch.block_diag(tm, ta, tm.t()))
    same(tc.range(1, 4, 0.5), torch.range(1, 4, 0.5))


def test_distances_and_statistics(torch_ref):
    torch = torch_ref
    rng = np.random.default_rng(0)
    x, tx = both(torch, rng.standard_normal((2, 4, 3)))
    y, ty = both(torch, rng.standard_normal((2, 5, 3)))
    for p in (1.0, 2.0, 3.0, float("inf")):
        same(tc.cdist(x, y, p), torch.cdist(tx, ty, p), rtol=1e-9)
    same(tc.dist(x, x * 2, 3), torch.dist(tx, tx * 2, 3))
    m, tm = both(torch, rng.standard_normal((3, 6)))
    same(tc.cov(m), torch.cov(tm))
    same(m.cov(correction=0), tm.cov(correction=0))
    fw, tfw = both(torch, np.array([1, 2, 1, 3, 1, 2]))
    aw, taw = both(torch, rng.uniform(0.5, 1.5, 6))
    same(tc.cov(m, fweights=fw, aweights=aw), torch.cov(tm, fweights=tfw, aweights=taw))
    same(tc.corrcoef(m), torch.corrcoef(tm))
    v, tv = both(torch, np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]))
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        same(
            tc.quantile(v, 0.3, interpolation=interp), torch.quantile(tv, 0.3, interpolation=interp)
        )
    q, tq = both(torch, np.array([0.1, 0.5, 0.9]))
    same(tc.quantile(m, q, dim=1, keepdim=True), torch.quantile(tm, tq, dim=1, keepdim=True))
    same(m.quantile(0.25, dim=0), tm.quantile(0.25, dim=0))
    n = m.clone()
    n[0, 2] = float("nan")
    tn = tm.clone()
    tn[0, 2] = float("nan")
    same(tc.quantile(n, q, dim=1), torch.quantile(tn, tq, dim=1))
    same(tc.nanquantile(n, q, dim=1), torch.nanquantile(tn, tq, dim=1))
    same(tc.nanquantile(n, 0.5), torch.nanquantile(tn, 0.5))


def test_integer_and_misc_ops(torch_ref):
    torch = torch_ref
    a, ta = both(torch, np.array([12, -18, 0, 7, 0]))
    b, tb = both(torch, np.array([8, 24, 5, 0, 0]))
    same(tc.gcd(a, b), torch.gcd(ta, tb))
    same(tc.lcm(a, b), torch.lcm(ta, tb))
    same(a.gcd(b), ta.gcd(tb))
    e, te = both(torch, np.array([[1, 2], [3, 4]]))
    same(tc.isin(e, tc.tensor([2, 4, 9])), torch.isin(te, torch.tensor([2, 4, 9])))
    same(tc.isin(e, tc.tensor([2]), invert=True), torch.isin(te, torch.tensor([2]), invert=True))
    x, tx = both(torch, np.linspace(0, 1, 9).reshape(3, 3))
    same(tc.trapezoid(x), torch.trapezoid(tx))
    same(tc.trapezoid(x, dx=0.5, dim=0), torch.trapezoid(tx, dx=0.5, dim=0))
    g, tg = both(torch, np.array([0.0, 0.5, 2.0]))
    same(tc.trapezoid(x, g), torch.trapezoid(tx, tg))
    same(tc.trapz(x, g), torch.trapz(tx, tg))
    same(tc.cumulative_trapezoid(x, dim=0), torch.cumulative_trapezoid(tx, dim=0))
    w, tw = both(torch, np.random.default_rng(1).standard_normal((3, 4)) * 3)
    same(tc.renorm(w, 2, 0, 1.0), torch.renorm(tw, 2, 0, 1.0), rtol=1e-7)
    same(w.clone().renorm_(1, 1, 2.0), tw.clone().renorm_(1, 1, 2.0), rtol=1e-7)
    ex, tex = both(torch, np.array([1, 2, -3]))
    same(tc.ldexp(x[0], ex), torch.ldexp(tx[0], tex))
    same(tc.frobenius_norm(w, (0, 1)), torch.frobenius_norm(tw, (0, 1)))
    same(tc.nuclear_norm(w), torch.nuclear_norm(tw))
    c = tc.tensor([1 + 2j, 3 - 1j])
    assert not tc.is_conj(c) and not c.is_neg() and tc.is_complex(c)
    same(tc.conj_physical(c), torch.conj_physical(torch.tensor([1 + 2j, 3 - 1j])).resolve_conj())
    assert tc.resolve_conj(c) is c and tc.is_floating_point(x)


def test_unfold_and_fill_diagonal(torch_ref):
    torch = torch_ref
    x, tx = both(torch, np.arange(24.0).reshape(2, 12))
    for dim, size, step in ((1, 4, 3), (1, 5, 5), (0, 1, 1), (-1, 12, 1)):
        same(x.unfold(dim, size, step), tx.unfold(dim, size, step))
    leaf = x.clone().requires_grad_(True)
    leaf.unfold(1, 4, 2).sum().backward()  # overlapping windows count twice
    tleaf = tx.clone().requires_grad_(True)
    tleaf.unfold(1, 4, 2).sum().backward()
    same(leaf.grad, tleaf.grad)
    with pytest.raises(RuntimeError, match="maximum size"):
        x.unfold(1, 13, 1)
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), False)):
        z, tz = both(torch, np.zeros(shape))
        same(z.fill_diagonal_(2.5, wrap), tz.fill_diagonal_(2.5, wrap))
    z, tz = both(torch, np.zeros((3, 3, 3)))
    same(z.fill_diagonal_(1.0), tz.fill_diagonal_(1.0))


def test_tensor_from_python_floats_keeps_float64(torch_ref):
    # found while testing quantile: tensor(0.3, dtype=float64) used to round through float32
    for data in (0.3, [0.3, 1e-300], [[0.1]]):
        got = tc.tensor(data, dtype=tc.float64)
        exp = torch_ref.tensor(data, dtype=torch_ref.float64)
        assert got.tolist() == exp.tolist()
    assert tc.tensor([1, 2], dtype=tc.float64).tolist() == [1.0, 2.0]
    assert tc.tensor([0.5], dtype=tc.int64).tolist() == [0]
