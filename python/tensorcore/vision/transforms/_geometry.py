"""Geometric functional transforms: resize, crops, pad, flips, rotate, affine, perspective."""

import numbers

import numpy as np

import tensorcore as tc

from ._common import V, InterpolationMode, as_batch, check_image, interpolation_mode, kernel_code


def get_dimensions(img):
    check_image(img, "get_dimensions")
    c = img.shape[-3] if img.dim() >= 3 else 1
    return [c, img.shape[-2], img.shape[-1]]


def get_image_size(img):
    _, h, w = get_dimensions(img)
    return [w, h]


def _resized_output_size(h, w, size, max_size):
    if isinstance(size, numbers.Integral) or len(size) == 1:
        requested = int(size if isinstance(size, numbers.Integral) else size[0])
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(
                    f"resize: max_size = {max_size} must be strictly greater than the "
                    f"requested size for the smaller edge size = {size}"
                )
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        return (new_long, new_short) if w <= h else (new_short, new_long)
    if max_size is not None:
        raise ValueError(
            "resize: max_size is only supported when size is an int or a 1-element sequence"
        )
    return int(size[0]), int(size[1])


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=None):
    """Resizes (..., H, W). antialias=None means on when downscaling with bilinear/bicubic
    (torchvision 0.14 defaults to off for tensors; Pillow always filters)."""
    check_image(img, "resize")
    mode = interpolation_mode(interpolation, "resize")
    if not isinstance(size, (numbers.Integral, list, tuple)) or (
        not isinstance(size, numbers.Integral) and len(size) not in (1, 2)
    ):
        raise TypeError(f"resize: size should be an int or a sequence of 1 or 2 ints, got {size!r}")
    h, w = img.shape[-2], img.shape[-1]
    if h == 0 or w == 0:
        raise ValueError(f"resize: input image is empty ({h}x{w})")
    oh, ow = _resized_output_size(h, w, size, max_size)
    if (oh, ow) == (h, w):
        return img
    if antialias is None:
        antialias = oh < h or ow < w
    aa = bool(antialias) and mode != InterpolationMode.NEAREST
    if img.dtype not in (tc.uint8, tc.float32, tc.float64):
        out = V.resize(img.float(), oh, ow, kernel_code(mode), aa)
        return out.round().to(img.dtype) if mode != InterpolationMode.NEAREST else out.to(img.dtype)
    return V.resize(img, oh, ow, kernel_code(mode), aa)


def crop(img, top, left, height, width):
    """Crops (..., H, W); regions outside the image are zero-padded like torchvision."""
    check_image(img, "crop")
    h, w = img.shape[-2], img.shape[-1]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        # A window partly or wholly outside the image: the kept part, then zero padding up to
        # the requested size (torchvision's bookkeeping, including windows beyond an edge).
        pad_ltrb = [
            max(-left + min(0, right), 0),
            max(-top + min(0, bottom), 0),
            max(right - max(w, left), 0),
            max(bottom - max(h, top), 0),
        ]
        sub = img[
            ...,
            max(top, 0) : max(min(bottom, h), max(top, 0)),
            max(left, 0) : max(min(right, w), max(left, 0)),
        ]
        return pad(sub, pad_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def center_crop(img, output_size):
    check_image(img, "center_crop")
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    ch, cw = output_size
    h, w = img.shape[-2], img.shape[-1]
    if ch > h or cw > w:
        pad_ltrb = [
            (cw - w) // 2 if cw > w else 0,
            (ch - h) // 2 if ch > h else 0,
            (cw - w + 1) // 2 if cw > w else 0,
            (ch - h + 1) // 2 if ch > h else 0,
        ]
        img = pad(img, pad_ltrb, fill=0)
        h, w = img.shape[-2], img.shape[-1]
        if ch == h and cw == w:
            return img
    top, left = int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))
    return crop(img, top, left, ch, cw)


def resized_crop(
    img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=None
):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def five_crop(img, size):
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("five_crop: please provide only two dimensions (h, w) for size.")
    _, h, w = get_dimensions(img)
    ch, cw = size
    if cw > w or ch > h:
        raise ValueError(
            f"five_crop: requested crop size {size} is bigger than input size {(h, w)}"
        )
    tl = crop(img, 0, 0, ch, cw)
    tr = crop(img, 0, w - cw, ch, cw)
    bl = crop(img, h - ch, 0, ch, cw)
    br = crop(img, h - ch, w - cw, ch, cw)
    return tl, tr, bl, br, center_crop(img, [ch, cw])


def ten_crop(img, size, vertical_flip=False):
    first = five_crop(img, size)
    second = five_crop(vflip(img) if vertical_flip else hflip(img), size)
    return first + second


def hflip(img):
    check_image(img, "hflip")
    return img.flip(-1)


def vflip(img):
    check_image(img, "vflip")
    return img.flip(-2)


def _parse_padding(padding):
    if isinstance(padding, numbers.Integral):
        return [int(padding)] * 4
    if isinstance(padding, (tuple, list)):
        if len(padding) == 1:
            return [int(padding[0])] * 4
        if len(padding) == 2:
            return [int(padding[0]), int(padding[1])] * 2
        if len(padding) == 4:
            return [int(p) for p in padding]
    raise ValueError(
        f"pad: padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}"
    )


def _pad_index(n, before, after, mode):
    idx = np.arange(-before, n + after)
    if mode == "edge":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "reflect":
        if before >= n or after >= n:
            raise ValueError(
                f"pad: reflect padding ({before}, {after}) must be smaller than the "
                f"dimension size {n}"
            )
        period = 2 * (n - 1) if n > 1 else 1
        idx = np.abs(idx) % period if n > 1 else np.zeros_like(idx)
        idx = np.where(idx >= n, period - idx, idx)
    elif mode == "symmetric":
        period = 2 * n
        idx = np.mod(idx, period)
        idx = np.where(idx >= n, period - 1 - idx, idx)
    return tc.from_numpy(idx.astype(np.int64))


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads the last two dims by [left, top, right, bottom]; negative padding crops."""
    check_image(img, "pad")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError(
            f"pad: padding_mode should be constant, edge, reflect or symmetric, "
            f"got {padding_mode!r}"
        )
    left, top, right, bottom = _parse_padding(padding)
    # Negative padding crops first.
    h, w = img.shape[-2], img.shape[-1]
    img = img[..., max(-top, 0) : h - max(-bottom, 0), max(-left, 0) : w - max(-right, 0)]
    left, top, right, bottom = max(left, 0), max(top, 0), max(right, 0), max(bottom, 0)
    if left == top == right == bottom == 0:
        return img
    h, w = img.shape[-2], img.shape[-1]
    if padding_mode == "constant":
        if isinstance(fill, (tuple, list)):
            if len(fill) != 1:
                raise ValueError("pad: constant padding takes a single fill value for tensors")
            fill = fill[0]
        shape = list(img.shape[:-2]) + [h + top + bottom, w + left + right]
        out = tc.full(shape, fill if fill is not None else 0, dtype=img.dtype, device=img.device)
        out[..., top : top + h, left : left + w] = img
        return out
    rows = _pad_index(h, top, bottom, padding_mode).to(img.device)
    cols = _pad_index(w, left, right, padding_mode).to(img.device)
    return img.index_select(-2, rows).index_select(-1, cols)


# ---- affine family -------------------------------------------------------------------------


def _center_arg(center):
    return None if center is None else (float(center[0]), float(center[1]))


def _rotation(h, w, angle, center):
    """Inverse affine of rotate(angle) (C++, shared with the deployment pipeline)."""
    return V.affine_for_image(h, w, -float(angle), 0.0, 0.0, 1.0, 0.0, 0.0, _center_arg(center))


def _affine_pixel_matrix(m, h, w, oh, ow):
    """Centered inverse affine (torchvision's convention) -> 3x3 map from output pixel index to
    input pixel coordinates."""
    return list(V.affine_pixel_matrix(m, h, w, oh, ow))


def rotation_matrix(img_size, angle, center=None, out_size=None):
    """The 3x3 output-pixel -> input-pixel matrix of rotate() for an image of (h, w), rendered
    into out_size (default: the input size) with the rotation centre at the output centre."""
    h, w = img_size
    oh, ow = out_size if out_size is not None else (h, w)
    return _affine_pixel_matrix(_rotation(h, w, angle, center), h, w, oh, ow)


def rotated_size(img_size, angle, center=None):
    """rotate(expand=True)'s output (h, w) for an image of img_size."""
    h, w = img_size
    return tuple(V.expanded_size(_rotation(h, w, angle, center), h, w))


def _fill_list(fill, op):
    if fill is None:
        return None
    if isinstance(fill, numbers.Number):
        return [float(fill)]
    if isinstance(fill, (tuple, list)):
        return [float(f) for f in fill]
    raise TypeError(f"{op}: fill should be a number, a sequence of numbers or None, got {fill!r}")


def _warp(img, matrices, oh, ow, interpolation, fill, op):
    mode = interpolation_mode(interpolation, op)
    if mode == InterpolationMode.BICUBIC:
        raise ValueError(f"{op}: interpolation must be nearest or bilinear for tensors")
    batch, restore = as_batch(img)
    fl = _fill_list(fill, op)
    if fl is not None and len(fl) not in (1, batch.shape[1]):
        raise ValueError(
            f"{op}: fill has {len(fl)} values but the image has {batch.shape[1]} channels"
        )
    dtype = batch.dtype
    if dtype not in (tc.uint8, tc.float32, tc.float64):
        out = V.warp(batch.float(), matrices, oh, ow, kernel_code(mode), fl)
        out = out.round().to(dtype) if mode != InterpolationMode.NEAREST else out.to(dtype)
    else:
        out = V.warp(batch, matrices, oh, ow, kernel_code(mode), fl)
    return restore(out)


def _check_angle(angle, op):
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"{op}: angle should be a number, got {type(angle).__name__}")


def rotate(
    img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None
):
    check_image(img, "rotate")
    _check_angle(angle, "rotate")
    h, w = img.shape[-2], img.shape[-1]
    oh, ow = rotated_size((h, w), angle, center) if expand else (h, w)
    return _warp(
        img, rotation_matrix((h, w), angle, center, (oh, ow)), oh, ow, interpolation, fill, "rotate"
    )


def _parse_shear(shear):
    if isinstance(shear, numbers.Number):
        return [float(shear), 0.0]
    if isinstance(shear, (list, tuple)):
        if len(shear) == 1:
            return [float(shear[0]), float(shear[0])]
        if len(shear) == 2:
            return [float(shear[0]), float(shear[1])]
    raise ValueError(
        f"affine: shear should be a number or a sequence of 1 or 2 numbers, got {shear!r}"
    )


def affine_matrix(img_size, angle, translate, scale, shear, center=None):
    """The 3x3 output-pixel -> input-pixel matrix of affine() for an image of (h, w)."""
    h, w = img_size
    shx, shy = _parse_shear(shear)
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    m = V.affine_for_image(
        h,
        w,
        float(angle),
        float(translate[0]),
        float(translate[1]),
        float(scale),
        shx,
        shy,
        _center_arg(center),
    )
    return _affine_pixel_matrix(m, h, w, h, w)


def affine(
    img,
    angle,
    translate,
    scale,
    shear,
    interpolation=InterpolationMode.NEAREST,
    fill=None,
    center=None,
):
    check_image(img, "affine")
    _check_angle(angle, "affine")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"affine: translate should be a sequence of length 2, got {translate!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    h, w = img.shape[-2], img.shape[-1]
    mat = affine_matrix((h, w), angle, translate, scale, shear, center)
    return _warp(img, mat, h, w, interpolation, fill, "affine")


def perspective_matrix(startpoints, endpoints):
    """The 3x3 output-pixel -> input-pixel matrix of perspective() (C++, shared with the
    deployment pipeline)."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError("perspective: startpoints and endpoints must each hold 4 points")
    flat = [[float(v) for p in pts for v in p] for pts in (startpoints, endpoints)]
    if len(flat[0]) != 8 or len(flat[1]) != 8:
        raise ValueError("perspective: each point should have 2 coordinates")
    return list(V.perspective_matrix(flat[0], flat[1]))


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    check_image(img, "perspective")
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError("perspective: startpoints and endpoints must each hold 4 points")
    h, w = img.shape[-2], img.shape[-1]
    return _warp(
        img, perspective_matrix(startpoints, endpoints), h, w, interpolation, fill, "perspective"
    )
