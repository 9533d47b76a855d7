"""Transform classes: per-sample batch randomness, fusion, joint targets, save/load."""

import numpy as np
import pytest

import tensorcore as tc
from shared_inputs import gen
from tensorcore.vision import transforms as T
from tensorcore.vision.transforms import functional as F


def batch_u8(n=6, c=3, h=40, w=48, seed=0):
    rng = np.random.default_rng(seed)
    return tc.from_numpy(rng.integers(0, 256, (n, c, h, w), dtype=np.uint8))


RANDOM_CASES = [
    lambda g: T.RandomCrop(24, generator=g),
    lambda g: T.RandomCrop(36, padding=4, padding_mode="reflect", generator=g),
    lambda g: T.RandomHorizontalFlip(0.5, generator=g),
    lambda g: T.RandomVerticalFlip(0.5, generator=g),
    lambda g: T.RandomResizedCrop(20, generator=g),
    lambda g: T.RandomRotation(30, interpolation="bilinear", generator=g),
    lambda g: T.RandomAffine(
        20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(-5, 5, -3, 3), generator=g
    ),
    lambda g: T.RandomPerspective(0.4, p=0.7, generator=g),
    lambda g: T.ColorJitter(0.4, 0.4, 0.4, 0.1, generator=g),
    lambda g: T.RandomGrayscale(0.5, generator=g),
    lambda g: T.GaussianBlur(5, (0.5, 2.0), generator=g),
    lambda g: T.RandomErasing(0.8, generator=g),
    lambda g: T.RandomInvert(0.5, generator=g),
    lambda g: T.RandomPosterize(3, 0.5, generator=g),
    lambda g: T.RandomSolarize(128, 0.5, generator=g),
    lambda g: T.RandomAdjustSharpness(2.0, 0.5, generator=g),
    lambda g: T.RandomAutocontrast(0.5, generator=g),
    lambda g: T.RandomEqualize(0.5, generator=g),
]


@pytest.mark.parametrize("make", RANDOM_CASES)
def test_batch_equals_per_image_with_per_sample_params(make):
    x = batch_u8()
    t = make(gen(5))
    out = t(x)
    # Replay the draws, then apply each sample alone with its own parameters.
    t2 = make(gen(5))
    if isinstance(t2, T.RandomCrop):
        prepared = t2._prepare(x)
    else:
        prepared = x
    params = t2._draw(x.shape[0], prepared.shape[-2], prepared.shape[-1])
    assert len(params) == x.shape[0]
    for i in range(x.shape[0]):
        single = t2._apply_batch(prepared[i : i + 1], [params[i]])
        np.testing.assert_array_equal(out[i : i + 1].numpy(), single.numpy())


@pytest.mark.parametrize("make", RANDOM_CASES[:9])
def test_parameters_differ_per_sample_and_same_on_batch(make):
    x = batch_u8(8)
    same = tc.stack([x[0]] * 8)
    t = make(gen(2))
    out = t(same).numpy()
    assert any(not np.array_equal(out[0], out[i]) for i in range(1, 8))
    t = make(gen(2))
    t.same_on_batch = True
    out = t(same).numpy()
    for i in range(1, 8):
        np.testing.assert_array_equal(out[0], out[i])


def test_generator_reproducible_and_manual_seed():
    x = batch_u8()
    a = T.RandomResizedCrop(16, generator=gen(3))(x)
    b = T.RandomResizedCrop(16, generator=gen(3))(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    tc.manual_seed(11)
    c = T.RandomCrop(20)(x)
    tc.manual_seed(11)
    d = T.RandomCrop(20)(x)
    np.testing.assert_array_equal(c.numpy(), d.numpy())


@pytest.mark.parametrize("dtype", [tc.uint8, tc.float32])
@pytest.mark.parametrize(
    "stages",
    [
        lambda g: [T.RandomCrop(24, generator=g), T.RandomHorizontalFlip(0.5, generator=g)],
        lambda g: [
            T.RandomHorizontalFlip(0.5, generator=g),
            T.RandomCrop(30, generator=g),
            T.RandomVerticalFlip(0.5, generator=g),
            T.CenterCrop(20),
        ],
        lambda g: [],
    ],
)
def test_fused_chain_equals_unfused(dtype, stages):
    x = batch_u8(8)
    if dtype == tc.float32:
        x = x.float() / 255
    tail = [
        T.ConvertImageDtype(tc.float32),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ]
    fused = T.Compose(stages(gen(7)) + tail)
    plain = T.Compose(stages(gen(7)) + tail, fuse=False)
    np.testing.assert_allclose(fused(x).numpy(), plain(x).numpy(), rtol=1e-5, atol=2e-6)
    single = T.Compose(stages(gen(9)) + tail)(x[0])
    assert single.shape[0] == 3 and single.dim() == 3


def test_deterministic_classes_match_torchvision(torch_ref):
    tv = pytest.importorskip("torchvision")
    x = batch_u8(2)
    xr = torch_ref.from_numpy(x.numpy())
    pairs = [
        (T.Resize(20, antialias=True), tv.transforms.Resize(20, antialias=True), 1),
        (T.CenterCrop(30), tv.transforms.CenterCrop(30), 0),
        (
            T.Pad([1, 2, 3, 4], padding_mode="symmetric"),
            tv.transforms.Pad([1, 2, 3, 4], padding_mode="symmetric"),
            0,
        ),
        (T.Grayscale(3), tv.transforms.Grayscale(3), 0),
    ]
    for ours, ref, tol in pairs:
        d = np.abs(ours(x).numpy().astype(int) - ref(xr).numpy().astype(int))
        assert d.max() <= tol, ours
    f = T.Compose([T.ConvertImageDtype(tc.float32), T.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4])])
    r = tv.transforms.Compose(
        [
            tv.transforms.ConvertImageDtype(torch_ref.float32),
            tv.transforms.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4]),
        ]
    )
    np.testing.assert_allclose(f(x).numpy(), r(xr).numpy(), rtol=1e-5, atol=1e-6)
    fc = T.FiveCrop(10)(x)
    rc = tv.transforms.FiveCrop(10)(xr)
    for a, b in zip(fc, rc):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_random_params_replayed_through_torchvision(torch_ref):
    tv = pytest.importorskip("torchvision")
    TF = tv.transforms.functional
    x = batch_u8(1)[0]
    xr = torch_ref.from_numpy(x.numpy())
    t = T.RandomAffine(25, translate=(0.1, 0.1), scale=(0.7, 1.3), shear=10, generator=gen(4))
    angle, tr, sc, sh = t._draw(1, 40, 48)[0]
    out = T.RandomAffine(25, translate=(0.1, 0.1), scale=(0.7, 1.3), shear=10, generator=gen(4))(x)
    ref = TF.affine(xr, angle, list(tr), sc, list(sh), fill=[0.0])
    assert (np.abs(out.numpy().astype(int) - ref.numpy().astype(int)) > 0).mean() < 0.01
    cj = T.ColorJitter(0.5, 0.5, 0.5, 0.2, generator=gen(6))
    order, factors = cj._draw(1, 40, 48)[0]
    out = T.ColorJitter(0.5, 0.5, 0.5, 0.2, generator=gen(6))(x)
    fns = [TF.adjust_brightness, TF.adjust_contrast, TF.adjust_saturation, TF.adjust_hue]
    ref = xr
    for k in order:
        ref = fns[k](ref, factors[k])
    assert np.abs(out.numpy().astype(int) - ref.numpy().astype(int)).max() <= 1


def _sample():
    img = tc.zeros((3, 40, 60), dtype=tc.uint8)
    masks = tc.zeros((2, 40, 60), dtype=tc.uint8)
    masks[0, 5:15, 10:30] = 1
    masks[1, 20:38, 40:58] = 1
    boxes = tc.tensor([[10.0, 5.0, 30.0, 15.0], [40.0, 20.0, 58.0, 38.0]])
    return {"image": img, "boxes": boxes, "labels": tc.tensor([1, 2]), "masks": masks}


def _mask_boxes(masks):
    out = []
    for m in masks.numpy():
        ys, xs = np.nonzero(m)
        out.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize(
    "t",
    [
        T.RandomHorizontalFlip(1.0),
        T.RandomVerticalFlip(1.0),
        T.CenterCrop(30),
        T.Resize([80, 120], interpolation="nearest"),
        T.Pad([3, 4, 5, 6]),
        T.RandomCrop(36, padding=3, generator=gen(1)),
        T.RandomAffine([90, 90]),
        T.RandomResizedCrop([30, 40], scale=(0.7, 1.0), interpolation="nearest", generator=gen(2)),
        T.RandomRotation([180, 180]),
        T.RandomAffine([0, 0], translate=(0.2, 0.2), generator=gen(3)),
    ],
)
def test_joint_boxes_follow_masks(t):
    out = t(_sample())
    assert out["image"].shape[-2:] == out["masks"].shape[-2:]
    assert out["boxes"].shape[0] == out["labels"].shape[0] == out["masks"].shape[0]
    assert out["boxes"].shape[0] >= 1
    np.testing.assert_allclose(out["boxes"].numpy(), _mask_boxes(out["masks"]), atol=1.01)


def test_joint_perspective_boxes_enclose_masks():
    out = T.RandomPerspective(0.3, p=1.0, generator=gen(4))(_sample())
    boxes, from_masks = out["boxes"].numpy(), _mask_boxes(out["masks"])
    assert out["boxes"].shape[0] == out["masks"].shape[0]
    # The corner-mapped box encloses the warped mask (up to a pixel of resampling).
    assert (boxes[:, :2] <= from_masks[:, :2] + 1).all()
    assert (boxes[:, 2:] >= from_masks[:, 2:] - 1).all()


def test_joint_crop_drops_boxes_outside():
    t = T.CenterCrop([10, 10])
    s = _sample()
    s["boxes"] = tc.tensor([[0.0, 0.0, 5.0, 5.0], [25.0, 15.0, 35.0, 25.0]])
    out = t(s)
    assert out["labels"].tolist() == [2]
    np.testing.assert_allclose(out["boxes"].numpy(), [[0, 0, 10, 10]])


def test_save_load_roundtrip(tmp_path):
    p = T.Compose(
        [
            T.Resize(50),
            T.RandomCrop(32),
            T.RandomHorizontalFlip(0.3),
            T.ConvertImageDtype(tc.float32),
            T.Normalize([0.5] * 3, [0.25] * 3),
        ]
    )
    path = tmp_path / "pipe.json"
    p.save(str(path))
    q = T.load(str(path))
    x = batch_u8(3, h=60, w=70)
    tc.manual_seed(3)
    a = p(x)
    tc.manual_seed(3)
    b = q(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError, match="cannot be saved"):
        T.Compose([T.Lambda(lambda v: v)]).save(str(path))
    with pytest.raises(TypeError, match="cannot be saved"):
        T.Compose([lambda v: v]).save(str(path))


def test_containers_and_misc():
    x = batch_u8(6).float() / 255
    out = T.RandomApply([T.RandomInvert(1.0)], p=0.5, generator=gen(2))(x).numpy()
    inv = (1 - x).numpy()
    kinds = [np.allclose(out[i], inv[i]) for i in range(6)]
    assert any(kinds) and not all(kinds)
    out = T.RandomChoice([T.RandomInvert(1.0), T.Lambda(lambda v: v)], generator=gen(3))(x)
    assert out.shape == x.shape
    out = T.RandomOrder([T.RandomInvert(1.0), T.RandomSolarize(0.5, 1.0)], generator=gen(3))(x)
    assert out.shape == x.shape
    d = 3 * 40 * 48
    lt = T.LinearTransformation(tc.eye(d), tc.zeros(d))
    np.testing.assert_allclose(lt(x).numpy(), x.numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="larger"):
        T.RandomCrop(100)(x)
    with pytest.raises(TypeError, match="Tensor"):
        T.RandomCrop(10)(np.zeros((3, 20, 20)))
    assert "RandomCrop" in repr(T.RandomCrop(3))


def test_any_leading_dims_and_2d_images():
    x = tc.from_numpy(np.random.default_rng(0).integers(0, 256, (2, 2, 3, 20, 24), dtype=np.uint8))
    out = T.Compose(
        [
            T.RandomCrop(10, generator=gen(1)),
            T.RandomHorizontalFlip(generator=gen(2)),
            T.ColorJitter(0.3, 0.3, 0.3, 0.1, generator=gen(3)),
        ]
    )(x)
    assert out.shape == (2, 2, 3, 10, 10) and out.dtype == tc.uint8
    assert F.resize(x, [8, 9]).shape == (2, 2, 3, 8, 9)
    assert F.rotate(x, 15.0).shape == x.shape
    gray = x[0, 0, 0]
    assert T.RandomCrop(5, generator=gen(1))(gray).shape == (5, 5)
    assert T.Resize([7, 6])(gray).shape == (7, 6)


def test_rotation_expand_on_a_batch_renders_into_the_largest_canvas():
    x = batch_u8(6, h=30, w=44)
    out = T.RandomRotation(60, expand=True, generator=gen(4))(x)
    angles = T.RandomRotation(60, expand=True, generator=gen(4))._draw(6, 30, 44)
    sizes = [F.rotated_size((30, 44), a) for a in angles]
    oh, ow = max(s[0] for s in sizes), max(s[1] for s in sizes)
    assert len(set(sizes)) > 1 and out.shape == (6, 3, oh, ow)
    checked = 0
    for i, (a, (eh, ew)) in enumerate(zip(angles, sizes)):
        single = F.rotate(x[i], a, expand=True, fill=0).numpy()
        if (eh, ew) == (oh, ow):
            np.testing.assert_array_equal(out[i].numpy(), single)
            checked += 1
        elif (oh - eh) % 2 == 0 and (ow - ew) % 2 == 0:
            # The single-image rotation sits at the canvas centre; the rest is fill.
            top, left = (oh - eh) // 2, (ow - ew) // 2
            inner = out[i].numpy()[:, top : top + eh, left : left + ew]
            assert (inner != single).mean() < 0.01
            border = out[i].numpy().copy()
            border[:, top : top + eh, left : left + ew] = 0
            assert border.max() == 0
            checked += 1
    assert checked >= 2
    # One draw for the whole batch: exactly F.rotate(expand=True) on each image.
    t = T.RandomRotation(60, expand=True, generator=gen(4), same_on_batch=True)
    out = t(x)
    a = T.RandomRotation(60, generator=gen(4))._draw(1, 30, 44)[0]
    np.testing.assert_array_equal(out.numpy(), F.rotate(x, a, expand=True, fill=0).numpy())


def test_gaussian_blur_per_sample_sigmas_in_one_call_match_single_calls():
    x = batch_u8(4, h=20, w=23)
    for dtype in (tc.uint8, tc.float32, tc.float64, tc.int16):
        xb = x.to(dtype)
        sig = [0.4, 1.1, 2.5, 0.9]
        out = tc._C._vision.gaussian_blur(xb, 5, 3, sig, sig) if dtype != tc.int16 else None
        for i, s in enumerate(sig):
            single = F.gaussian_blur(xb[i], [5, 3], [s, s])
            if out is not None:
                np.testing.assert_array_equal(out[i].numpy(), single.numpy())
        if dtype == tc.int16:
            ref = F.gaussian_blur(x[0].float(), [5, 3], [0.4, 0.4]).round().to(tc.int16)
            np.testing.assert_array_equal(
                F.gaussian_blur(xb[0], [5, 3], [0.4]).numpy(), ref.numpy()
            )
    with pytest.raises(ValueError, match="reflect padding"):
        F.gaussian_blur(x[:, :, :2], 5)
    with pytest.raises(TypeError, match="gaussian_blur"):
        F.gaussian_blur(x.to(tc.bool), 3)


def test_composed_crop_flip_equals_the_kernel():
    # The core-op path CUDA tensors take (checked here on the CPU against the C++ kernel).
    from tensorcore.vision.transforms import _geometric_transforms as G

    x = batch_u8(5, h=20, w=24)
    args = ([1, 0, 5, 3, 2], [4, 0, 7, 1, 9], [1, 0, 1, 0, 1], [0, 0, 1, 1, 1], 12, 15)
    np.testing.assert_array_equal(
        G._crop_flip_composed(x, *args).numpy(), tc._C._vision.crop_flip(x, *args).numpy()
    )
    shared = ([2], [3], [1], [0], 10, 10)
    np.testing.assert_array_equal(
        G._crop_flip_composed(x, *shared).numpy(), tc._C._vision.crop_flip(x, *shared).numpy()
    )
    with pytest.raises(ValueError, match="outside"):
        G._crop_flip_composed(x, [15], [0], [0], [0], 10, 10)
