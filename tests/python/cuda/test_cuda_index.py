"""Indexing kernels and host-fallback ops on CUDA against the CPU."""

import pytest

import tensorcore as tc


def same(gpu, cpu):
    assert gpu.is_cuda
    assert tc.equal(gpu.cpu(), cpu), (gpu.cpu(), cpu)


def test_index_select_gather_take():
    x = tc.randn(7, 9, 5)
    g = x.cuda()
    idx = tc.tensor([0, 6, 2, 2, -1 + 7])
    same(tc.index_select(g, 0, idx.cuda()), tc.index_select(x, 0, idx))
    same(
        tc.index_select(g.transpose(0, 2), 2, idx.cuda()),
        tc.index_select(x.transpose(0, 2), 2, idx),
    )
    gi = tc.randint(0, 9, (7, 4, 5))
    same(tc.gather(g, 1, gi.cuda()), tc.gather(x, 1, gi))
    same(g[idx.cuda()], x[idx])
    same(g[:, tc.tensor([1, -1]).cuda(), 1:4], x[:, tc.tensor([1, -1]), 1:4])


def test_out_of_range_index_raises_index_error():
    g = tc.zeros(4, 3, device="cuda")
    with pytest.raises(IndexError, match="out of bounds"):
        tc.index_select(g, 0, tc.tensor([0, 4]).cuda())
    assert g.sum().item() == 0  # still usable


def test_scatter_and_index_put():
    x = tc.zeros(5, 4)
    src = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    idx = tc.tensor([[0, 1, 2, 0], [4, 3, 2, 1], [0, 0, 0, 0]])
    same(tc.scatter_add(x.cuda(), 0, idx.cuda(), src.cuda()), tc.scatter_add(x, 0, idx, src))
    uniq = tc.tensor([[0, 1, 2, 3], [4, 3, 1, 2], [1, 2, 3, 4]])  # no duplicates per column
    same(tc.scatter(x.cuda(), 0, uniq.cuda(), src.cuda()), tc.scatter(x, 0, uniq, src))
    y, gy = x.clone(), x.cuda()
    y[tc.tensor([1, 3])] = 7.0
    gy[tc.tensor([1, 3]).cuda()] = 7.0
    same(gy, y)
    acc = tc.zeros(6)
    gacc = acc.cuda()
    i = tc.tensor([0, 1, 1, 5, 5, 5])
    same(gacc.index_add_(0, i.cuda(), tc.ones(6).cuda()), acc.index_add_(0, i, tc.ones(6)))


def test_masks_nonzero_tri():
    x = tc.randn(6, 7)
    g = x.cuda()
    m = x > 0
    same(g.masked_fill(m.cuda(), -1.0), x.masked_fill(m, -1.0))
    same(g[m.cuda()], x[m])
    same(tc.nonzero(m.cuda()), tc.nonzero(m))
    same(tc.where(m.cuda(), g, 0.0), tc.where(m, x, 0.0))
    for k in (-2, 0, 1):
        same(tc.tril(g, k), tc.tril(x, k))
        same(tc.triu(g, k), tc.triu(x, k))


def test_scans_sort_topk_on_cuda():
    x = tc.randn(5, 33)
    g = x.cuda()
    for d in (0, 1):
        assert tc.allclose(tc.cumsum(g, d).cpu(), tc.cumsum(x, d), atol=1e-5)
        v, i = tc.sort(g, d, descending=True)
        rv, ri = tc.sort(x, d, descending=True)
        same(v, rv)
        same(i, ri)
    v, i = tc.topk(g, 4)
    rv, ri = tc.topk(x, 4)
    same(v, rv)
    same(i, ri)
    u = tc.tensor([3, 1, 3, 2, 1]).cuda()
    same(tc.unique(u), tc.unique(u.cpu()))
    same(tc.median(g, 1).values, tc.median(x, 1).values)


def test_embedding_like_gradient_on_cuda():
    w = tc.randn(10, 3, requires_grad=True)
    gw = w.detach().cuda().requires_grad_(True)
    idx = tc.tensor([1, 1, 4, 9])
    (w[idx] * 2).sum().backward()
    (gw[idx.cuda()] * 2).sum().backward()
    same(gw.grad, w.grad)
