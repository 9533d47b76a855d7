"""The torch 1.13 names added by _creation_more, _indexing_more, _math_more, _runtime_flags,
_sampling_more, _toplevel_nn and set_printoptions, against torch (skipped without it) and NumPy."""

import array
import math

import numpy as np
import pytest

import tensorcore as tc
from compat_compare import same

torch = pytest.importorskip("torch")


def both(a):
    a = np.asarray(a)
    return tc.from_numpy(a.copy()), torch.from_numpy(a.copy())


# ------------------------------------------------------------------ printing


def test_set_printoptions_matches_torch():
    # float32: no dtype suffix, whose longer name ("tensorcore.float64") wraps differently.
    values = (np.linspace(-3, 1e3, 60) / 7).astype(np.float32)
    cases = [
        dict(precision=2),
        dict(linewidth=40),
        dict(edgeitems=1, threshold=5),
        dict(sci_mode=True),
        dict(profile="short"),
        dict(profile="full"),
    ]
    try:
        for options in cases:
            for lib in (tc, torch):
                lib.set_printoptions(profile="default")
                lib.set_printoptions(**options)
            # torch sizes sci_mode=True columns by the fixed-point width (a quirk not copied),
            # so forced scientific notation is compared where no row wraps.
            arrays = (
                (values[:5],) if options.get("sci_mode") else (values, values[:12].reshape(3, 4))
            )
            for arr in arrays:
                mine = repr(tc.tensor(arr)).replace("tensorcore.", "torch.")
                ref = repr(torch.tensor(arr))
                # torch pads the summary ellipsis of 2-D rows with one more space.
                assert mine.replace(" ", "") == ref.replace(" ", ""), (options, mine, ref)
                assert len(mine.splitlines()) == len(ref.splitlines()), (options, mine, ref)
    finally:
        tc.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    with pytest.raises(ValueError, match="profile"):
        tc.set_printoptions(profile="long")


# ------------------------------------------------------------------ switches


def test_runtime_switches():
    try:
        for mode, code in (("warn", 1), ("error", 2), ("default", 0), (2, 2), (0, 0)):
            tc.set_deterministic_debug_mode(mode)
            assert tc.get_deterministic_debug_mode() == code
        assert tc.are_deterministic_algorithms_enabled() is False
        with pytest.raises(RuntimeError, match="debug_mode"):
            tc.set_deterministic_debug_mode("loud")
        for precision in ("high", "medium", "highest"):
            tc.set_float32_matmul_precision(precision)
            assert tc.get_float32_matmul_precision() == precision
        assert tc.backends.cuda.matmul.allow_tf32 is False
        with pytest.raises(RuntimeError, match="precision"):
            tc.set_float32_matmul_precision("low")
        tc.set_default_tensor_type(tc.DoubleTensor)
        assert tc.tensor([1.5]).dtype == tc.float64
        tc.set_default_tensor_type("torch.FloatTensor")
        assert tc.tensor([1.5]).dtype == tc.float32
        with pytest.raises(TypeError, match="CUDA"):
            tc.set_default_tensor_type("torch.cuda.FloatTensor")
        with pytest.raises(TypeError, match="floating-point"):
            tc.set_default_tensor_type(tc.LongTensor)
    finally:
        tc.set_deterministic_debug_mode(0)
        tc.set_float32_matmul_precision("highest")
        tc.set_default_dtype(tc.float32)


# ------------------------------------------------------------------ creation


def test_frombuffer_shares_memory_and_checks():
    buf = bytearray(np.arange(6, dtype=np.int32).tobytes())
    t = tc.frombuffer(buf, dtype=tc.int32, count=3, offset=8)
    same(t, torch.frombuffer(bytearray(buf), dtype=torch.int32, count=3, offset=8))
    t[0] = 99  # shared: the bytearray changes
    assert np.frombuffer(bytes(buf), np.int32)[2] == 99
    same(tc.frombuffer(array.array("d", [1.5, 2.5]), dtype=tc.float64), np.array([1.5, 2.5]))
    with pytest.warns(UserWarning, match="not writable"):
        tc.frombuffer(b"\x00\x00\x80\x3f", dtype=tc.float32)
    with pytest.raises(ValueError, match="must not be greater"):
        tc.frombuffer(buf, dtype=tc.int32, count=10)
    with pytest.raises(ValueError, match="multiple of the element size"):
        tc.frombuffer(bytearray(7), dtype=tc.int32)
    with pytest.raises(TypeError, match="buffer protocol"):
        tc.frombuffer([1, 2], dtype=tc.int32)


def test_from_file_copy_and_shared(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(8, dtype=np.float32).tofile(path)
    same(tc.from_file(str(path), size=5, dtype=tc.float32), np.arange(5, dtype=np.float32))
    shared = tc.from_file(str(path), shared=True, size=8, dtype=tc.float32)
    shared[1] = 42.0
    del shared
    assert np.fromfile(path, np.float32)[1] == 42.0
    with pytest.raises(RuntimeError, match="holds 8 elements"):
        tc.from_file(str(path), size=9, dtype=tc.float32)


def test_asarray_fill_and_small_methods():
    arr = np.arange(4.0)
    t = tc.asarray(arr)
    t[0] = 7.0
    assert arr[0] == 7.0  # shared
    assert tc.asarray(arr, dtype=tc.float32).dtype == tc.float32
    with pytest.raises(ValueError, match="copy=False"):
        tc.asarray(arr, dtype=tc.float32, copy=False)
    src = tc.ones(3)
    assert tc.asarray(src) is src
    assert tc.asarray(src, copy=True).data_ptr() != src.data_ptr()
    same(tc.asarray([[1, 2], [3, 4]]), torch.asarray([[1, 2], [3, 4]]))
    same(tc.fill(tc.zeros(2, 3), 2.5), torch.fill(torch.zeros(2, 3), 2.5))
    s = tc.zeros(2).new_empty_strided((2, 3), (1, 2))
    assert tuple(s.shape) == (2, 3) and tuple(s.stride()) == (1, 2)
    assert src.to_dense() is src and tc.is_distributed(src) is False
    x, tx = both(np.array([1.0, -0.2, 0.7]))
    same(x.hardshrink(0.5), tx.hardshrink(0.5))
    same(
        x.prelu(tc.tensor([0.1], dtype=tc.float64)),
        tx.prelu(torch.tensor([0.1], dtype=torch.float64)),
    )
    assert tc.is_same_size(x, x) and tc.get_device(x) == -1


# ------------------------------------------------------------------ indexing


@pytest.mark.parametrize(
    "name, base_shape, src_shape, args",
    [
        ("select_scatter", (3, 4, 5), (3, 5), (1, 2)),
        ("slice_scatter", (3, 5, 5), (3, 2, 5), (1, 1, 5, 2)),
        ("diagonal_scatter", (4, 3), (2,), (1, 0, 1)),
        ("as_strided_scatter", (4, 5), (2, 2), ((2, 2), (5, 2), 1)),
    ],
)
def test_scatter_forms(name, base_shape, src_shape, args):
    rng = np.random.default_rng(0)
    base = rng.standard_normal(base_shape)
    src = rng.standard_normal(src_shape)
    x, tx = both(base)
    s, ts = both(src)
    x.requires_grad_()
    s.requires_grad_()
    tx.requires_grad_()
    ts.requires_grad_()
    out, ref = getattr(tc, name)(x, s, *args), getattr(torch, name)(tx, ts, *args)
    same(out, ref)
    weights = rng.standard_normal(tuple(ref.shape))
    (out * tc.tensor(weights)).sum().backward()
    (ref * torch.tensor(weights)).sum().backward()
    if name == "as_strided_scatter":
        # torch 1.13's as_strided_scatter backward returns uninitialised memory; the input's
        # gradient is the output's, zero where src was written.
        expected = weights.copy()
        expected.reshape(-1)[[1, 3, 6, 8]] = 0.0
        same(x.grad, expected)
    else:
        same(x.grad, tx.grad)
    same(s.grad, ts.grad)
    same(getattr(x.detach(), name)(s.detach(), *args), ref)  # the method form
    with pytest.raises(RuntimeError, match="src"):
        getattr(tc, name)(x, tc.zeros(7, 7, 7), *args)


def test_put_and_index_reduce():
    x, tx = both(np.arange(12.0).reshape(3, 4))
    idx, tidx = both(np.array([0, -1, 5, 5]))
    src, tsrc = both(np.array([1.0, 2.0, 3.0, 4.0]))
    same(tc.put(x, idx, src, accumulate=True), torch.put(tx, tidx, tsrc, accumulate=True))
    same(x.t().put_(idx, src, True), tx.t().put_(tidx, tsrc, True))  # non-contiguous self
    with pytest.raises(IndexError, match="out of bounds"):
        tc.put(x, tc.tensor([12]), tc.tensor([1.0]))
    base, tbase = both(np.arange(8.0).reshape(4, 2) + 1)
    source, tsource = both(np.random.default_rng(1).standard_normal((5, 2)))
    index, tindex = both(np.array([0, 3, 0, 2, 3]))
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            same(
                tc.index_reduce(base, 0, index, source, reduce, include_self=include_self),
                torch.index_reduce(tbase, 0, tindex, tsource, reduce, include_self=include_self),
            )
    b2 = base.clone()
    b2.index_reduce_(0, index, source, "amax")
    same(b2, tbase.clone().index_reduce_(0, tindex, tsource, "amax"))
    with pytest.raises(RuntimeError, match="reduce argument"):
        tc.index_reduce(base, 0, index, source, "sum")
    mask = tc.tensor([[True, False], [False, True], [True, True], [False, False]])
    m = base.clone()
    m.masked_scatter_(mask, tc.arange(10.0, dtype=tc.float64))
    same(
        m,
        tbase.clone().masked_scatter_(
            torch.from_numpy(mask.numpy()), torch.arange(10.0, dtype=torch.float64)
        ),
    )
    y, ty = both(np.arange(10.0))
    same(tc.unsafe_chunk(y, 3), torch.unsafe_chunk(ty, 3))
    same(tc.unsafe_split(y, 4), torch.unsafe_split(ty, 4))
    same(y.unsafe_split_with_sizes([3, 7]), ty.unsafe_split_with_sizes([3, 7]))


# ------------------------------------------------------------------ math


def test_gradient_against_torch_and_numpy():
    rng = np.random.default_rng(2)
    f = rng.standard_normal((5, 6))
    x, tx = both(f)
    coords = [np.sort(rng.uniform(0, 10, 5)), np.sort(rng.uniform(0, 10, 6))]
    for kwargs in (
        {},
        dict(spacing=2.0),
        dict(spacing=[0.5, 3.0]),
        dict(dim=1, edge_order=2),
        dict(spacing=[tc.tensor(coords[0])], dim=0),
    ):
        tkwargs = dict(kwargs)
        if "spacing" in kwargs and isinstance(kwargs["spacing"], list):
            tkwargs["spacing"] = [
                torch.from_numpy(s.numpy()) if isinstance(s, tc.Tensor) else s
                for s in kwargs["spacing"]
            ]
        same(tc.gradient(x, **kwargs), torch.gradient(tx, **tkwargs))
    for order in (1, 2):
        got = tc.gradient(x, spacing=[tc.tensor(c) for c in coords], edge_order=order)
        same(got, np.gradient(f, *coords, edge_order=order))
    with pytest.raises(RuntimeError, match="at least edge_order"):
        tc.gradient(tc.zeros(2), edge_order=2)


def test_histograms():
    rng = np.random.default_rng(3)
    v = rng.standard_normal(200)
    w = rng.uniform(0, 1, 200)
    x, tx = both(v)
    wt, twt = both(w)
    for kwargs in (dict(bins=7), dict(bins=5, range=(-1.0, 1.0), density=True)):
        same(tc.histogram(x, **kwargs), torch.histogram(tx, **kwargs))
        same(tc.histogram(x, weight=wt, **kwargs), torch.histogram(tx, weight=twt, **kwargs))
    edges, tedges = both(np.array([-2.0, -0.5, 0.0, 3.0]))
    same(tc.histogram(x, edges), torch.histogram(tx, tedges))
    assert float(tc.histogram(tc.tensor([1.0, 3.0]), 2, range=(1.0, 3.0)).hist[1]) == 1.0
    pts = rng.standard_normal((100, 3))
    p, tp = both(pts)
    same(tc.histogramdd(p, [3, 4, 2]), torch.histogramdd(tp, [3, 4, 2]))
    rng_flat = [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]
    same(
        tc.histogramdd(p, 3, range=rng_flat, density=True),
        torch.histogramdd(tp, 3, range=rng_flat, density=True),
    )
    with pytest.raises(ValueError, match="range must hold"):
        tc.histogramdd(p, 3, range=[0.0, 1.0])


def test_mvlgamma_result_type_and_inplace_math():
    x, tx = both(np.array([2.5, 3.0, 10.0]))
    for p in (1, 2, 5):
        same(tc.mvlgamma(x, p), torch.mvlgamma(tx, p), rtol=1e-12)
    x.requires_grad_()
    tx.requires_grad_()
    tc.mvlgamma(x, 3).sum().backward()
    torch.mvlgamma(tx, 3).sum().backward()
    same(x.grad, tx.grad, rtol=1e-12)
    with pytest.raises(RuntimeError, match="greater than"):
        tc.mvlgamma(tc.tensor([0.4]), 2)
    y = tc.tensor([1.5, 2.5])
    y.mvlgamma_(1)
    same(y, torch.lgamma(torch.tensor([1.5, 2.5])))
    cases = [
        (tc.tensor([1], dtype=tc.int8), 2.5, torch.tensor([1], dtype=torch.int8), 2.5),
        (tc.tensor(1.0, dtype=tc.float64), tc.tensor([1], dtype=tc.int32),
         torch.tensor(1.0, dtype=torch.float64), torch.tensor([1], dtype=torch.int32)),
        (tc.tensor([1.0], dtype=tc.float16), tc.tensor(1.0, dtype=tc.float64),
         torch.tensor([1.0], dtype=torch.float16), torch.tensor(1.0, dtype=torch.float64)),
        (2, 3.0, 2, 3.0),
        (True, tc.tensor([1], dtype=tc.uint8), True, torch.tensor([1], dtype=torch.uint8)),
    ]  # fmt: skip
    for a, b, ta, tb in cases:
        assert (
            str(tc.result_type(a, b)).split(".")[-1]
            == str(torch.result_type(ta, tb)).split(".")[-1]
        )
    g = tc.tensor([12, 18])
    g.gcd_(tc.tensor([8, 27]))
    same(g, np.array([4, 9]))
    tc.lcm_(g, tc.tensor([6, 6]))
    same(g, np.array([12, 18]))
    pg, tpg = both(np.array([0.5, 2.0]))
    same(pg.polygamma_(1), tpg.polygamma_(1), rtol=1e-8)
    a, ta = both(np.array([1.0, 2.0]))
    tc.ldexp_(a, tc.tensor([1, 2]))
    same(a, np.array([2.0, 8.0]))


# ------------------------------------------------------------------ sampling


def test_samplers_distributions_and_seeding():
    tc.manual_seed(0)
    c = tc.empty(20000).cauchy_(1.0, 2.0)
    assert abs(float(c.median()) - 1.0) < 0.1
    q = np.quantile(c.numpy(), [0.25, 0.75])
    np.testing.assert_allclose(q, [1.0 - 2.0, 1.0 + 2.0], atol=0.15)
    ln = tc.empty(20000, dtype=tc.float64).log_normal_(0.5, 0.25)
    np.testing.assert_allclose(np.log(ln.numpy()).mean(), 0.5, atol=0.01)
    g = tc.empty(20000).geometric_(0.25)
    assert float(g.min()) == 1.0 and abs(float(g.mean()) - 4.0) < 0.1
    counts = tc.full((20000,), 10.0)
    b = tc.binomial(counts, tc.full((20000,), 0.3))
    assert abs(float(b.mean()) - 3.0) < 0.05 and float(b.max()) <= 10
    p = tc.poisson(tc.full((20000,), 4.0))
    assert abs(float(p.mean()) - 4.0) < 0.06 and abs(float(p.var()) - 4.0) < 0.2
    tc.manual_seed(5)
    first = tc.poisson(tc.full((5,), 3.0))
    tc.manual_seed(5)
    assert tc.poisson(tc.full((5,), 3.0)).equal(first)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        tc.binomial(tc.tensor([3.0]), tc.tensor([1.5]))
    with pytest.raises(ValueError, match="p must be"):
        tc.zeros(2).geometric_(1.5)


# ------------------------------------------------------------------ aten-signature nn forms


def test_toplevel_nn_forms_match_torch():
    rng = np.random.default_rng(4)
    x, tx = both(rng.standard_normal((2, 3, 5, 5)))
    w, tw = both(rng.standard_normal(3))
    b, tb = both(rng.standard_normal(3))
    rm, trm = both(np.zeros(3))
    rv, trv = both(np.ones(3))
    same(
        tc.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False),
        torch.batch_norm(tx, tw, tb, trm, trv, True, 0.1, 1e-5, False),
    )
    same(rm, trm)  # running stats updated the same way
    same(
        tc.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
        torch.instance_norm(tx, tw, tb, None, None, True, 0.1, 1e-5, False),
    )
    emb, temb = both(rng.standard_normal((10, 4)))
    idx, tidx = both(np.array([[1, 2], [9, 0]]))
    same(tc.embedding(emb, idx), torch.embedding(temb, tidx))
    e2, te2 = emb.clone(), temb.clone()
    tc.embedding_renorm_(e2, idx, 1.0, 2.0)
    torch.embedding_renorm_(te2, tidx, 1.0, 2.0)
    same(e2, te2, rtol=1e-6)
    p, tp = both(np.log(rng.dirichlet(np.ones(4), 3)))
    q, tq = both(rng.dirichlet(np.ones(4), 3))
    y, ty = both(np.array([1.0, -1.0, 1.0]))
    a1, ta1 = both(rng.standard_normal((3, 4)))
    a2, ta2 = both(rng.standard_normal((3, 4)))
    for reduction in (0, 1, 2):
        same(tc.kl_div(p, q, reduction), torch.kl_div(tp, tq, reduction))
        same(
            tc.binary_cross_entropy_with_logits(a1, q, None, None, reduction),
            torch.binary_cross_entropy_with_logits(ta1, tq, None, None, reduction),
        )
        same(
            tc.cosine_embedding_loss(a1, a2, y, 0.1, reduction),
            torch.cosine_embedding_loss(ta1, ta2, ty, 0.1, reduction),
        )
        same(
            tc.hinge_embedding_loss(a1, tc.ones(3, 4), 1.0, reduction),
            torch.hinge_embedding_loss(ta1, torch.ones(3, 4), 1.0, reduction),
        )
        same(
            tc.margin_ranking_loss(a1[:, 0], a2[:, 0], y, 0.2, reduction),
            torch.margin_ranking_loss(ta1[:, 0], ta2[:, 0], ty, 0.2, reduction),
        )
        same(
            tc.poisson_nll_loss(a1, q.abs()[:, :4], True, False, 1e-8, reduction),
            torch.poisson_nll_loss(ta1, tq.abs()[:, :4], True, False, 1e-8, reduction),
        )
        same(
            tc.triplet_margin_loss(a1, a2, q, 1.0, 2, 1e-6, False, reduction),
            torch.triplet_margin_loss(ta1, ta2, tq, 1.0, 2, 1e-6, False, reduction),
        )
    with pytest.raises(ValueError, match="reduction must be an int code"):
        tc.kl_div(p, q, "mean")
    grid, tgrid = both(rng.uniform(-1, 1, (2, 4, 4, 2)))
    for mode in (0, 1, 2):
        for pad in (0, 1, 2):
            same(
                tc.grid_sampler(x, grid, mode, pad, False),
                torch.grid_sampler(tx, tgrid, mode, pad, False),
                rtol=1e-9,
                atol=1e-10,
            )
    same(tc.grid_sampler_2d(x, grid, 0, 0, True), torch.grid_sampler_2d(tx, tgrid, 0, 0, True)[0] if isinstance(torch.grid_sampler_2d(tx, tgrid, 0, 0, True), tuple) else torch.grid_sampler_2d(tx, tgrid, 0, 0, True))  # fmt: skip
    theta, ttheta = both(rng.standard_normal((2, 2, 3)))
    same(
        tc.affine_grid_generator(theta, [2, 3, 4, 5], False),
        torch.affine_grid_generator(ttheta, [2, 3, 4, 5], False),
    )
    cw, tcw = both(rng.standard_normal((4, 3, 3, 3)))
    same(
        tc.convolution(x, cw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
        torch.convolution(tx, tcw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
    )
    tw2, ttw2 = both(rng.standard_normal((3, 2, 3, 3)))
    same(
        tc.convolution(x, tw2, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
        torch.convolution(tx, ttw2, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
    )
    seq, tseq = both(rng.standard_normal((7, 2, 3)))
    kw, tkw = both(rng.standard_normal((3, 3, 5)))
    kb, tkb = both(rng.standard_normal(5))
    same(tc.conv_tbc(seq, kw, kb, 1), torch.conv_tbc(tseq, tkw, tkb, 1))
    v, tv = both(rng.standard_normal((4, 3, 2)))
    for dim in (0, 1, -1):
        same(tc.norm_except_dim(v, 2, dim), torch.norm_except_dim(tv, 2, dim))
    same(tc.constant_pad_nd(v, [1, -1, 2, 0], 0.5), torch.constant_pad_nd(tv, [1, -1, 2, 0], 0.5))
    tc.manual_seed(0)
    fd = tc.feature_dropout(tc.ones(50, 8, 3), 0.5, True).numpy()
    assert set(np.unique(fd).tolist()) <= {0.0, 2.0}
    assert (fd == fd[:, :, :1]).all()  # whole channels
    assert tc.feature_dropout(x, 0.5, False) is x
    ones = tc.ones(4, 4)
    tc.dropout_(ones, 0.5, True)
    assert set(np.unique(ones.numpy()).tolist()) <= {0.0, 2.0}
    h, c = tc.lstm_cell(
        tc.ones(2, 3), (tc.zeros(2, 4), tc.zeros(2, 4)), tc.ones(16, 3), tc.ones(16, 4)
    )
    th, tcc = torch.lstm_cell(
        torch.ones(2, 3),
        (torch.zeros(2, 4), torch.zeros(2, 4)),
        torch.ones(16, 3),
        torch.ones(16, 4),
    )
    same(h, th, rtol=1e-6)
    same(c, tcc, rtol=1e-6)
    assert math.isfinite(float(h.sum()))


# ------------------------------------------------------------------ in-place views


def test_inplace_view_methods_match_torch():
    base = np.arange(24.0).reshape(2, 3, 4)
    for name, args in (
        ("transpose_", (0, 2)),
        ("swapaxes_", (1, 2)),
        ("swapdims_", (0, 1)),
        ("unsqueeze_", (1,)),
        ("squeeze_", ()),
    ):
        x, tx = both(base[:1] if name == "squeeze_" else base)
        keep = x
        out = getattr(x, name)(*args)
        ref = getattr(tx, name)(*args)
        assert out is keep  # the same tensor object, reshaped in place
        assert tuple(x.shape) == tuple(tx.shape) and tuple(x.stride()) == tuple(tx.stride())
        same(x, ref)
    m, tm = both(np.arange(6.0).reshape(2, 3))
    m.t_()
    same(m, tm.t_())
    s, ts = both(np.arange(10.0))
    s.as_strided_((2, 2), (3, 1), 2)
    tc.as_strided_(s, (2, 2), (3, 1), 2)
    same(s, ts.as_strided_((2, 2), (3, 1), 2).as_strided_((2, 2), (3, 1), 2))
    with pytest.raises(ValueError, match="out of bounds"):
        tc.zeros(4).as_strided_((3,), (2,))
    leaf = tc.zeros(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match="require grad"):
        leaf.t_()
    assert tuple(leaf.shape) == (2, 3)  # unchanged after the refusal


# ------------------------------------------------------------------ special functions


def test_i0_igamma_nextafter_frexp_match_torch():
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.uniform(-40, 40, 200), [0.0, 1e-3, 29.9, 30.1, -700.0, 705.0]])
    for dtype in (np.float64, np.float32):
        t, tt = both(x.astype(dtype))
        same(tc.i0(t), torch.i0(tt), rtol=1e-13 if dtype == np.float64 else 1e-6, atol=0)
    # torch's i0 overflows from x ~ 709.8; the true value stays finite up to ~713.
    big = float(tc.i0(tc.tensor([712.0], dtype=tc.float64)))
    assert (
        math.isfinite(big) and abs(big / 2.4684107e307 - 1) < 1e-6
    )  # e^x/sqrt(2 pi x)(1+1/8x+...)
    g, tg = both(x[:50])
    g.requires_grad_()
    tg.requires_grad_()
    tc.i0(g).sum().backward()
    torch.i0(tg).sum().backward()
    same(g.grad, tg.grad, rtol=1e-12)
    i, ti = both(np.array([1.0, 4.0]))
    i.i0_()
    tc.i0_(i)
    same(i, ti.i0_().i0_(), rtol=1e-13)
    a = np.concatenate([rng.uniform(0.05, 50, 300), [0.0, 0.0, 1.0, 2.0, np.inf, -1.0]])
    z = np.concatenate([rng.uniform(0, 80, 300), [0.0, 1.0, 0.0, np.inf, np.inf, 1.0]])
    ta, tta = both(a)
    tz, ttz = both(z)
    # torch 1.13 is within ~2e-9 of the true values here; SciPy (Cephes) within ~1e-13.
    same(tc.igamma(ta, tz), torch.igamma(tta, ttz), rtol=5e-9, atol=1e-15)
    same(tc.igammac(ta, tz), torch.igammac(tta, ttz), rtol=5e-9, atol=1e-15)
    same(ta.igamma(tz), tta.igamma(ttz), rtol=5e-9, atol=1e-15)
    scipy_special = pytest.importorskip("scipy.special")
    same(tc.igamma(ta, tz)[:300], scipy_special.gammainc(a[:300], z[:300]), rtol=1e-12, atol=1e-300)
    same(
        tc.igammac(ta, tz)[:300], scipy_special.gammaincc(a[:300], z[:300]), rtol=1e-11, atol=1e-300
    )
    xg, txg = both(rng.uniform(0.5, 10, 20))
    av, tav = both(rng.uniform(0.5, 5, 20))
    xg.requires_grad_()
    txg.requires_grad_()
    (tc.igamma(av, xg) * 2 + tc.igammac(av, xg)).sum().backward()
    (torch.igamma(tav, txg) * 2 + torch.igammac(tav, txg)).sum().backward()
    same(xg.grad, txg.grad, rtol=1e-10)
    with pytest.raises(NotImplementedError, match="first argument"):
        tc.igamma(tc.ones(2, requires_grad=True), tc.ones(2))
    f32 = np.array([1.0, 0.0, -1.0, 3.5], np.float32)
    toward = np.array([2.0, -1.0, -2.0, 3.0], np.float32)
    n, tn = both(f32)
    d, td = both(toward)
    same(tc.nextafter(n, d), torch.nextafter(tn, td), rtol=0, atol=0)
    same(n.clone().nextafter_(d), np.nextafter(f32, toward), rtol=0, atol=0)
    with pytest.raises(TypeError, match="float32 and float64"):
        tc.nextafter(tc.ones(2, dtype=tc.float16), tc.ones(2, dtype=tc.float16))
    special = np.array([0.0, 1.0, -3.0, np.inf, 5e-320, np.nan, -0.0, 2.0**-1022, 7.9e307])
    for dtype in (np.float64, np.float32):
        v = special.astype(dtype)
        m, e = tc.frexp(tc.tensor(v))
        tm, te = torch.frexp(torch.from_numpy(v))
        np.testing.assert_array_equal(m.numpy(), tm.numpy())
        np.testing.assert_array_equal(e.numpy(), te.numpy())
        assert e.dtype == tc.int32
    with pytest.raises(TypeError, match="floating-point"):
        tc.frexp(tc.tensor([1, 2]))
