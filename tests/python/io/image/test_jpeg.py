import io

import numpy as np
import pytest

import media
from media import hwc, to_tc, to_torch

import tensorcore as tc
from tensorcore.vision.io import ImageReadMode, decode_image, decode_jpeg, encode_jpeg

MODES = [ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB]
CMYK = ("cmyk_pil", "cmyk_imagemagick")


def kinds(jpegs, cmyk=False):
    return sorted(k for k in jpegs if (k in CMYK) == cmyk)


def test_generated_kinds_are_what_they_claim(jpegs):
    def sof(data):  # the frame marker says baseline/progressive/arithmetic
        i = 2
        while i < len(data):
            m = data[i + 1]
            if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
                return m
            i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
        return None

    assert sof(jpegs["baseline_420"]) == 0xC0
    assert sof(jpegs["progressive"]) == 0xC2
    if "arithmetic" in jpegs:
        assert sof(jpegs["arithmetic"]) == 0xC9
        assert sof(jpegs["arithmetic_progressive"]) == 0xCA
        assert b"\xff\xdd" in jpegs["restart"]  # DRI marker
        assert b"\xff\xd0" in jpegs["restart"]  # RST0 in the entropy data


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_matches_torchvision_exactly(jpegs, tv_io, mode):
    checked = 0
    for name in kinds(jpegs):
        data = jpegs[name]
        ours = decode_jpeg(to_tc(data), mode)
        ref = tv_io.decode_jpeg(to_torch(data), tv_io.ImageReadMode(mode.value))
        assert ours.shape == tuple(ref.shape), name
        assert ours.dtype == tc.uint8
        np.testing.assert_array_equal(ours.numpy(), ref.numpy(), err_msg=name)
        checked += 1
    assert checked >= 6


def test_alpha_modes_add_opaque_alpha(jpegs, tv_io):
    for name in kinds(jpegs):
        t = to_tc(jpegs[name])
        gray = decode_jpeg(t, ImageReadMode.GRAY).numpy()
        rgb = decode_jpeg(t, ImageReadMode.RGB).numpy()
        ga = decode_jpeg(t, ImageReadMode.GRAY_ALPHA).numpy()
        rgba = decode_jpeg(t, ImageReadMode.RGB_ALPHA).numpy()
        assert ga.shape[0] == 2 and rgba.shape[0] == 4
        np.testing.assert_array_equal(ga[0], gray[0], err_msg=name)
        np.testing.assert_array_equal(rgba[:3], rgb, err_msg=name)
        assert (ga[1] == 255).all() and (rgba[3] == 255).all()


def test_unchanged_channels(jpegs):
    assert decode_jpeg(to_tc(jpegs["gray"])).shape == (1, media.H, media.W)
    assert decode_jpeg(to_tc(jpegs["baseline_420"])).shape == (3, media.H, media.W)


def test_decoded_pixels_are_close_to_the_source(jpegs):
    src = media.photo().astype(np.int32)
    out = hwc(decode_jpeg(to_tc(jpegs["baseline_444"]))).astype(np.int32)
    assert np.abs(out - src).mean() < 4


@pytest.mark.parametrize("name", CMYK)
def test_cmyk_matches_pil(jpegs, pil, name):
    if name not in jpegs:
        pytest.skip("ImageMagick not installed")
    data = jpegs[name]
    im = pil.open(io.BytesIO(data))
    assert im.mode == "CMYK"
    ref_rgb = np.asarray(im.convert("RGB"))
    ref_l = np.asarray(im.convert("L"))
    t = to_tc(data)
    np.testing.assert_array_equal(hwc(decode_jpeg(t, ImageReadMode.RGB)), ref_rgb)
    # UNCHANGED keeps the 4 channels, with PIL's samples (its "CMYK" mode).
    np.testing.assert_array_equal(hwc(decode_jpeg(t, ImageReadMode.UNCHANGED)), np.asarray(im))
    np.testing.assert_array_equal(hwc(decode_image(t)), np.asarray(im))
    np.testing.assert_array_equal(decode_jpeg(t, ImageReadMode.GRAY).numpy()[0], ref_l)
    rgba = decode_jpeg(t, ImageReadMode.RGB_ALPHA).numpy()
    np.testing.assert_array_equal(rgba[:3].transpose(1, 2, 0), ref_rgb)
    assert (rgba[3] == 255).all()
    # And it is the picture we encoded, not an inverted or channel-swapped one.
    assert np.abs(ref_rgb.astype(int) - media.photo().astype(int)).mean() < 6


@pytest.mark.parametrize("name", CMYK)
def test_cmyk_unchanged_matches_torchvision(jpegs, tv_io, name):
    # torchvision 0.14 returns the 4 channels too, as libjpeg gives them: Adobe-inverted (what
    # the file stores); we return PIL's samples, i.e. 255 minus torchvision's.
    import torch

    if name not in jpegs:
        pytest.skip("ImageMagick not installed")
    data = jpegs[name]
    ref = tv_io.decode_jpeg(torch.frombuffer(bytearray(data), dtype=torch.uint8))
    ours = decode_jpeg(to_tc(data), ImageReadMode.UNCHANGED)
    assert tuple(ours.shape) == tuple(ref.shape) == (4, *ours.shape[1:])
    np.testing.assert_array_equal(ours.numpy(), 255 - ref.numpy())


def test_ycck_is_detected(jpegs):
    # libjpeg writes CMYK as YCCK (Adobe transform 2) by default: PIL's file is YCCK.
    data = jpegs["cmyk_pil"]
    i = data.find(b"Adobe")
    assert i > 0 and data[i + 11] in (0, 2)


def test_encode_matches_torchvision_bytes(tv_io):
    import torch

    img = media.photo(64, 80)
    chw = tc.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    ref_in = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    for q in (1, 50, 75, 95, 100):
        ours = encode_jpeg(chw, quality=q).numpy()
        ref = tv_io.encode_jpeg(ref_in, quality=q).numpy()
        np.testing.assert_array_equal(ours, ref)
    gray = chw[:1]
    np.testing.assert_array_equal(
        encode_jpeg(gray, 90).numpy(), tv_io.encode_jpeg(ref_in[:1], 90).numpy()
    )


def test_encode_roundtrip_and_strided_input():
    img = media.photo(40, 56)
    planar = tc.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    view = tc.from_numpy(img).permute(2, 0, 1)  # channels-last memory
    a = encode_jpeg(planar, 95)
    b = encode_jpeg(view, 95)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    back = hwc(decode_jpeg(a)).astype(int)
    assert np.abs(back - img.astype(int)).mean() < 3


def test_encode_rejects_bad_input():
    img = tc.from_numpy(np.zeros((3, 8, 8), np.uint8))
    with pytest.raises(ValueError, match="quality"):
        encode_jpeg(img, 0)
    with pytest.raises(ValueError, match="quality"):
        encode_jpeg(img, 101)
    with pytest.raises(ValueError, match="1 or 3 channels"):
        encode_jpeg(tc.from_numpy(np.zeros((2, 8, 8), np.uint8)))
    with pytest.raises(TypeError, match="uint8"):
        encode_jpeg(tc.from_numpy(np.zeros((3, 8, 8), np.float32)))
    with pytest.raises(ValueError, match="C x H x W"):
        encode_jpeg(tc.from_numpy(np.zeros((8, 8), np.uint8)))


def test_batched_decode_matches_single(jpegs):
    names = kinds(jpegs) + kinds(jpegs, cmyk=True)
    datas = [to_tc(jpegs[n]) for n in names] * 3
    for threads in (1, 2, 4):
        outs = decode_jpeg(datas, ImageReadMode.RGB, num_threads=threads)
        assert isinstance(outs, list) and len(outs) == len(datas)
        for d, o in zip(datas, outs):
            np.testing.assert_array_equal(o.numpy(), decode_jpeg(d, ImageReadMode.RGB).numpy())
    outs = decode_image(datas[:4])
    assert [tuple(o.shape) for o in outs] == [tuple(decode_image(d).shape) for d in datas[:4]]
    assert decode_jpeg([]) == []


def test_batched_decode_reports_the_bad_index(jpegs):
    good = to_tc(jpegs["baseline_420"])
    bad = to_tc(jpegs["baseline_420"][:200])
    with pytest.raises(RuntimeError, match="image 2 of 4"):
        decode_jpeg([good, good, bad, good])
    with pytest.raises(RuntimeError, match="image 1 of 2"):
        decode_image([good, to_tc(b"not an image at all")])


def test_accepts_torchvision_read_modes(jpegs, tv_io):
    t = to_tc(jpegs["baseline_420"])
    np.testing.assert_array_equal(
        decode_jpeg(t, tv_io.ImageReadMode.GRAY).numpy(), decode_jpeg(t, ImageReadMode.GRAY).numpy()
    )
    assert decode_image(t, 4).shape[0] == 4
    assert decode_image(t, "RGBA").shape[0] == 4 and decode_image(t, "gray").shape[0] == 1
    with pytest.raises(ValueError, match="unknown image read mode"):
        decode_image(t, "CMYK")


def test_concurrent_python_threads_decode_consistently(jpegs, pngs):
    """The bindings release the GIL: decodes from many Python threads run at once and agree."""
    from concurrent.futures import ThreadPoolExecutor

    datas = [to_tc(jpegs[n]) for n in kinds(jpegs)] + [to_tc(d) for d, _ in pngs.values()]
    want = [decode_image(d, ImageReadMode.RGB).numpy() for d in datas]
    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            got = list(pool.map(lambda d: decode_image(d, ImageReadMode.RGB).numpy(), datas))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
