"""uint8 antialiased resize in 16-bit fixed point with AVX2 passes (issue 24.6).

Checked bit for bit against a NumPy model of the same arithmetic (so the vector paths, their
scalar tails and the window edges agree on every size), and within 1 of torchvision's float
result (bilinear) on photo-like images, including the 1080p -> 224 case of the benchmark.
"""

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.transforms import functional as F


def _filter(x, bicubic):
    x = abs(x)
    if bicubic:
        a = -0.5
        if x < 1:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0
    return 1 - x if x < 1 else 0.0


def _lround(v):
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def _axis(n_in, n_out, bicubic):
    """Windows and 16-bit weights as the library computes them (Pillow's antialias filter)."""
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    support = (2.0 if bicubic else 1.0) * fscale
    ksize = int(math.ceil(support)) * 2 + 1
    starts, rows = [], []
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        n = min(hi - lo, ksize)
        w = [_filter((k + lo - center + 0.5) / fscale, bicubic) for k in range(n)]
        total = 0.0
        for v in w:
            total += v
        if total != 0:
            w = [v / total for v in w]
        w += [0.0] * (ksize - n)
        # Windows never run past the input: shifted back with their weights.
        over = lo + ksize - n_in
        shift = min(over, lo) if over > 0 else 0
        if shift > 0:
            w = [0.0] * shift + w[: ksize - shift]
            lo -= shift
        starts.append(lo)
        rows.append(w)
    max_w = max(abs(v) for r in rows for v in r)
    precision = 0
    while precision < 15 and _lround(max_w * 2 ** (precision + 1)) < 2**15:
        precision += 1
    fixed = np.array([[_lround(v * 2**precision) for v in r] for r in rows], np.int64)
    return np.array(starts), fixed, precision, min(ksize, n_in)


def _pass(img, n_out, bicubic, axis):
    """One separable pass along `axis` of an int64 planes x H x W array."""
    n_in = img.shape[axis]
    if n_in == n_out:
        return img
    starts, w, precision, ks = _axis(n_in, n_out, bicubic)
    moved = np.moveaxis(img, axis, 0)
    out = np.empty((n_out,) + moved.shape[1:], np.int64)
    for i in range(n_out):
        win = moved[starts[i] : starts[i] + ks]
        acc = np.tensordot(w[i, :ks], win, axes=(0, 0)) + (1 << (precision - 1))
        out[i] = np.clip(acc >> precision, 0, 255)
    return np.moveaxis(out, 0, axis)


def _model(img, h, w, bicubic):
    x = img.astype(np.int64)
    if bicubic:  # horizontal pass first (the intermediate clips, as Pillow's)
        return _pass(_pass(x, w, True, 2), h, True, 1).astype(np.uint8)
    return _pass(_pass(x, h, False, 1), w, False, 2).astype(np.uint8)


def _photo(c, h, w, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([128 + 90 * np.sin(x / 13 + k) * np.cos(y / 19 - k) for k in range(c)])
    return np.clip(base + rng.normal(0, 25, (c, h, w)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("interp", ["bilinear", "bicubic"])
@pytest.mark.parametrize(
    "src,dst",
    [
        ((3, 97, 131), (31, 45)),  # odd sizes: scalar tails in both passes
        ((1, 64, 200), (64, 23)),  # horizontal pass only, ksize 19 (two 16-tap vectors)
        ((2, 300, 40), (17, 40)),  # vertical pass only, 37-tap windows
        ((3, 50, 70), (120, 150)),  # upscale: negative bicubic lobes clip
        ((1, 400, 520), (9, 11)),  # 45x downscale: 93 taps
        ((3, 128, 256), (96, 160)),  # mild downscale, widths multiple of 32
    ],
)
def test_matches_fixed_point_model(interp, src, dst):
    img = _photo(*src)
    out = F.resize(tc.from_numpy(img), list(dst), interpolation=interp, antialias=True).numpy()
    np.testing.assert_array_equal(out, _model(img, *dst, interp == "bicubic"))


def test_1080p_to_224_within_one_of_torchvision():
    torch = pytest.importorskip("torch")
    TF = pytest.importorskip("torchvision.transforms.functional")
    img = _photo(3, 1080, 1920, seed=4)
    ref = TF.resize(torch.from_numpy(img), 224, antialias=True).numpy().astype(int)
    old = tc.get_num_threads()
    try:
        for threads in (1, 2):
            tc.set_num_threads(threads)
            ours = F.resize(tc.from_numpy(img), 224, antialias=True).numpy().astype(int)
            assert ours.shape == ref.shape == (3, 224, 398)
            diff = np.abs(ours - ref)
            assert diff.max() <= 1
            assert diff.mean() < 0.3  # most pixels agree exactly
    finally:
        tc.set_num_threads(old)


@pytest.mark.parametrize("size", [[37, 53], [200, 100], [5, 300]])
def test_bilinear_within_one_of_torchvision(size):
    torch = pytest.importorskip("torch")
    TF = pytest.importorskip("torchvision.transforms.functional")
    img = _photo(3, 240, 330, seed=1)
    ours = F.resize(tc.from_numpy(img), size, antialias=True).numpy().astype(int)
    ref = TF.resize(torch.from_numpy(img), size, antialias=True).numpy().astype(int)
    assert np.abs(ours - ref).max() <= 1
