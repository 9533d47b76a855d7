"""The nn kernels added on CUDA (nn/kernels_cuda.cu): grid_sample (4-d: bilinear / nearest /
bicubic, 5-d: trilinear / nearest; zeros / border / reflection, align_corners), embedding_bag (sum / mean / max,
per_sample_weights, padding_idx) and ctc_loss, forward and backward, against the CPU kernels on
the same inputs. Skipped without a GPU (see conftest.py)."""

import numpy as np
import pytest

import tensorcore as tc
from shared_inputs import EMBEDDING_BAG_CASES
import tensorcore.nn.functional as F


@pytest.fixture(autouse=True)
def _restore_deterministic():
    yield
    tc.use_deterministic_algorithms(False)


def arr(*shape, seed=0, dtype=np.float64, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


TOL = {np.float32: 1e-5, np.float64: 1e-11}


def run_both(fn, arrays, grad_seed=9):
    """fn(*tensors) on the CPU and on CUDA, with requires_grad; returns ((out, grads) cpu,
    (out, grads) cuda) as numpy."""
    results = []
    for device in ("cpu", "cuda"):
        ts = [tc.from_numpy(a.copy()) for a in arrays]
        ts = [(t.cuda() if device == "cuda" else t).requires_grad_() for t in ts]
        out = fn(*ts)
        assert out.is_cuda == (device == "cuda")
        g = tc.from_numpy(np.asarray(arr(*out.shape, seed=grad_seed, dtype=arrays[0].dtype)))
        (out * (g.cuda() if device == "cuda" else g)).sum().backward()
        results.append((out.detach().cpu().numpy(), [t.grad.cpu().numpy() for t in ts]))
    return results


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_cpu(dtype, mode, padding_mode, align_corners):
    x = arr(2, 3, 7, 9, seed=1, dtype=dtype)
    grid = arr(2, 5, 6, 2, seed=2, dtype=dtype, scale=0.8)  # some points outside [-1, 1]
    (oc, gc), (og, gg) = run_both(
        lambda a, g: F.grid_sample(
            a, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        ),
        [x, grid],
    )
    tol = TOL[dtype] * (10 if mode == "bicubic" else 1)
    np.testing.assert_allclose(og, oc, rtol=tol, atol=tol)
    for a, b in zip(gg, gc):
        np.testing.assert_allclose(a, b, rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_5d_matches_cpu(dtype, mode, padding_mode, align_corners):
    x = arr(2, 2, 4, 5, 6, seed=3, dtype=dtype)
    grid = arr(2, 3, 2, 4, 3, seed=4, dtype=dtype, scale=0.8)
    (oc, gc), (og, gg) = run_both(
        lambda a, g: F.grid_sample(
            a, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        ),
        [x, grid],
    )
    np.testing.assert_allclose(og, oc, rtol=TOL[dtype], atol=TOL[dtype])
    for a, b in zip(gg, gc):
        np.testing.assert_allclose(a, b, rtol=10 * TOL[dtype], atol=10 * TOL[dtype])


def test_grid_sample_cuda_errors():
    with pytest.raises(ValueError, match="same device"):
        F.grid_sample(tc.zeros(1, 1, 3, 3).cuda(), tc.zeros(1, 2, 2, 2), align_corners=False)
    xg = tc.zeros(1, 1, 3, 3).cuda().requires_grad_()
    y = F.grid_sample(xg, tc.zeros(1, 2, 2, 2).cuda(), align_corners=False)
    tc.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="grid_sampler_2d_backward"):
        y.sum().backward()


# With scale_grad_by_freq too (the CPU test checks it apart: torch 1.13's CPU kernel differs).
BAG_CASES = EMBEDDING_BAG_CASES + [
    (np.array([[1, 2, 4], [5, 4, 3]]), None, dict(mode="sum", scale_grad_by_freq=True))
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("idx,offsets,kwargs", BAG_CASES)
def test_embedding_bag_matches_cpu(dtype, idx, offsets, kwargs):
    w = arr(10, 5, seed=3, dtype=dtype)

    def fn(weight):
        dev = weight.device
        return F.embedding_bag(
            tc.from_numpy(idx).to(dev),
            weight,
            None if offsets is None else tc.from_numpy(offsets).to(dev),
            **kwargs,
        )

    (oc, gc), (og, gg) = run_both(fn, [w])
    np.testing.assert_allclose(og, oc, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(gg[0], gc[0], rtol=TOL[dtype], atol=TOL[dtype])


def test_embedding_bag_per_sample_weights_and_errors_on_cuda():
    w, psw = arr(10, 3, seed=4), arr(8, seed=5)
    idx, off = tc.tensor([1, 2, 4, 5, 4, 3, 2, 9]), tc.tensor([0, 4])
    (oc, gc), (og, gg) = run_both(
        lambda weight, p: F.embedding_bag(
            idx.to(weight.device), weight, off.to(weight.device), mode="sum", per_sample_weights=p
        ),
        [w, psw],
    )
    np.testing.assert_allclose(og, oc, rtol=1e-11)
    for a, b in zip(gg, gc):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    wc = tc.from_numpy(w).cuda()
    with pytest.raises(IndexError, match="out of range"):
        F.embedding_bag(tc.tensor([1, 12]).cuda(), wc, tc.tensor([0]).cuda())
    with pytest.raises(ValueError, match="same device"):
        F.embedding_bag(idx, wc, off)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
def test_max_norm_renormalizes_rows_on_cuda(norm_type):
    # embedding and embedding_bag rescale the referenced weight rows in place, as on the CPU.
    w = arr(7, 4, seed=6, scale=2.0)
    idx = np.array([[0, 2, 6], [2, 2, 5]])
    for fn in (
        lambda i, wt: F.embedding(i, wt, max_norm=1.0, norm_type=norm_type),
        lambda i, wt: F.embedding_bag(i, wt, max_norm=1.0, norm_type=norm_type),
    ):
        wc, wg = tc.from_numpy(w.copy()), tc.from_numpy(w.copy()).cuda()
        outc, outg = fn(tc.from_numpy(idx), wc), fn(tc.from_numpy(idx).cuda(), wg)
        assert wg.is_cuda and outg.is_cuda
        np.testing.assert_allclose(wg.cpu().numpy(), wc.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outg.cpu().numpy(), outc.numpy(), rtol=1e-12, atol=1e-12)
        assert not np.allclose(wc.numpy(), w)  # some rows were rescaled


def log_softmax_np(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padded", [True, False])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_matches_cpu(dtype, padded, reduction):
    T, N, C = 12, 4, 6
    lp = log_softmax_np(arr(T, N, C, seed=6)).astype(dtype)
    lengths = [4, 0, 5, 2]  # an empty target too
    rng = np.random.default_rng(7)
    rows = [rng.integers(1, C, n) for n in lengths]
    rows[2][1] = rows[2][0]  # a repeated label
    if padded:
        targets = np.zeros((N, max(lengths)), dtype=np.int64)
        for i, r in enumerate(rows):
            targets[i, : len(r)] = r
    else:
        targets = np.concatenate(rows).astype(np.int64)
    in_len = [12, 7, 11, 12]

    def fn(x):
        dev = x.device
        return F.ctc_loss(
            x,
            tc.from_numpy(targets).to(dev),
            tc.tensor(in_len).to(dev),
            tc.tensor(lengths),
            reduction=reduction,
        )

    (oc, gc), (og, gg) = run_both(fn, [lp])
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(og, oc, rtol=tol, atol=tol)
    np.testing.assert_allclose(gg[0], gc[0], rtol=tol, atol=tol)
    assert np.abs(gc[0]).sum() > 0


def test_ctc_loss_infeasible_and_zero_infinity_on_cuda():
    # Input too short for the target: the loss is inf (or 0 with zero_infinity) and the
    # gradient nan (or 0), as on the CPU.
    lp = log_softmax_np(arr(3, 1, 4, seed=8))
    for zero_infinity in (False, True):
        (oc, gc), (og, gg) = run_both(
            lambda x: F.ctc_loss(
                x,
                tc.tensor([[1, 2, 3]]).to(x.device),
                [3],
                [3],
                reduction="sum",
                zero_infinity=zero_infinity,
            ),
            [lp],
        )
        np.testing.assert_array_equal(og, oc)
        np.testing.assert_array_equal(np.isnan(gg[0]), np.isnan(gc[0]))
        np.testing.assert_allclose(np.nan_to_num(gg[0]), np.nan_to_num(gc[0]))
    with pytest.raises(IndexError, match="target"):
        F.ctc_loss(tc.from_numpy(lp).cuda(), tc.tensor([[0, 1]]).cuda(), [3], [2])
