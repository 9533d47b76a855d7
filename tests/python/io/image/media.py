"""Generates the test media with real tools (PIL, ImageMagick's convert, libjpeg-turbo's cjpeg)
into a directory; each entry records how the file was made so tests can pick a reference."""

import io
import os
import shutil
import subprocess

import numpy as np

import tensorcore as tc

H, W = 29, 37  # odd sizes exercise partial MCUs and row padding


def photo(h=H, w=W, seed=0):
    """A smooth RGB picture with some texture (compresses like a photo, not like noise)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack(
        [
            (x * 255 // max(w - 1, 1)),
            (y * 255 // max(h - 1, 1)),
            ((x + y) * 127 // max(h + w - 2, 1)),
        ],
        -1,
    ).astype(np.int32)
    img += rng.integers(-6, 7, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def have(tool):
    return shutil.which(tool) is not None


def run(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)


def png_ihdr(data):
    """(bit depth, color type, interlace) from a PNG's IHDR chunk."""
    assert data[12:16] == b"IHDR"
    return data[24], data[25], data[28]


def pil_save(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def make_jpegs(root):
    """name -> bytes for every JPEG kind. Needs PIL; cjpeg/convert kinds when present."""
    from PIL import Image

    rgb = Image.fromarray(photo())
    out = {
        "baseline_420": pil_save(rgb, "JPEG", quality=90, subsampling=2),
        "baseline_422": pil_save(rgb, "JPEG", quality=90, subsampling=1),
        "baseline_444": pil_save(rgb, "JPEG", quality=90, subsampling=0),
        "progressive": pil_save(rgb, "JPEG", quality=85, progressive=True),
        "optimized": pil_save(rgb, "JPEG", quality=50, optimize=True),
        "gray": pil_save(rgb.convert("L"), "JPEG", quality=90),
        "cmyk_pil": pil_save(rgb.convert("CMYK"), "JPEG", quality=95),
    }
    ppm = os.path.join(root, "src.ppm")
    rgb.save(ppm)
    if have("cjpeg"):
        for name, args in {
            "arithmetic": ["-arithmetic"],
            "arithmetic_progressive": ["-arithmetic", "-progressive"],
            "restart": ["-restart", "1B"],
            "restart_rows": ["-restart", "2"],
            "sample_411": ["-sample", "4x1"],
            "sample_440": ["-sample", "1x2"],
            "sample_410": ["-sample", "4x2"],
            "rgb_no_transform": ["-rgb"],
            "gray_cjpeg": ["-grayscale"],
        }.items():
            path = os.path.join(root, name + ".jpg")
            run("cjpeg", *args, "-quality", "88", "-outfile", path, ppm)
            out[name] = open(path, "rb").read()
    if have("convert"):
        path = os.path.join(root, "cmyk_im.jpg")
        run("convert", ppm, "-colorspace", "CMYK", "-quality", "92", path)
        out["cmyk_imagemagick"] = open(path, "rb").read()
    return out


def make_pngs(root):
    """name -> (bytes, expected (bit depth, color type, interlace))."""
    from PIL import Image

    rgb = photo()
    rng = np.random.default_rng(1)
    alpha = rng.integers(0, 256, size=(H, W), dtype=np.uint8)
    gray = Image.fromarray(rgb).convert("L")
    out = {
        "gray8": (pil_save(gray, "PNG"), (8, 0, 0)),
        "gray1": (pil_save(gray.convert("1"), "PNG"), (1, 0, 0)),
        "gray8_trns": (pil_save(gray, "PNG", transparency=int(np.asarray(gray)[3, 4])), (8, 0, 0)),
        "gray_alpha8": (
            pil_save(Image.fromarray(np.dstack([np.asarray(gray), alpha]), "LA"), "PNG"),
            (8, 4, 0),
        ),
        "rgb8": (pil_save(Image.fromarray(rgb), "PNG"), (8, 2, 0)),
        "rgb8_trns": (
            pil_save(Image.fromarray(rgb), "PNG", transparency=tuple(int(v) for v in rgb[2, 2])),
            (8, 2, 0),
        ),
        "rgba8": (pil_save(Image.fromarray(np.dstack([rgb, alpha]), "RGBA"), "PNG"), (8, 6, 0)),
        "palette8": (pil_save(Image.fromarray(rgb).quantize(200), "PNG"), (8, 3, 0)),
        "palette4": (pil_save(Image.fromarray(rgb).quantize(16), "PNG", bits=4), (4, 3, 0)),
        "gray16": (
            pil_save(Image.fromarray((rgb[..., 0].astype(np.uint16) * 257 + 3), "I;16"), "PNG"),
            (16, 0, 0),
        ),
    }
    pal = Image.fromarray(rgb).quantize(64)
    pal.info["transparency"] = bytes(range(0, 256, 4))[:64]
    out["palette8_trns"] = (
        pil_save(pal, "PNG", transparency=bytes(range(0, 256, 4))[:64]),
        (8, 3, 0),
    )
    if have("convert"):
        src = os.path.join(root, "src.png")
        Image.fromarray(rgb).save(src)
        for name, args, kind in [
            ("gray2", ["-colorspace", "Gray", "-depth", "2"], (2, 0, 0)),
            ("gray4", ["-colorspace", "Gray", "-depth", "4"], (4, 0, 0)),
            ("rgb8_interlaced", ["-interlace", "PNG"], (8, 2, 1)),
        ]:
            path = os.path.join(root, name + ".png")
            run("convert", src, *args, "png:" + path)
            out[name] = (open(path, "rb").read(), kind)
        # 16-bit RGB(A)/gray+alpha from known raw samples (big-endian, as ImageMagick reads them).
        for name, ch, fmt, kind in [
            ("rgb16", 3, "rgb", (16, 2, 0)),
            ("rgba16", 4, "rgba", (16, 6, 0)),
            ("rgba16_interlaced", 4, "rgba", (16, 6, 1)),
        ]:
            raw = known16(ch)
            rawpath = os.path.join(root, name + ".raw")
            raw.astype(">u2").tofile(rawpath)
            path = os.path.join(root, name + ".png")
            extra = ["-interlace", "PNG"] if "interlaced" in name else []
            run(
                "convert",
                "-size",
                f"{W}x{H}",
                "-depth",
                "16",
                "-endian",
                "MSB",
                f"{fmt}:{rawpath}",
                *extra,
                "png:" + path,
            )
            out[name] = (open(path, "rb").read(), kind)
    return out


def known16(channels):
    """The H x W x C uint16 samples written into the 16-bit ImageMagick PNGs."""
    rng = np.random.default_rng(7)
    return rng.integers(0, 65536, size=(H, W, channels), dtype=np.uint16)


def with_orientation(img, fmt, orientation, **kw):
    """`img` saved by PIL with an EXIF block whose orientation tag is `orientation`."""
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = orientation
    return pil_save(img, fmt, exif=exif, **kw)


# Shared by the imageio tests (not in conftest.py: another folder's conftest may be imported
# first under that module name).
def to_tc(data: bytes):
    return tc.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


def to_torch(data: bytes):
    import torch

    return torch.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


def hwc(t):
    """tensorcore/torch C x H x W tensor -> H x W x C numpy array."""
    return np.ascontiguousarray(t.numpy().transpose(1, 2, 0))
