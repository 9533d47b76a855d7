import io

import numpy as np
import pytest

import media
from media import hwc, to_tc, to_torch

import tensorcore as tc
from tensorcore.vision.io import ImageReadMode, decode_image, decode_png, encode_png

M = ImageReadMode
ALL_MODES = list(ImageReadMode)


def test_generated_kinds_are_what_they_claim(pngs):
    for name, (data, kind) in pngs.items():
        assert media.png_ihdr(data) == kind, name
    assert b"tRNS" in pngs["palette8_trns"][0] and b"tRNS" not in pngs["palette8"][0]
    assert b"tRNS" in pngs["gray8_trns"][0] and b"tRNS" in pngs["rgb8_trns"][0]


def pngs_bits(name):
    for bits in (16, 4, 2, 1):
        if name.startswith(("gray%d" % bits, "palette%d" % bits, "rgb%d" % bits, "rgba%d" % bits)):
            return bits
    return 8


def torchvision_agrees(name, mode):
    """Where torchvision 0.14 gives the right answer (it keeps palette indices in UNCHANGED,
    ignores tRNS outside palettes, adds a wrong alpha value below 8 bits, rejects 16 bits)."""
    bits = pngs_bits(name)
    if bits == 16:
        return False
    if name.startswith("palette"):
        return mode in (M.GRAY, M.RGB) or (mode == M.RGB_ALPHA and "trns" in name)
    if "trns" in name and mode in (M.GRAY_ALPHA, M.RGB_ALPHA):
        return False
    if bits < 8 and mode in (M.GRAY_ALPHA, M.RGB_ALPHA):
        return False
    return True


@pytest.mark.parametrize("mode", ALL_MODES, ids=lambda m: m.name)
def test_matches_torchvision_exactly(pngs, tv_io, mode):
    checked = 0
    for name, (data, _) in sorted(pngs.items()):
        if not torchvision_agrees(name, mode):
            continue
        ours = decode_png(to_tc(data), mode)
        ref = tv_io.decode_png(to_torch(data), tv_io.ImageReadMode(mode.value))
        assert ours.shape == tuple(ref.shape), name
        np.testing.assert_array_equal(ours.numpy(), ref.numpy(), err_msg=name)
        checked += 1
    assert checked >= 4


PIL_MODE = {M.GRAY: "L", M.GRAY_ALPHA: "LA", M.RGB: "RGB", M.RGB_ALPHA: "RGBA"}


@pytest.mark.filterwarnings("ignore:Palette images with Transparency")
@pytest.mark.parametrize(
    "name",
    [
        "palette8",
        "palette4",
        "palette8_trns",
        "gray8_trns",
        "rgb8_trns",
        "gray1",
        "gray2",
        "gray4",
        "gray_alpha8",
        "rgba8",
    ],
)
def test_alpha_and_palettes_match_pil(pngs, pil, name):
    if name not in pngs:
        pytest.skip("ImageMagick not installed")
    data = pngs[name][0]
    t = to_tc(data)
    im = pil.open(io.BytesIO(data))
    for mode in (M.RGB, M.RGB_ALPHA) + ((M.GRAY_ALPHA,) if "palette" not in name else ()):
        ref = np.asarray(im.convert(PIL_MODE[mode]))
        ref = ref.reshape(ref.shape[:2] + (-1,)).astype(int)
        out = hwc(decode_png(t, mode)).astype(int)
        if mode == M.GRAY_ALPHA and im.mode not in ("1", "L", "LA", "I;16"):
            # Luma from color: libpng's weights (torchvision's) and PIL's round differently.
            assert np.abs(out[..., 0] - ref[..., 0]).max() <= 1
            # PIL's RGB -> LA also drops tRNS transparency; its RGBA alpha is the reference.
            out, ref = out[..., 1], np.asarray(im.convert("RGBA"))[..., 3]
        np.testing.assert_array_equal(out, ref, err_msg=f"{name} {mode}")
    if name.startswith("palette"):  # UNCHANGED expands palettes (to RGBA when tRNS is present)
        want = "RGBA" if "trns" in name else "RGB"
        np.testing.assert_array_equal(hwc(decode_png(t)), np.asarray(im.convert(want)))


def test_unchanged_channels(pngs):
    want = {
        "gray8": 1,
        "gray1": 1,
        "gray8_trns": 1,
        "gray_alpha8": 2,
        "rgb8": 3,
        "rgba8": 4,
        "palette8": 3,
        "palette8_trns": 4,
        "gray16": 1,
        "rgb16": 3,
        "rgba16": 4,
    }
    for name, c in want.items():
        if name in pngs:
            assert decode_png(to_tc(pngs[name][0])).shape == (c, media.H, media.W), name


def test_sixteen_bit(pngs, pil):
    data = pngs["gray16"][0]
    out = decode_png(to_tc(data))
    assert out.dtype == tc.uint16
    ref = np.asarray(pil.open(io.BytesIO(data))).astype(np.uint16)
    np.testing.assert_array_equal(out.numpy()[0], ref)
    for name in ("rgb16", "rgba16", "rgba16_interlaced"):
        if name not in pngs:
            continue
        ch = 4 if "rgba" in name else 3
        out = decode_png(to_tc(pngs[name][0]))
        assert out.dtype == tc.uint16
        np.testing.assert_array_equal(hwc(out), media.known16(ch), err_msg=name)
        # RGBA from RGB adds an opaque 16-bit alpha; RGB from RGBA drops it.
        rgba = decode_png(to_tc(pngs[name][0]), M.RGB_ALPHA).numpy()
        np.testing.assert_array_equal(rgba[:3], hwc(out).transpose(2, 0, 1)[:3])
        if ch == 3:
            assert (rgba[3] == 65535).all()


def test_interlaced_equals_progressive_free(pngs):
    if "rgb8_interlaced" not in pngs:
        pytest.skip("ImageMagick not installed")
    a = decode_png(to_tc(pngs["rgb8_interlaced"][0])).numpy()
    np.testing.assert_array_equal(a.transpose(1, 2, 0), media.photo())


def test_lossless_kinds_give_the_source_pixels(pngs):
    src = media.photo()
    np.testing.assert_array_equal(hwc(decode_png(to_tc(pngs["rgb8"][0]))), src)
    np.testing.assert_array_equal(hwc(decode_png(to_tc(pngs["rgba8"][0])))[..., :3], src)


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_encode_roundtrip(channels, dtype):
    rng = np.random.default_rng(channels)
    img = rng.integers(0, np.iinfo(dtype).max + 1, size=(channels, 23, 31), dtype=dtype)
    for level in (0, 6, 9):
        data = encode_png(tc.from_numpy(img), compression_level=level)
        assert data.dtype == tc.uint8 and data.dim() == 1
        out = decode_png(data)
        assert out.dtype == (tc.uint8 if dtype == np.uint8 else tc.uint16)
        np.testing.assert_array_equal(out.numpy(), img)


def test_encode_matches_torchvision_bytes(tv_io):
    import torch

    for channels in (1, 3):
        img = np.ascontiguousarray(media.photo(30, 40)[..., :channels].transpose(2, 0, 1))
        for level in (1, 6, 9):
            ours = encode_png(tc.from_numpy(img), level).numpy()
            ref = tv_io.encode_png(torch.from_numpy(img), level).numpy()
            np.testing.assert_array_equal(ours, ref)


def test_encode_strided_input_and_pil_reads_it(pil):
    img = media.photo(20, 24)
    data = encode_png(tc.from_numpy(img).permute(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(pil.open(io.BytesIO(data.numpy().tobytes()))), img)
    flipped = tc.from_numpy(np.ascontiguousarray(img.transpose(2, 1, 0))).transpose(1, 2)
    np.testing.assert_array_equal(hwc(decode_png(encode_png(flipped))), img)


def test_encode_rejects_bad_input():
    img = tc.from_numpy(np.zeros((3, 8, 8), np.uint8))
    with pytest.raises(ValueError, match="compression_level"):
        encode_png(img, 10)
    with pytest.raises(ValueError, match="1 to 4 channels"):
        encode_png(tc.from_numpy(np.zeros((5, 8, 8), np.uint8)))
    with pytest.raises(TypeError, match="uint8 or uint16"):
        encode_png(tc.from_numpy(np.zeros((3, 8, 8), np.int32)))


def test_decode_image_detects_the_format_from_bytes(pngs, jpegs):
    png = to_tc(pngs["rgb8"][0])
    jpg = to_tc(jpegs["baseline_420"])
    np.testing.assert_array_equal(decode_image(png).numpy(), decode_png(png).numpy())
    from tensorcore.vision.io import decode_jpeg

    np.testing.assert_array_equal(
        decode_image(jpg, M.GRAY).numpy(), decode_jpeg(jpg, M.GRAY).numpy()
    )
    with pytest.raises(RuntimeError, match="not a PNG"):
        decode_png(jpg)
    with pytest.raises(RuntimeError, match="not a JPEG"):
        decode_jpeg(png)
