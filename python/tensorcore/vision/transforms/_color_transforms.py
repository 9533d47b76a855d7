"""Photometric transform classes (per-sample parameters on batches)."""

import numbers

import tensorcore as tc

from . import functional as F
from ._base import Transform, apply_where, per_sample
from ._color import blur_batch
from ._common import V


def _check_jitter(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    if value is None:  # disabled (how a saved pipeline records an unused adjustment)
        return None
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"ColorJitter: if {name} is a single number, it must be non negative.")
        value = [center - float(value), center + float(value)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"ColorJitter: {name} values should be between {bound}")
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(
            f"ColorJitter: {name} should be a single number or a list/tuple with length 2."
        )
    if value[0] == value[1] == center:
        return None
    return value


class ColorJitter(Transform):
    random = True
    _FNS = ("brightness", "contrast", "saturation", "hue")

    def __init__(
        self, brightness=0, contrast=0, saturation=0, hue=0, generator=None, same_on_batch=False
    ):
        super().__init__(generator, same_on_batch)
        self.brightness = _check_jitter(brightness, "brightness")
        self.contrast = _check_jitter(contrast, "contrast")
        self.saturation = _check_jitter(saturation, "saturation")
        self.hue = _check_jitter(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _draw(self, n, h, w):
        # Per sample: 4 draws for the order, then one factor per adjustment (always drawn).
        u = self._rand(n * 8)
        out = []
        for s in range(n):
            us = u[s * 8 : (s + 1) * 8]
            order = sorted(range(4), key=lambda k: us[k])
            factors = []
            for k, name in enumerate(self._FNS):
                rng = getattr(self, name)
                factors.append(None if rng is None else rng[0] + (rng[1] - rng[0]) * us[4 + k])
            out.append((order, factors))
        return out

    @staticmethod
    def _adjust(batch, k, factor):
        fn = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)[k]
        return fn(batch, factor)

    def _forward_pil(self, img):
        order, factors = self._draw(1, img.size[1], img.size[0])[0]
        for k in order:
            if factors[k] is not None:
                img = self._adjust(img, k, factors[k])
        return img

    def _apply_batch(self, batch, params):
        # Per-sample order: at each step, each adjustment runs once on the samples that have it
        # at that step, with their factors as a (m, 1, 1, 1) tensor (also for a shared draw, so
        # batched and single-image results agree bit for bit).
        params = per_sample(params, batch.shape[0])
        for step in range(4):
            for k in range(4):
                idx = [
                    i
                    for i, (order, f) in enumerate(params)
                    if order[step] == k and f[k] is not None
                ]
                if not idx:
                    continue
                fac = tc.tensor(
                    [params[i][1][k] for i in idx], dtype=tc.float32, device=batch.device
                )
                fac = fac.reshape(-1, 1, 1) if k == 3 else fac.reshape(-1, 1, 1, 1)
                if len(idx) == batch.shape[0]:
                    batch = self._adjust(batch, k, fac)
                    continue
                index = tc.tensor(idx, dtype=tc.int64, device=batch.device)
                done = self._adjust(batch.index_select(0, index), k, fac)
                batch = batch.index_copy(0, index, done)
        return batch

    def _config(self):
        cfg = {n: getattr(self, n) for n in self._FNS}
        cfg["same_on_batch"] = self.same_on_batch
        return cfg

    def extra_repr(self):
        return ", ".join(f"{n}={getattr(self, n)}" for n in self._FNS)


class Grayscale(Transform):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def _apply_batch(self, batch, params):
        return F.rgb_to_grayscale(batch, self.num_output_channels)

    def _forward_pil(self, img):
        return F.to_grayscale(img, self.num_output_channels)

    def _config(self):
        return {"num_output_channels": self.num_output_channels}

    def extra_repr(self):
        return f"num_output_channels={self.num_output_channels}"


class _RandomApplyOp(Transform):
    """Applies `_op` to each sample with probability p."""

    random = True

    def __init__(self, p=0.5, generator=None, same_on_batch=False):
        super().__init__(generator, same_on_batch)
        self.p = p

    def _draw(self, n, h, w):
        return [u < self.p for u in self._rand(n)]

    def _apply_batch(self, batch, params):
        return apply_where(batch, params, self._op)

    def _config(self):
        return dict({"p": self.p, "same_on_batch": self.same_on_batch}, **self._extra_config())

    def _extra_config(self):
        return {}

    def extra_repr(self):
        return f"p={self.p}"


class RandomGrayscale(_RandomApplyOp):
    def __init__(self, p=0.1, generator=None, same_on_batch=False):
        super().__init__(p, generator, same_on_batch)

    def _op(self, batch):
        return F.rgb_to_grayscale(batch, batch.shape[1]).contiguous()

    def _forward_pil(self, img):
        if self._draw(1, img.size[1], img.size[0])[0]:
            return F.to_grayscale(img, len(img.getbands()))
        return img


class RandomInvert(_RandomApplyOp):
    def _op(self, batch):
        return F.invert(batch)


class RandomPosterize(_RandomApplyOp):
    def __init__(self, bits, p=0.5, generator=None, same_on_batch=False):
        super().__init__(p, generator, same_on_batch)
        self.bits = bits

    def _op(self, batch):
        return F.posterize(batch, self.bits)

    def _extra_config(self):
        return {"bits": self.bits}

    def extra_repr(self):
        return f"bits={self.bits}, p={self.p}"


class RandomSolarize(_RandomApplyOp):
    def __init__(self, threshold, p=0.5, generator=None, same_on_batch=False):
        super().__init__(p, generator, same_on_batch)
        self.threshold = threshold

    def _op(self, batch):
        return F.solarize(batch, self.threshold)

    def _extra_config(self):
        return {"threshold": self.threshold}

    def extra_repr(self):
        return f"threshold={self.threshold}, p={self.p}"


class RandomAdjustSharpness(_RandomApplyOp):
    def __init__(self, sharpness_factor, p=0.5, generator=None, same_on_batch=False):
        super().__init__(p, generator, same_on_batch)
        self.sharpness_factor = sharpness_factor

    def _op(self, batch):
        return F.adjust_sharpness(batch, self.sharpness_factor)

    def _extra_config(self):
        return {"sharpness_factor": self.sharpness_factor}

    def extra_repr(self):
        return f"sharpness_factor={self.sharpness_factor}, p={self.p}"


class RandomAutocontrast(_RandomApplyOp):
    def _op(self, batch):
        return F.autocontrast(batch)


class RandomEqualize(_RandomApplyOp):
    def _op(self, batch):
        return F.equalize(batch)


class GaussianBlur(Transform):
    random = True

    def __init__(self, kernel_size, sigma=(0.1, 2.0), generator=None, same_on_batch=False):
        super().__init__(generator, same_on_batch)
        ks = [kernel_size, kernel_size] if isinstance(kernel_size, int) else list(kernel_size)
        if len(ks) != 2 or any(k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError("GaussianBlur: kernel size values should be odd and positive numbers")
        self.kernel_size = ks
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("GaussianBlur: if sigma is a single number, it must be positive")
            sigma = (float(sigma), float(sigma))
        if not 0 < sigma[0] <= sigma[1]:
            raise ValueError(
                "GaussianBlur: sigma values should be positive and of the form (min, max)"
            )
        self.sigma = tuple(sigma)

    def _draw(self, n, h, w):
        return self._uniform(n, self.sigma[0], self.sigma[1])

    def _apply_batch(self, batch, params):
        # One kernel call with one sigma per sample.
        return blur_batch(batch, self.kernel_size, params, params)

    def _config(self):
        return {
            "kernel_size": list(self.kernel_size),
            "sigma": list(self.sigma),
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, sigma={self.sigma}"


class RandomErasing(Transform):
    accepts_pil = False  # tensor only, as torchvision

    random = True

    def __init__(
        self,
        p=0.5,
        scale=(0.02, 0.33),
        ratio=(0.3, 3.3),
        value=0,
        inplace=False,
        generator=None,
        same_on_batch=False,
    ):
        super().__init__(generator, same_on_batch)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(
                "RandomErasing: argument value should be either a number, str, tuple or list"
            )
        if isinstance(value, str) and value != "random":
            raise ValueError("RandomErasing: if value is a str, it should be 'random'")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("RandomErasing: scale and ratio should be of kind (min, max)")
        if not 0 <= p <= 1:
            raise ValueError("RandomErasing: probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    def _draw(self, n, h, w):
        import math

        u = self._rand(n * 41)
        area = h * w
        lr0, lr1 = math.log(self.ratio[0]), math.log(self.ratio[1])
        out = []
        for s in range(n):
            us = u[s * 41 : (s + 1) * 41]
            if us[0] >= self.p:
                out.append(None)
                continue
            found = None
            for a in range(10):
                ua = us[1 + 4 * a : 5 + 4 * a]
                erase_area = area * (self.scale[0] + (self.scale[1] - self.scale[0]) * ua[0])
                aspect = math.exp(lr0 + (lr1 - lr0) * ua[1])
                eh = int(round(math.sqrt(erase_area * aspect)))
                ew = int(round(math.sqrt(erase_area / aspect)))
                if not (eh < h and ew < w):
                    continue
                i = min(int(ua[2] * (h - eh + 1)), h - eh)
                j = min(int(ua[3] * (w - ew + 1)), w - ew)
                found = (i, j, eh, ew)
                break
            out.append(found)
        return out

    def _apply_batch(self, batch, params):
        params = per_sample(params, batch.shape[0])
        if all(p is None for p in params):
            return batch
        out = batch if self.inplace else batch.clone()
        c = batch.shape[1]
        if isinstance(self.value, (tuple, list)) and len(self.value) not in (1, c):
            raise ValueError(f"RandomErasing: value needs 1 or {c} entries, got {len(self.value)}")
        if isinstance(self.value, (tuple, list)):
            fixed = tc.tensor(
                [float(x) for x in self.value], dtype=tc.float64, device=batch.device
            ).reshape(-1, 1, 1)
        elif self.value != "random":
            fixed = tc.tensor(float(self.value), dtype=tc.float64, device=batch.device)
        for n, p in enumerate(params):
            if p is None:
                continue
            i, j, eh, ew = p
            if self.value == "random":
                v = tc.randn((c, eh, ew), generator=self.generator).to(batch.device, batch.dtype)
            else:
                v = fixed
            V.erase(out[n], i, j, eh, ew, v, True)
        return out

    def _config(self):
        value = (
            self.value
            if isinstance(self.value, str)
            else (
                [float(v) for v in self.value]
                if isinstance(self.value, (tuple, list))
                else float(self.value)
            )
        )
        return {
            "p": self.p,
            "scale": list(self.scale),
            "ratio": list(self.ratio),
            "value": value,
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return f"p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}"
