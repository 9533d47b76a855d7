"""Native vision kernels on CUDA (nms, roi_align forward/backward, resize) against the CPU
kernels on the same inputs (the other RoI ops and deform_conv2d: test_cuda_vision_roi.py).
Skipped without a GPU (see conftest.py)."""

import numpy as np
import pytest

import shared_inputs
import tensorcore as tc
from tensorcore.vision import ops
from tensorcore.vision import transforms as T
from tensorcore.vision.transforms import functional as F


@pytest.fixture(autouse=True)
def _restore_deterministic():
    yield
    tc.use_deterministic_algorithms(False)


def random_boxes(n, seed, dtype=np.float32, size=200.0):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, size, (n, 2))
    wh = rng.uniform(1, size / 4, (n, 2))
    boxes = np.concatenate([xy, xy + wh], axis=1).astype(dtype)
    scores = rng.uniform(0, 1, n).astype(dtype)
    return tc.from_numpy(boxes), tc.from_numpy(scores)


# ---- nms ----


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
@pytest.mark.parametrize("threshold", [0.3, 0.7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nms_matches_cpu(n, threshold, dtype):
    boxes, scores = random_boxes(n, seed=n, dtype=dtype)
    cpu = ops.nms(boxes, scores, threshold)
    gpu = ops.nms(boxes.cuda(), scores.cuda(), threshold)
    assert gpu.is_cuda and gpu.dtype == tc.int64
    np.testing.assert_array_equal(gpu.cpu().numpy(), cpu.numpy())
    assert 0 < cpu.numel() <= n


def test_nms_equal_scores_keep_input_order():
    boxes, _ = random_boxes(300, seed=3)
    scores = tc.from_numpy(np.repeat(np.float32([0.5, 0.9, 0.1]), 100))
    np.testing.assert_array_equal(
        ops.nms(boxes.cuda(), scores.cuda(), 0.4).cpu().numpy(), ops.nms(boxes, scores, 0.4).numpy()
    )


def test_nms_empty_and_device_mismatch():
    out = ops.nms(tc.zeros(0, 4).cuda(), tc.zeros(0).cuda(), 0.5)
    assert out.is_cuda and out.numel() == 0
    boxes, scores = random_boxes(5, seed=0)
    with pytest.raises(RuntimeError, match="same device"):
        ops.nms(boxes.cuda(), scores, 0.5)


def test_batched_nms_matches_cpu():
    boxes, scores = random_boxes(800, seed=7)
    idxs = tc.from_numpy(np.random.default_rng(7).integers(0, 5, 800))
    cpu = ops.batched_nms(boxes, scores, idxs, 0.5)
    gpu = ops.batched_nms(boxes.cuda(), scores.cuda(), idxs.cuda(), 0.5)
    assert gpu.is_cuda
    np.testing.assert_array_equal(gpu.cpu().numpy(), cpu.numpy())


# ---- roi_align ----


def roi_inputs(dtype, seed=0, n=2, c=5, h=20, w=24, k=30):
    rng = np.random.default_rng(seed)
    x = tc.from_numpy(rng.standard_normal((n, c, h, w)).astype(dtype))
    xy = rng.uniform(-4, 30, (k, 2))
    wh = rng.uniform(-1, 20, (k, 2))  # some inverted / tiny boxes too
    b = rng.integers(0, n, (k, 1)).astype(np.float64)
    rois = tc.from_numpy(np.concatenate([b, xy, xy + wh], axis=1).astype(dtype))
    return x, rois


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("sampling_ratio", [-1, 2])
@pytest.mark.parametrize("dtype,atol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_roi_align_forward_backward_match_cpu(aligned, sampling_ratio, dtype, atol):
    x, rois = roi_inputs(dtype)
    args = dict(
        output_size=(3, 4), spatial_scale=0.8, sampling_ratio=sampling_ratio, aligned=aligned
    )
    xc = x.clone().requires_grad_()
    xg = x.cuda().requires_grad_()
    yc = ops.roi_align(xc, rois, **args)
    yg = ops.roi_align(xg, rois.cuda(), **args)
    assert yg.is_cuda and yg.shape == yc.shape
    np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), atol=atol, rtol=atol)
    grad = tc.from_numpy(np.random.default_rng(1).standard_normal(tuple(yc.shape)).astype(dtype))
    (yc * grad).sum().backward()
    (yg * grad.cuda()).sum().backward()
    assert xg.grad.is_cuda
    np.testing.assert_allclose(
        xg.grad.cpu().numpy(), xc.grad.numpy(), atol=10 * atol, rtol=10 * atol
    )
    assert np.abs(xc.grad.numpy()).sum() > 0


def test_roi_align_list_of_boxes_and_fpn_size():
    rng = np.random.default_rng(2)
    x = tc.from_numpy(rng.standard_normal((2, 64, 50, 68)).astype(np.float32))
    # Sorted coordinates give x1 <= y1 <= x2 <= y2: valid xyxy boxes.
    boxes = [
        tc.from_numpy(np.sort(rng.uniform(0, 400, (40, 4)), axis=1).astype(np.float32))
        for _ in range(2)
    ]
    cpu = ops.roi_align(x, boxes, 7, spatial_scale=1 / 8, sampling_ratio=2, aligned=True)
    gpu = ops.roi_align(
        x.cuda(), [b.cuda() for b in boxes], 7, spatial_scale=1 / 8, sampling_ratio=2, aligned=True
    )
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), atol=1e-5, rtol=1e-5)


def test_roi_align_errors_on_cuda():
    x, rois = roi_inputs(np.float32, k=3)
    bad = rois.clone()
    bad[1, 0] = 5.0
    with pytest.raises(IndexError, match="batch index"):
        ops.roi_align(x.cuda(), bad.cuda(), 2)
    with pytest.raises(RuntimeError, match="same device"):
        ops.roi_align(x.cuda(), rois, 2)


def test_roi_align_backward_is_flagged_nondeterministic():
    x, rois = roi_inputs(np.float32, k=3)
    xg = x.cuda().requires_grad_()
    y = ops.roi_align(xg, rois.cuda(), 2)
    tc.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="roi_align_backward"):
        y.sum().backward()


# ---- resize ----


def image(dtype, shape=(2, 3, 37, 45), seed=0):
    return shared_inputs.image(dtype, shape, seed)


@pytest.mark.parametrize("dtype", ["uint8", np.float32, np.float64])
@pytest.mark.parametrize(
    "mode", [T.InterpolationMode.NEAREST, T.InterpolationMode.BILINEAR, T.InterpolationMode.BICUBIC]
)
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("size", [[12, 17], [37, 20], [60, 45], [80, 91], [20, 70]])
def test_resize_matches_cpu(dtype, mode, antialias, size):
    x = image(dtype)
    cpu = F.resize(x, size, mode, antialias=antialias)
    gpu = F.resize(x.cuda(), size, mode, antialias=antialias)
    assert gpu.is_cuda and gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    g, c = gpu.cpu().numpy(), cpu.numpy()
    if dtype == "uint8":
        assert np.abs(g.astype(int) - c.astype(int)).max() <= 1
    else:
        np.testing.assert_allclose(g, c, atol=1e-5, rtol=1e-5)


def test_resize_large_downscale_and_random_resized_crop():
    x = image("uint8", shape=(3, 270, 480), seed=4)
    np.testing.assert_allclose(
        F.resize(x.cuda(), 64).cpu().numpy().astype(int),
        F.resize(x, 64).numpy().astype(int),
        atol=1,
    )
    batch = image("uint8", shape=(4, 3, 40, 50), seed=5)
    for seed in (0, 1):
        cpu = T.RandomResizedCrop(16, generator=tc.Generator().manual_seed(seed))(batch)
        gpu = T.RandomResizedCrop(16, generator=tc.Generator().manual_seed(seed))(batch.cuda())
        assert gpu.is_cuda
        assert np.abs(gpu.cpu().numpy().astype(int) - cpu.numpy().astype(int)).max() <= 1
