import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import ops


def random_boxes(rng, n, size=100.0, dtype=np.float32):
    xy = rng.uniform(0, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(dtype)


def naive_nms(boxes, scores, thr):
    order = np.argsort(-scores, kind="stable")
    keep, alive = [], np.ones(len(boxes), bool)
    for pos, i in enumerate(order):
        if not alive[pos]:
            continue
        keep.append(i)
        for q in range(pos + 1, len(order)):
            j = order[q]
            xx1, yy1 = max(boxes[i, 0], boxes[j, 0]), max(boxes[i, 1], boxes[j, 1])
            xx2, yy2 = min(boxes[i, 2], boxes[j, 2]), min(boxes[i, 3], boxes[j, 3])
            inter = max(0, xx2 - xx1) * max(0, yy2 - yy1)
            a = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            b = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
            if inter / (a + b - inter) > thr:
                alive[q] = False
    return np.array(keep, dtype=np.int64)


@pytest.mark.parametrize("thr", [0.3, 0.5, 0.8])
def test_nms_matches_naive(thr):
    rng = np.random.default_rng(0)
    boxes = random_boxes(rng, 300, dtype=np.float64)
    scores = rng.random(300)
    got = ops.nms(tc.from_numpy(boxes), tc.from_numpy(scores), thr).numpy()
    np.testing.assert_array_equal(got, naive_nms(boxes, scores, thr))


def test_nms_torchvision(torch_ref):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(1)
    boxes, scores = random_boxes(rng, 3000), rng.random(3000).astype(np.float32)
    got = ops.nms(tc.from_numpy(boxes), tc.from_numpy(scores), 0.5).numpy()
    ref = tv.ops.nms(torch_ref.from_numpy(boxes), torch_ref.from_numpy(scores), 0.5).numpy()
    np.testing.assert_array_equal(got, ref)


def test_nms_errors_and_empty():
    with pytest.raises(ValueError, match="nms"):
        ops.nms(tc.zeros((3, 5)), tc.zeros(3), 0.5)
    with pytest.raises(ValueError, match="scores"):
        ops.nms(tc.zeros((3, 4)), tc.zeros(2), 0.5)
    assert ops.nms(tc.zeros((0, 4)), tc.zeros(0), 0.5).shape == (0,)


def test_batched_nms_per_category():
    rng = np.random.default_rng(2)
    boxes, scores = random_boxes(rng, 200, dtype=np.float64), rng.random(200)
    idxs = rng.integers(0, 3, 200)
    got = ops.batched_nms(tc.from_numpy(boxes), tc.from_numpy(scores), tc.from_numpy(idxs), 0.5)
    expect = []
    for c in range(3):
        sel = np.nonzero(idxs == c)[0]
        expect.extend(sel[naive_nms(boxes[sel], scores[sel], 0.5)])
    expect = np.array(sorted(expect, key=lambda i: -scores[i]))
    np.testing.assert_array_equal(got.numpy(), expect)


def test_box_ops_torchvision(torch_ref):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(3)
    a, b = random_boxes(rng, 20, dtype=np.float64), random_boxes(rng, 15, dtype=np.float64)
    ta, tb = tc.from_numpy(a), tc.from_numpy(b)
    ra, rb = torch_ref.from_numpy(a), torch_ref.from_numpy(b)
    for name in ["box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou"]:
        np.testing.assert_allclose(
            getattr(ops, name)(ta, tb).numpy(),
            getattr(tv.ops, name)(ra, rb).numpy(),
            rtol=1e-10,
            atol=1e-12,
        )
    np.testing.assert_allclose(ops.box_area(ta).numpy(), tv.ops.box_area(ra).numpy())
    for i in ["xyxy", "xywh", "cxcywh"]:
        for o in ["xyxy", "xywh", "cxcywh"]:
            np.testing.assert_allclose(
                ops.box_convert(ta, i, o).numpy(), tv.ops.box_convert(ra, i, o).numpy()
            )
    np.testing.assert_array_equal(
        ops.clip_boxes_to_image(ta, (40, 60)).numpy(),
        tv.ops.clip_boxes_to_image(ra, (40, 60)).numpy(),
    )
    np.testing.assert_array_equal(
        ops.remove_small_boxes(ta, 20.0).numpy(), tv.ops.remove_small_boxes(ra, 20.0).numpy()
    )
    with pytest.raises(ValueError, match="box_convert"):
        ops.box_convert(ta, "xyxy", "yxyx")


def naive_roi_align(x, rois, ph, pw, scale, sr, aligned):
    def bilinear(plane, y, xx):
        H, W = plane.shape
        if y < -1 or y > H or xx < -1 or xx > W:
            return 0.0
        y, xx = max(y, 0.0), max(xx, 0.0)
        yl, xl = int(y), int(xx)
        if yl >= H - 1:
            yh = yl = H - 1
            y = float(yl)
        else:
            yh = yl + 1
        if xl >= W - 1:
            xh = xl = W - 1
            xx = float(xl)
        else:
            xh = xl + 1
        ly, lx = y - yl, xx - xl
        return (
            (1 - ly) * (1 - lx) * plane[yl, xl]
            + (1 - ly) * lx * plane[yl, xh]
            + ly * (1 - lx) * plane[yh, xl]
            + ly * lx * plane[yh, xh]
        )

    out = np.zeros((len(rois), x.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for k, r in enumerate(rois):
        b = int(r[0])
        x1, y1, x2, y2 = [v * scale - off for v in r[1:]]
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = sr if sr > 0 else int(np.ceil(rh / ph))
        gw = sr if sr > 0 else int(np.ceil(rw / pw))
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    acc = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            acc += bilinear(
                                x[b, c],
                                y1 + i * bh + (iy + 0.5) * bh / gh,
                                x1 + j * bw + (ix + 0.5) * bw / gw,
                            )
                    out[k, c, i, j] = acc / max(gh * gw, 1)
    return out


def make_rois(rng, n, batch, size):
    return np.concatenate([rng.integers(0, batch, (n, 1)), random_boxes(rng, n, size)], 1)


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("sr", [-1, 2])
def test_roi_align_naive(aligned, sr):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 12, 16))
    rois = make_rois(rng, 6, 2, 30.0)
    got = ops.roi_align(tc.from_numpy(x), tc.from_numpy(rois), (3, 2), 0.5, sr, aligned).numpy()
    np.testing.assert_allclose(got, naive_roi_align(x, rois, 3, 2, 0.5, sr, aligned), atol=1e-12)


# 40 RoIs on a 20x24 map take roi_align's channels-last path when C >= 16; 3 RoIs do not.
@pytest.mark.parametrize(
    "name,nrois",
    [
        ("roi_align", 40),
        ("roi_align", 3),
        ("roi_pool", 40),
        ("ps_roi_align", 40),
        ("ps_roi_pool", 40),
    ],
)
def test_roi_ops_torchvision_forward_backward(torch_ref, name, nrois):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 18, 20, 24)).astype(np.float32)
    rois = make_rois(rng, nrois, 2, 40.0).astype(np.float32)
    args = {"roi_align": (2, -1), "ps_roi_align": (2,), "roi_pool": (), "ps_roi_pool": ()}[name]
    tx = tc.from_numpy(x).requires_grad_()
    out = getattr(ops, name)(tx, tc.from_numpy(rois), (3, 3), 0.5, *args)
    rx = torch_ref.from_numpy(x).requires_grad_()
    ref = getattr(tv.ops, name)(rx, torch_ref.from_numpy(rois), (3, 3), 0.5, *args)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-5)
    if name == "ps_roi_pool":
        return  # torchvision's backward uses other bins than its forward; gradcheck covers ours
    g = rng.standard_normal(ref.shape).astype(np.float32)
    out.backward(tc.from_numpy(g))
    ref.backward(torch_ref.from_numpy(g))
    np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), atol=1e-4)


@pytest.mark.parametrize("name", ["roi_align", "ps_roi_align", "ps_roi_pool"])
def test_roi_gradcheck(name):
    rng = np.random.default_rng(6)
    x = tc.from_numpy(rng.standard_normal((1, 8, 7, 9))).requires_grad_()
    rois = tc.from_numpy(np.array([[0, 1.2, 0.7, 6.3, 5.1], [0, 0.0, 2.5, 8.0, 6.9]]))
    args = {"roi_align": (-1, True), "ps_roi_align": (2,), "ps_roi_pool": ()}[name]
    fn = getattr(ops, name)
    assert tc.autograd.gradcheck(lambda t: fn(t, rois, (2, 2), 1.0, *args), (x,))


def test_roi_align_list_of_boxes_and_errors():
    x = tc.ones((2, 3, 8, 8))
    out = ops.roi_align(x, [tc.tensor([[0.0, 0, 4, 4]]), tc.tensor([[1.0, 1, 5, 5]])], 2)
    assert out.shape == (2, 3, 2, 2)
    np.testing.assert_allclose(out.numpy(), 1.0)
    with pytest.raises(ValueError, match="roi_align"):
        ops.roi_align(tc.ones((3, 8, 8)), tc.zeros((1, 5)), 2)
    with pytest.raises(IndexError, match="batch index"):
        ops.roi_align(x, tc.tensor([[5.0, 0, 0, 1, 1]]), 2)
    with pytest.raises(ValueError, match="multiple"):
        ops.ps_roi_align(tc.ones((1, 5, 8, 8)), tc.zeros((1, 5)), 2)


def test_sigmoid_focal_loss_and_frozen_bn(torch_ref):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(7)
    x, t = rng.standard_normal((4, 5)), (rng.random((4, 5)) > 0.5).astype(np.float64)
    for red in ["none", "mean", "sum"]:
        np.testing.assert_allclose(
            ops.sigmoid_focal_loss(tc.from_numpy(x), tc.from_numpy(t), reduction=red).numpy(),
            tv.ops.sigmoid_focal_loss(
                torch_ref.from_numpy(x), torch_ref.from_numpy(t), reduction=red
            ).numpy(),
            rtol=1e-10,
        )
    bn = ops.FrozenBatchNorm2d(3)
    bn.weight = tc.tensor([1.0, 2.0, 3.0])
    bn.running_mean = tc.tensor([0.5, 0.0, -1.0])
    img = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    ref = tv.ops.FrozenBatchNorm2d(3)
    ref.weight.copy_(torch_ref.tensor([1.0, 2.0, 3.0]))
    ref.running_mean.copy_(torch_ref.tensor([0.5, 0.0, -1.0]))
    np.testing.assert_allclose(
        bn(tc.from_numpy(img)).numpy(), ref(torch_ref.from_numpy(img)).numpy(), rtol=1e-5, atol=1e-6
    )


def test_multiscale_roi_align_torchvision(torch_ref):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(8)
    feats = {
        "p2": rng.standard_normal((2, 4, 64, 64)).astype(np.float32),
        "p3": rng.standard_normal((2, 4, 32, 32)).astype(np.float32),
        "p4": rng.standard_normal((2, 4, 16, 16)).astype(np.float32),
        "pool": rng.standard_normal((2, 4, 8, 8)).astype(np.float32),
    }
    boxes = [random_boxes(rng, 30, 250.0), random_boxes(rng, 20, 250.0)]
    shapes = [(256, 256), (240, 250)]
    ours = ops.MultiScaleRoIAlign(["p2", "p3", "p4"], 7, 2)(
        {k: tc.from_numpy(v) for k, v in feats.items()}, [tc.from_numpy(b) for b in boxes], shapes
    )
    ref = tv.ops.MultiScaleRoIAlign(["p2", "p3", "p4"], 7, 2)(
        {k: torch_ref.from_numpy(v) for k, v in feats.items()},
        [torch_ref.from_numpy(b) for b in boxes],
        shapes,
    )
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), atol=1e-5)
