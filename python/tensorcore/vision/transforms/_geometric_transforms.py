"""Geometric transform classes. Each works on single images, batches (per-sample parameters) and
dict samples {"image", "boxes", "labels", "masks"} (boxes xyxy, clipped, degenerate ones dropped)."""

import math
import numbers

import numpy as np

import tensorcore as tc

from . import functional as F
from . import _geometry as _G
from ._base import (
    Transform,
    apply_each,
    apply_where,
    finish_boxes,
    masks_as_batch,
    per_sample,
    transform_points_boxes,
    _boxes_np,
)
from ._common import V, InterpolationMode, interpolation_mode


def _size_pair(size, name):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, (tuple, list)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{name}: size should be an int or a sequence of 1 or 2 ints, got {size!r}")


def _map_masks(out, fn):
    if "masks" in out and isinstance(out["masks"], tc.Tensor):
        m = out["masks"]
        dtype = m.dtype
        batch, restore = masks_as_batch(m.to(tc.uint8) if dtype == tc.bool else m)
        res = restore(fn(batch))
        out["masks"] = res.to(tc.bool) if dtype == tc.bool else res
    return out


def _shift_boxes(out, sample, dx, dy, size):
    if "boxes" in sample:
        b = _boxes_np(sample).reshape(-1, 4) + np.array([dx, dy, dx, dy], dtype=np.float64)
        finish_boxes(out, sample, b, size)
    return out


def _interp_name(mode):
    return interpolation_mode(mode).value


def _crop_flip(batch, tops, lefts, hflip, vflip, h, w):
    """Per-sample windows and flips (1 or N entries each): the C++ kernel on the CPU, slices and
    flips (core ops, which run on the device) for CUDA tensors."""
    if not batch.is_cuda:
        return V.crop_flip(batch, tops, lefts, hflip, vflip, h, w)
    return _crop_flip_composed(batch, tops, lefts, hflip, vflip, h, w)


def _crop_flip_composed(batch, tops, lefts, hflip, vflip, h, w):
    n = batch.shape[0]
    if n == 0:
        return batch[:, :, :h, :w]
    outs = []
    for i in range(n):
        t, l = tops[0 if len(tops) == 1 else i], lefts[0 if len(lefts) == 1 else i]
        if t < 0 or l < 0 or t + h > batch.shape[-2] or l + w > batch.shape[-1]:
            raise ValueError(
                f"crop_flip: window ({t}, {l}, {h}, {w}) is outside the image "
                f"{list(batch.shape[-2:])}"
            )
        out = batch[i : i + 1, :, t : t + h, l : l + w]
        dims = ([-1] if hflip[0 if len(hflip) == 1 else i] else []) + (
            [-2] if vflip[0 if len(vflip) == 1 else i] else []
        )
        outs.append(out.flip(dims) if dims else out)
    return tc.cat(outs, 0) if n > 1 else outs[0].contiguous()


def _window_crop(batch, tops, lefts, h, w):
    return _crop_flip(batch, tops, lefts, [0], [0], h, w)


class Resize(Transform):
    def __init__(
        self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=None
    ):
        super().__init__()
        if not isinstance(size, (numbers.Integral, list, tuple)):
            raise TypeError(
                f"Resize: size should be an int or a sequence, got {type(size).__name__}"
            )
        self.size = size if isinstance(size, numbers.Integral) else list(size)
        self.interpolation = interpolation_mode(interpolation, "Resize")
        self.max_size, self.antialias = max_size, antialias

    def _apply_batch(self, batch, params):
        return F.resize(batch, self.size, self.interpolation, self.max_size, self.antialias)

    def _forward_pil(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size)

    def _apply_target(self, out, sample, p, size):
        h, w = size
        oh, ow = out["image"].shape[-2:]
        if "boxes" in sample:
            b = _boxes_np(sample).reshape(-1, 4) * np.array([ow / w, oh / h, ow / w, oh / h])
            finish_boxes(out, sample, b, (oh, ow))
        return _map_masks(out, lambda m: F.resize(m, [oh, ow], InterpolationMode.NEAREST))

    def _config(self):
        return {
            "size": self.size,
            "interpolation": self.interpolation.value,
            "max_size": self.max_size,
            "antialias": self.antialias,
        }

    def extra_repr(self):
        return (
            f"size={self.size}, interpolation={self.interpolation.value}, "
            f"max_size={self.max_size}, antialias={self.antialias}"
        )


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _size_pair(size, "CenterCrop")

    def _offsets(self, h, w):
        ch, cw = self.size
        top = int(round((h - ch) / 2.0)) if ch <= h else -((ch - h) // 2)
        left = int(round((w - cw) / 2.0)) if cw <= w else -((cw - w) // 2)
        return top, left

    def fusable(self, h, w):
        return self.size[0] <= h and self.size[1] <= w

    def window_params(self, n, h, w):
        return [self._offsets(h, w)]

    def _apply_batch(self, batch, params):
        return F.center_crop(batch, list(self.size))

    def _apply_target(self, out, sample, p, size):
        top, left = self._offsets(*size)
        ch, cw = self.size
        _shift_boxes(out, sample, -left, -top, (ch, cw))
        return _map_masks(out, lambda m: F.crop(m, top, left, ch, cw))

    def _config(self):
        return {"size": list(self.size)}

    def extra_repr(self):
        return f"size={self.size}"


class RandomCrop(Transform):
    random = True

    def __init__(
        self,
        size,
        padding=None,
        pad_if_needed=False,
        fill=0,
        padding_mode="constant",
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        self.size = _size_pair(size, "RandomCrop")
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def _pads(self, h, w):
        """[left, top, right, bottom] applied before cropping."""
        pads = [0, 0, 0, 0]
        if self.padding is not None:
            pads = _G._parse_padding(self.padding)
        h2, w2 = h + pads[1] + pads[3], w + pads[0] + pads[2]
        th, tw = self.size
        if self.pad_if_needed and w2 < tw:
            pads[0] += tw - w2
            pads[2] += tw - w2
        if self.pad_if_needed and h2 < th:
            pads[1] += th - h2
            pads[3] += th - h2
        return pads

    def fusable(self, h, w):
        return self._pads(h, w) == [0, 0, 0, 0] and self.size[0] <= h and self.size[1] <= w

    def _prepare(self, batch):
        pads = self._pads(batch.shape[-2], batch.shape[-1])
        if pads != [0, 0, 0, 0]:
            batch = F.pad(batch, pads, self.fill, self.padding_mode)
        return batch

    def _prepare_target(self, sample, size):
        pads = self._pads(*size)
        out = _shift_boxes(
            dict(sample),
            sample,
            pads[0],
            pads[1],
            (size[0] + pads[1] + pads[3], size[1] + pads[0] + pads[2]),
        )
        return _map_masks(out, lambda m: F.pad(m, pads, 0))

    def _draw(self, n, h, w):
        th, tw = self.size
        if h < th or w < tw:
            raise ValueError(
                f"RandomCrop: required crop size {(th, tw)} is larger than input "
                f"image size {(h, w)}"
            )
        if h == th and w == tw:
            return [(0, 0)] * n
        tops = self._randint(n, 0, h - th + 1)
        lefts = self._randint(n, 0, w - tw + 1)
        return list(zip(tops, lefts))

    window_params = _draw

    def _apply_batch(self, batch, params):
        tops, lefts = [p[0] for p in params], [p[1] for p in params]
        return _window_crop(batch, tops, lefts, *self.size)

    def _apply_target(self, out, sample, p, size):
        th, tw = self.size
        _shift_boxes(out, sample, -p[1], -p[0], (th, tw))
        return _map_masks(out, lambda m: F.crop(m, p[0], p[1], th, tw))

    def _config(self):
        return {
            "size": list(self.size),
            "padding": self.padding,
            "pad_if_needed": self.pad_if_needed,
            "fill": self.fill,
            "padding_mode": self.padding_mode,
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return f"size={self.size}, padding={self.padding}"


class _RandomFlip(Transform):
    random = True
    horizontal = True

    def __init__(self, p=0.5, generator=None, same_on_batch=False):
        super().__init__(generator, same_on_batch)
        self.p = p

    def _draw(self, n, h, w):
        return [u < self.p for u in self._rand(n)]

    window_params = _draw

    def fusable(self, h, w):
        return True

    def _apply_batch(self, batch, params):
        flags = per_sample(params, batch.shape[0])
        if not any(flags):
            return batch
        hf = [int(f) for f in flags] if self.horizontal else [0]
        vf = [0] if self.horizontal else [int(f) for f in flags]
        return _crop_flip(batch, [0], [0], hf, vf, batch.shape[-2], batch.shape[-1])

    def _apply_target(self, out, sample, p, size):
        if not p:
            return out
        h, w = size
        if "boxes" in sample:
            b = _boxes_np(sample).reshape(-1, 4)
            if self.horizontal:
                b = np.stack([w - b[:, 2], b[:, 1], w - b[:, 0], b[:, 3]], 1)
            else:
                b = np.stack([b[:, 0], h - b[:, 3], b[:, 2], h - b[:, 1]], 1)
            finish_boxes(out, sample, b, size)
        return _map_masks(out, lambda m: m.flip(-1 if self.horizontal else -2))

    def _config(self):
        return {"p": self.p, "same_on_batch": self.same_on_batch}

    def extra_repr(self):
        return f"p={self.p}"


class RandomHorizontalFlip(_RandomFlip):
    horizontal = True


class RandomVerticalFlip(_RandomFlip):
    horizontal = False


class RandomResizedCrop(Transform):
    random = True

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=InterpolationMode.BILINEAR,
        antialias=None,
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        self.size = _size_pair(size, "RandomResizedCrop")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("RandomResizedCrop: scale and ratio should be of kind (min, max)")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = interpolation_mode(interpolation, "RandomResizedCrop")
        self.antialias = antialias

    def _draw(self, n, h, w):
        # A fixed number of draws per sample (10 attempts x 2, then 2 for the position), so a
        # replay (C++ pipeline) consumes the generator identically.
        u = self._rand(n * 22)
        area = h * w
        lr0, lr1 = math.log(self.ratio[0]), math.log(self.ratio[1])
        out = []
        for s in range(n):
            us = u[s * 22 : (s + 1) * 22]
            found = None
            for a in range(10):
                target_area = area * (self.scale[0] + (self.scale[1] - self.scale[0]) * us[2 * a])
                aspect = math.exp(lr0 + (lr1 - lr0) * us[2 * a + 1])
                cw = int(round(math.sqrt(target_area * aspect)))
                ch = int(round(math.sqrt(target_area / aspect)))
                if 0 < cw <= w and 0 < ch <= h:
                    i = min(int(us[20] * (h - ch + 1)), h - ch)
                    j = min(int(us[21] * (w - cw + 1)), w - cw)
                    found = (i, j, ch, cw)
                    break
            if found is None:
                in_ratio = w / h
                if in_ratio < min(self.ratio):
                    cw, ch = w, int(round(w / min(self.ratio)))
                elif in_ratio > max(self.ratio):
                    ch, cw = h, int(round(h * max(self.ratio)))
                else:
                    cw, ch = w, h
                found = ((h - ch) // 2, (w - cw) // 2, ch, cw)
            out.append(found)
        return out

    def _apply_batch(self, batch, params):
        return apply_each(
            batch,
            params,
            lambda b, p: F.resized_crop(
                b,
                p[0],
                p[1],
                p[2],
                p[3],
                list(self.size),
                self.interpolation,
                antialias=self.antialias,
            ),
        )

    def _forward_pil(self, img):
        w, h = img.size
        i, j, ch, cw = self._draw(1, h, w)[0]
        return F.resized_crop(img, i, j, ch, cw, list(self.size), self.interpolation)

    def _apply_target(self, out, sample, p, size):
        i, j, ch, cw = p
        oh, ow = self.size
        if "boxes" in sample:
            b = (_boxes_np(sample).reshape(-1, 4) - np.array([j, i, j, i])) * np.array(
                [ow / cw, oh / ch, ow / cw, oh / ch]
            )
            finish_boxes(out, sample, b, (oh, ow))
        return _map_masks(
            out, lambda m: F.resized_crop(m, i, j, ch, cw, [oh, ow], InterpolationMode.NEAREST)
        )

    def _config(self):
        return {
            "size": list(self.size),
            "scale": list(self.scale),
            "ratio": list(self.ratio),
            "interpolation": self.interpolation.value,
            "antialias": self.antialias,
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return (
            f"size={self.size}, scale={self.scale}, ratio={self.ratio}, "
            f"interpolation={self.interpolation.value}"
        )


class FiveCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _size_pair(size, "FiveCrop")

    def _apply_batch(self, batch, params):
        return F.five_crop(batch, list(self.size))

    def extra_repr(self):
        return f"size={self.size}"


class TenCrop(Transform):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _size_pair(size, "TenCrop")
        self.vertical_flip = vertical_flip

    def _apply_batch(self, batch, params):
        return F.ten_crop(batch, list(self.size), self.vertical_flip)

    def extra_repr(self):
        return f"size={self.size}, vertical_flip={self.vertical_flip}"


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        _G._parse_padding(padding)
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(
                f"Pad: padding_mode should be constant, edge, reflect or symmetric, "
                f"got {padding_mode!r}"
            )
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_batch(self, batch, params):
        return F.pad(batch, self.padding, self.fill, self.padding_mode)

    def _apply_target(self, out, sample, p, size):
        left, top, right, bottom = _G._parse_padding(self.padding)
        oh, ow = out["image"].shape[-2:]
        _shift_boxes(out, sample, left, top, (oh, ow))
        return _map_masks(out, lambda m: F.pad(m, self.padding, 0, self.padding_mode))

    def _config(self):
        return {"padding": self.padding, "fill": self.fill, "padding_mode": self.padding_mode}

    def extra_repr(self):
        return f"padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode}"


def _range(value, name, center=0.0):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{name}: if it is a single number, it must be non-negative")
        return [center - float(value), center + float(value)]
    if len(value) != 2:
        raise ValueError(f"{name}: should be a number or a sequence of 2 numbers")
    return [float(v) for v in value]


def _opt_list(value):
    return None if value is None else [float(v) for v in value]


def _center_config(center):
    return None if center is None else [float(center[0]), float(center[1])]


def _forward_points(mat):
    """Maps input continuous coordinates to output ones, inverting the output->input matrix."""
    inv = np.linalg.inv(np.array(mat, dtype=np.float64).reshape(3, 3))

    def fn(pts):
        p = np.concatenate([pts - 0.5, np.ones((len(pts), 1))], 1) @ inv.T
        return p[:, :2] / p[:, 2:3] + 0.5

    return fn


class _Warp(Transform):
    """Shared by RandomRotation / RandomAffine / RandomPerspective: per-sample matrices through
    one warp kernel call."""

    random = True

    def _matrix(self, p, h, w):
        raise NotImplementedError

    def _fill_for(self, batch):
        fill = self.fill
        if fill is None:
            return None
        if isinstance(fill, numbers.Number):
            return [float(fill)] * batch.shape[1]
        return [float(f) for f in fill]

    def _apply_batch(self, batch, params):
        h, w = batch.shape[-2:]
        params = per_sample(params, batch.shape[0])
        mats = []
        for p in params:
            mats.extend(self._matrix(p, h, w))
        return _G._warp(
            batch, mats, h, w, self.interpolation, self._fill_for(batch), type(self).__name__
        )

    def _apply_target(self, out, sample, p, size):
        mat = self._matrix(p, *size)
        transform_points_boxes(out, sample, _forward_points(mat), size)
        return _map_masks(
            out,
            lambda m: _G._warp(
                m, mat, size[0], size[1], InterpolationMode.NEAREST, None, type(self).__name__
            ),
        )


class RandomRotation(_Warp):
    def __init__(
        self,
        degrees,
        interpolation=InterpolationMode.NEAREST,
        expand=False,
        center=None,
        fill=0,
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        self.degrees = _range(degrees, "RandomRotation: degrees")
        self.interpolation = interpolation_mode(interpolation, "RandomRotation")
        self.expand, self.center, self.fill = expand, center, fill

    def _draw(self, n, h, w):
        return self._uniform(n, self.degrees[0], self.degrees[1])

    def _matrix(self, angle, h, w):
        return F.rotation_matrix((h, w), angle, self.center)

    def _forward_pil(self, img):
        angle = self._draw(1, img.size[1], img.size[0])[0]
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)

    def _apply_batch(self, batch, params):
        if self.expand:
            # Per-sample angles give per-sample expanded sizes: every image is rendered into the
            # largest of them (rotation centre at the canvas centre, the rest filled), so a batch
            # keeps one shape. One draw (same_on_batch or one image) is exactly F.rotate(expand).
            h, w = batch.shape[-2:]
            sizes = [F.rotated_size((h, w), a, self.center) for a in params]
            oh, ow = max(s[0] for s in sizes), max(s[1] for s in sizes)
            mats = []
            for a in params:
                mats.extend(F.rotation_matrix((h, w), a, self.center, (oh, ow)))
            return _G._warp(
                batch, mats, oh, ow, self.interpolation, self._fill_for(batch), type(self).__name__
            )
        return super()._apply_batch(batch, params)

    def _config(self):
        return {
            "degrees": list(self.degrees),
            "interpolation": self.interpolation.value,
            "expand": self.expand,
            "center": _center_config(self.center),
            "fill": self.fill,
            "same_on_batch": self.same_on_batch,
        }

    def _apply_target(self, out, sample, p, size):
        if self.expand:
            raise ValueError("RandomRotation: expand=True is not supported for dict samples")
        return super()._apply_target(out, sample, p, size)

    def extra_repr(self):
        return f"degrees={self.degrees}, interpolation={self.interpolation.value}"


class RandomAffine(_Warp):
    def __init__(
        self,
        degrees,
        translate=None,
        scale=None,
        shear=None,
        interpolation=InterpolationMode.NEAREST,
        fill=0,
        center=None,
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        self.degrees = _range(degrees, "RandomAffine: degrees")
        if translate is not None and not all(0.0 <= t <= 1.0 for t in translate):
            raise ValueError("RandomAffine: translation values should be between 0 and 1")
        if scale is not None and (len(scale) != 2 or any(s <= 0 for s in scale)):
            raise ValueError("RandomAffine: scale values should be positive")
        self.translate, self.scale = translate, scale
        if shear is not None:
            shear = (
                _range(shear, "RandomAffine: shear")
                if isinstance(shear, numbers.Number) or len(shear) == 2
                else [float(s) for s in shear]
            )
            if len(shear) not in (2, 4):
                raise ValueError("RandomAffine: shear should be a number or 2 or 4 numbers")
        self.shear = shear
        self.interpolation = interpolation_mode(interpolation, "RandomAffine")
        self.fill, self.center = fill, center

    def _draw(self, n, h, w):
        per = (
            1
            + (2 if self.translate else 0)
            + (1 if self.scale else 0)
            + (len(self.shear) // 2 if self.shear else 0)
        )
        u = self._rand(n * per)
        out = []
        for s in range(n):
            us = iter(u[s * per : (s + 1) * per])
            angle = self.degrees[0] + (self.degrees[1] - self.degrees[0]) * next(us)
            tx = ty = 0
            if self.translate:
                mdx, mdy = self.translate[0] * w, self.translate[1] * h
                tx = int(round(-mdx + 2 * mdx * next(us)))
                ty = int(round(-mdy + 2 * mdy * next(us)))
            sc = 1.0
            if self.scale:
                sc = self.scale[0] + (self.scale[1] - self.scale[0]) * next(us)
            shx = shy = 0.0
            if self.shear:
                shx = self.shear[0] + (self.shear[1] - self.shear[0]) * next(us)
                if len(self.shear) == 4:
                    shy = self.shear[2] + (self.shear[3] - self.shear[2]) * next(us)
            out.append((angle, (tx, ty), sc, (shx, shy)))
        return out

    def _matrix(self, p, h, w):
        angle, translate, sc, shear = p
        return F.affine_matrix((h, w), angle, list(translate), sc, list(shear), self.center)

    def _config(self):
        return {
            "degrees": list(self.degrees),
            "translate": _opt_list(self.translate),
            "scale": _opt_list(self.scale),
            "shear": _opt_list(self.shear),
            "interpolation": self.interpolation.value,
            "fill": self.fill,
            "center": _center_config(self.center),
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return (
            f"degrees={self.degrees}, translate={self.translate}, scale={self.scale}, "
            f"shear={self.shear}"
        )


class RandomPerspective(_Warp):
    def __init__(
        self,
        distortion_scale=0.5,
        p=0.5,
        interpolation=InterpolationMode.BILINEAR,
        fill=0,
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        if not 0 <= distortion_scale <= 1:
            raise ValueError("RandomPerspective: distortion_scale should be in [0, 1]")
        self.distortion_scale, self.p = distortion_scale, p
        self.interpolation = interpolation_mode(interpolation, "RandomPerspective")
        self.fill = fill

    def _draw(self, n, h, w):
        u = self._rand(n * 9)
        dw = int(self.distortion_scale * (w // 2))
        dh = int(self.distortion_scale * (h // 2))

        def rint(x, lo, hi):
            return lo + min(int(x * (hi - lo)), hi - lo - 1)

        out = []
        for s in range(n):
            us = u[s * 9 : (s + 1) * 9]
            if us[0] >= self.p:
                out.append(None)
                continue
            tl = [rint(us[1], 0, dw + 1), rint(us[2], 0, dh + 1)]
            tr = [rint(us[3], w - dw - 1, w), rint(us[4], 0, dh + 1)]
            br = [rint(us[5], w - dw - 1, w), rint(us[6], h - dh - 1, h)]
            bl = [rint(us[7], 0, dw + 1), rint(us[8], h - dh - 1, h)]
            start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
            out.append((start, [tl, tr, br, bl]))
        return out

    def _matrix(self, p, h, w):
        if p is None:
            return [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]
        return F.perspective_matrix(p[0], p[1])

    def _apply_batch(self, batch, params):
        params = per_sample(params, batch.shape[0])
        flags = [p is not None for p in params]
        chosen = [p for p in params if p is not None]
        return apply_where(
            batch, flags, lambda b: super(RandomPerspective, self)._apply_batch(b, chosen)
        )

    def _apply_target(self, out, sample, p, size):
        if p is None:
            return out
        return super()._apply_target(out, sample, p, size)

    def _config(self):
        return {
            "distortion_scale": self.distortion_scale,
            "p": self.p,
            "interpolation": self.interpolation.value,
            "fill": self.fill,
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return f"distortion_scale={self.distortion_scale}, p={self.p}"
