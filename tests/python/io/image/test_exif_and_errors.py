import os

import numpy as np
import pytest

import media
from media import hwc, to_tc

import tensorcore as tc
from tensorcore.vision.io import (
    ImageReadMode,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_png,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)

# How each EXIF orientation maps the stored pixels to the upright picture (H x W x C arrays).
UPRIGHT = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.transpose(1, 0, 2),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
    8: lambda a: np.rot90(a, 1),
}


@pytest.mark.parametrize("orientation", range(1, 9))
def test_png_exif_orientation_matches_pil(pil, orientation):
    from PIL import ImageOps

    import io

    img = pil.fromarray(media.photo())
    data = media.with_orientation(img, "PNG", orientation)
    assert b"eXIf" in data
    ref = np.asarray(ImageOps.exif_transpose(pil.open(io.BytesIO(data))))
    out = hwc(decode_png(to_tc(data), apply_exif_orientation=True))
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(out, UPRIGHT[orientation](media.photo()))
    # Not applied unless asked.
    np.testing.assert_array_equal(hwc(decode_png(to_tc(data))), media.photo())


@pytest.mark.parametrize("orientation", range(1, 9))
def test_jpeg_exif_orientation(pil, orientation):
    img = pil.fromarray(media.photo())
    data = media.with_orientation(img, "JPEG", orientation, quality=90)
    t = to_tc(data)
    stored = hwc(decode_jpeg(t, ImageReadMode.RGB))
    for mode in (ImageReadMode.RGB, ImageReadMode.GRAY_ALPHA):
        upright = hwc(decode_jpeg(t, mode, apply_exif_orientation=True))
        np.testing.assert_array_equal(upright, UPRIGHT[orientation](hwc(decode_jpeg(t, mode))))
    np.testing.assert_array_equal(
        hwc(decode_image(t, ImageReadMode.RGB, True)), UPRIGHT[orientation](stored)
    )
    outs = decode_jpeg([t, t], apply_exif_orientation=True)
    np.testing.assert_array_equal(hwc(outs[1]), UPRIGHT[orientation](stored))


def test_exif_orientation_16bit_png(pngs, pil):
    # Orientation also applies to 2-byte samples (bytes_per_sample = 2).
    import io

    data = pngs["gray16"][0]
    arr = np.asarray(pil.open(io.BytesIO(data))).astype(np.uint16)
    out = decode_png(encode_png(tc.from_numpy(arr[None].copy())))
    np.testing.assert_array_equal(out.numpy()[0], arr)


def corrupt_variants(data, seed):
    """Truncations and byte flips of `data` (deterministic)."""
    rng = np.random.default_rng(seed)
    out = [data[:n] for n in (1, 2, 3, 8, 20, 100, len(data) // 3, len(data) // 2, len(data) - 30)]
    arr = np.frombuffer(data, np.uint8)
    for _ in range(40):
        a = arr.copy()
        idx = rng.integers(0, len(a), size=int(rng.integers(1, 8)))
        a[idx] = rng.integers(0, 256, size=len(idx))
        out.append(a.tobytes())
    return out


def check_decode_fails_cleanly(fn, data):
    try:
        fn(to_tc(data))
    except RuntimeError as e:
        assert str(e), "empty error message"
        assert isinstance(e, tc.DecodeError), repr(e)
        return True
    return False


def test_truncated_files_raise(jpegs, pngs):
    for name in ("baseline_420", "progressive", "arithmetic", "cmyk_pil", "restart"):
        if name not in jpegs:
            continue
        data = jpegs[name]
        for n in (0, 2, 50, len(data) // 2, len(data) - 10):
            with pytest.raises(tc.DecodeError, match="decode_jpeg: ") as e:
                decode_jpeg(to_tc(data[:n]))
            assert any(
                w in str(e.value)
                for w in ("empty", "Premature end", "not a JPEG", "EOI", "Corrupt", "corrupt")
            ), str(e.value)
    for name in ("rgb8", "rgb8_interlaced", "palette8_trns", "gray16"):
        if name not in pngs:
            continue
        data = pngs[name][0]
        for n in (0, 4, 30, len(data) // 2, len(data) - 13):
            with pytest.raises(tc.DecodeError, match="decode_png: "):
                decode_png(to_tc(data[:n]))


def test_empty_and_non_image_input():
    empty = tc.from_numpy(np.zeros(0, np.uint8))
    for fn, word in (
        (decode_jpeg, "decode_jpeg"),
        (decode_png, "decode_png"),
        (decode_image, "decode_image"),
    ):
        with pytest.raises(RuntimeError, match=f"{word}: the input is empty"):
            fn(empty)
    text = to_tc(b"GIF89a this is not something we decode")
    with pytest.raises(RuntimeError, match="unsupported image format.*47 49 46 38"):
        decode_image(text)
    with pytest.raises(RuntimeError, match="not a JPEG"):
        decode_jpeg(text)
    with pytest.raises(RuntimeError, match="PNG signature"):
        decode_png(text)


def test_bad_argument_types():
    with pytest.raises(TypeError, match="uint8"):
        decode_jpeg(tc.from_numpy(np.zeros(10, np.float32)))
    with pytest.raises(ValueError, match="1-D"):
        decode_png(tc.from_numpy(np.zeros((2, 10), np.uint8)))
    with pytest.raises(ValueError, match="ImageReadMode"):
        decode_image(to_tc(b"\x89PNG"), 7)
    with pytest.raises(NotImplementedError, match="cpu"):
        decode_jpeg(to_tc(b"\xff\xd8\xff"), device="cuda")


def test_corrupt_corpus_never_crashes(jpegs, pngs):
    """Byte flips may still decode (JPEG is forgiving); otherwise a DecodeError, never a crash."""
    failed = 0
    total = 0
    for i, name in enumerate(sorted(jpegs)):
        for d in corrupt_variants(jpegs[name], i):
            total += 1
            failed += check_decode_fails_cleanly(lambda t: decode_image(t, ImageReadMode.RGB), d)
    for i, name in enumerate(sorted(pngs)):
        for d in corrupt_variants(pngs[name][0], 100 + i):
            total += 1
            failed += check_decode_fails_cleanly(decode_png, d)
    assert failed > total // 4  # the corruptions are real: many must be rejected


def test_non_contiguous_input_bytes(jpegs):
    data = np.frombuffer(jpegs["baseline_420"], np.uint8)
    doubled = np.repeat(data, 2)  # every other element is the file
    view = tc.from_numpy(doubled)[::2]
    assert not view.is_contiguous()
    np.testing.assert_array_equal(
        decode_jpeg(view).numpy(), decode_jpeg(to_tc(data.tobytes())).numpy()
    )


def test_file_roundtrip(tmp_path, pngs):
    data = to_tc(pngs["rgba8"][0])
    p = tmp_path / "x.bin"
    write_file(str(p), data)
    back = read_file(p)  # os.PathLike works too
    assert back.dtype == tc.uint8 and back.dim() == 1
    np.testing.assert_array_equal(back.numpy(), data.numpy())
    # read_image looks at the bytes, not the extension.
    np.testing.assert_array_equal(read_image(str(p)).numpy(), decode_png(data).numpy())
    img = decode_png(data, ImageReadMode.RGB)
    write_png(img, str(tmp_path / "y.png"), 9)
    np.testing.assert_array_equal(read_image(str(tmp_path / "y.png")).numpy(), img.numpy())
    write_jpeg(img, str(tmp_path / "y.jpg"), 90)
    assert read_image(str(tmp_path / "y.jpg"), ImageReadMode.GRAY).shape == (1, media.H, media.W)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert read_file(str(empty)).numel() == 0
    with pytest.raises(RuntimeError, match="empty"):
        read_image(str(empty))
    with pytest.raises(RuntimeError, match="cannot open.*nope"):
        read_file(str(tmp_path / "nope.png"))
    with pytest.raises(RuntimeError, match="cannot open"):
        write_file(os.path.join(str(tmp_path), "no_dir", "x"), data)


def test_forged_huge_progressive_header_is_refused(pil):
    """A progressive JPEG keeps all coefficients in memory: a tiny file claiming 65500 x 65500
    must fail fast instead of clearing 25 GB."""
    import io

    buf = io.BytesIO()
    pil.fromarray(np.zeros((64, 64, 3), np.uint8)).save(buf, "JPEG", progressive=True)
    data = bytearray(buf.getvalue())
    sof = data.find(b"\xff\xc2")
    assert sof > 0 and data[sof + 5 : sof + 9] == b"\x00\x40\x00\x40"
    data[sof + 5 : sof + 9] = b"\xff\xdc\xff\xdc"
    with pytest.raises(tc.DecodeError, match="forged or corrupt header"):
        decode_jpeg(to_tc(bytes(data)))


def test_orientation_on_a_large_image(pil):
    """Big enough that freed buffers go back to the OS: the rotation must read live memory."""
    img = media.photo(300, 420, seed=5)
    data = media.with_orientation(pil.fromarray(img), "PNG", 6, compress_level=1)
    for _ in range(3):
        out = hwc(decode_png(to_tc(data), apply_exif_orientation=True))
        np.testing.assert_array_equal(out, np.rot90(img, -1))
