"""torchvision.transforms classes on tensorcore tensors: single images, batches with per-sample
random parameters (same_on_batch=True for one draw per batch), dict samples for detection."""

import json

import tensorcore as tc

from . import functional as F
from ._base import Transform, apply_where, per_sample
from ._common import V
from ._geometric_transforms import (  # noqa: F401
    Resize,
    CenterCrop,
    RandomCrop,
    RandomHorizontalFlip,
    RandomVerticalFlip,
    RandomResizedCrop,
    FiveCrop,
    TenCrop,
    Pad,
    RandomRotation,
    RandomAffine,
    RandomPerspective,
)
from ._color_transforms import (  # noqa: F401
    ColorJitter,
    Grayscale,
    RandomGrayscale,
    RandomInvert,
    RandomPosterize,
    RandomSolarize,
    RandomAdjustSharpness,
    RandomAutocontrast,
    RandomEqualize,
    GaussianBlur,
    RandomErasing,
)

_DTYPES = {
    "uint8": tc.uint8,
    "float32": tc.float32,
    "float64": tc.float64,
    "float16": tc.float16,
    "int32": tc.int32,
    "int64": tc.int64,
}


def _dtype_name(dtype):
    for k, v in _DTYPES.items():
        if v == dtype:
            return k
    raise TypeError(f"unsupported dtype {dtype}")


class ConvertImageDtype(Transform):
    accepts_pil = False  # tensor only, as torchvision

    def __init__(self, dtype=tc.float32):
        super().__init__()
        self.dtype = dtype

    def _apply_batch(self, batch, params):
        return F.convert_image_dtype(batch, self.dtype)

    def _config(self):
        return {"dtype": _dtype_name(self.dtype)}

    def extra_repr(self):
        return f"dtype={self.dtype}"


class Normalize(Transform):
    accepts_pil = False  # tensor only, as torchvision

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = list(mean), list(std), inplace

    def _apply_batch(self, batch, params):
        return F.normalize(batch, self.mean, self.std, self.inplace)

    def _config(self):
        return {"mean": self.mean, "std": self.std}

    def extra_repr(self):
        return f"mean={self.mean}, std={self.std}"


class Lambda(Transform):
    def __init__(self, lambd):
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"Lambda: argument should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def forward(self, x):
        return self.lambd(x)


class LinearTransformation(Transform):
    accepts_pil = False  # tensor only, as torchvision

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        m = transformation_matrix
        if m.dim() != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(
                f"LinearTransformation: transformation_matrix should be square, got {list(m.shape)}"
            )
        if mean_vector.shape[0] != m.shape[0]:
            raise ValueError(
                f"LinearTransformation: mean_vector should have {m.shape[0]} "
                f"elements, got {mean_vector.shape[0]}"
            )
        self.transformation_matrix, self.mean_vector = m, mean_vector

    def _apply_batch(self, batch, params):
        d = batch.shape[1] * batch.shape[2] * batch.shape[3]
        if d != self.transformation_matrix.shape[0]:
            raise ValueError(
                f"LinearTransformation: input has {d} elements per image, the "
                f"matrix expects {self.transformation_matrix.shape[0]}"
            )
        if not batch.is_floating_point():
            raise TypeError("LinearTransformation: expected a float image")
        flat = batch.reshape(batch.shape[0], -1) - self.mean_vector.to(batch.dtype)
        out = flat @ self.transformation_matrix.to(batch.dtype)
        return out.reshape(batch.shape)


class ToTensor(Transform):
    """PIL image or (H, W, C) ndarray -> (C, H, W) float tensor in [0, 1] (uint8 data scaled)."""

    def forward(self, pic):
        return F.to_tensor(pic)


class PILToTensor(Transform):
    """PIL image -> (C, H, W) tensor of its pixels, unscaled."""

    def forward(self, pic):
        return F.pil_to_tensor(pic)


class ToPILImage(Transform):
    """(C, H, W) tensor or (H, W, C) ndarray -> PIL image (mode inferred unless given)."""

    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def forward(self, pic):
        return F.to_pil_image(pic, self.mode)

    def extra_repr(self):
        return f"mode={self.mode}" if self.mode is not None else ""


class _Container(Transform):
    def __init__(self, transforms, generator=None, same_on_batch=False):
        super().__init__(generator, same_on_batch)
        self.transforms = list(transforms)

    def _run(self, seq, x):
        for t in seq:
            x = t(x)
        return x

    def _config(self):
        return {
            "transforms": [_spec(t) for t in self.transforms],
            "same_on_batch": self.same_on_batch,
        }

    def extra_repr(self):
        return "\n" + "".join(f"    {t!r},\n" for t in self.transforms)


class RandomApply(_Container):
    random = True

    def __init__(self, transforms, p=0.5, generator=None, same_on_batch=False):
        super().__init__(transforms, generator, same_on_batch)
        self.p = p

    def _forward_dict(self, sample):
        return self._run(self.transforms, sample) if self._rand(1)[0] < self.p else sample

    def _draw(self, n, h, w):
        return [u < self.p for u in self._rand(n)]

    def _apply_batch(self, batch, params):
        return apply_where(batch, params, lambda b: self._run(self.transforms, b))

    def _config(self):
        return dict(super()._config(), p=self.p)


class RandomChoice(_Container):
    random = True

    def __init__(self, transforms, p=None, generator=None, same_on_batch=False):
        super().__init__(transforms, generator, same_on_batch)
        if p is not None and len(p) != len(self.transforms):
            raise ValueError(
                "RandomChoice: the number of probabilities must match the number of transforms"
            )
        total = sum(p) if p is not None else len(self.transforms)
        self.p = [x / total for x in p] if p is not None else [1.0 / total] * len(self.transforms)

    def _pick(self, u):
        acc = 0.0
        for k, pk in enumerate(self.p):
            acc += pk
            if u < acc:
                return k
        return len(self.p) - 1

    def _forward_dict(self, sample):
        return self.transforms[self._pick(self._rand(1)[0])](sample)

    def _draw(self, n, h, w):
        return [self._pick(u) for u in self._rand(n)]

    def _config(self):
        # The normalized probabilities: load() restores them as they are.
        return dict(super()._config(), p=list(self.p))

    def _apply_batch(self, batch, params):
        params = per_sample(params, batch.shape[0])
        for k, t in enumerate(self.transforms):
            batch = apply_where(batch, [p == k for p in params], t)
        return batch


class RandomOrder(_Container):
    random = True

    def _order(self, us):
        return tuple(sorted(range(len(self.transforms)), key=lambda k: us[k]))

    def _forward_dict(self, sample):
        order = self._order(self._rand(len(self.transforms)))
        return self._run([self.transforms[k] for k in order], sample)

    def _draw(self, n, h, w):
        m = len(self.transforms)
        u = self._rand(n * m)
        return [self._order(u[s * m : (s + 1) * m]) for s in range(n)]

    def _apply_batch(self, batch, params):
        params = per_sample(params, batch.shape[0])
        for order in sorted(set(params)):
            seq = [self.transforms[k] for k in order]
            batch = apply_where(
                batch, [p == order for p in params], lambda b, seq=seq: self._run(seq, b)
            )
        return batch


_WINDOW_STAGES = (RandomCrop, CenterCrop, RandomHorizontalFlip, RandomVerticalFlip)


class Compose(Transform):
    """Runs transforms in order. A run of crops/flips followed by ConvertImageDtype(float32)
    (and optionally Normalize) executes as one fused kernel pass over the uint8 input, drawing
    the same random parameters as the unfused chain."""

    def __init__(self, transforms, fuse=True):
        super().__init__()
        self.transforms = list(transforms)
        self.fuse = fuse

    def forward(self, x):
        if isinstance(x, tc.Tensor) and tc.jit.is_tracing():
            # One native node running the saved pipeline: the traced graph then resizes and
            # crops images of any size as this pipeline would.
            return V.apply_pipeline(self.to_json(), x)
        i, ts = 0, self.transforms
        while i < len(ts):
            if self.fuse and isinstance(x, tc.Tensor):
                fused = self._try_fused(i, x)
                if fused is not None:
                    x, i = fused
                    continue
            x = ts[i](x)
            i += 1
        return x

    def _try_fused(self, i, img):
        ts = self.transforms
        if img.dim() not in (3, 4) or img.dtype not in (tc.uint8, tc.float32):
            return None
        h, w = img.shape[-2:]
        j, stages = i, []
        while j < len(ts) and isinstance(ts[j], _WINDOW_STAGES) and ts[j].fusable(h, w):
            stages.append(ts[j])
            if isinstance(ts[j], (RandomCrop, CenterCrop)):
                h, w = ts[j].size
            j += 1
        conv = norm = None
        if j < len(ts) and isinstance(ts[j], ConvertImageDtype) and ts[j].dtype == tc.float32:
            conv, j = ts[j], j + 1
        if j < len(ts) and isinstance(ts[j], Normalize) and (conv or img.dtype == tc.float32):
            norm, j = ts[j], j + 1
        if conv is None and norm is None:
            return None
        if not stages and norm is None:
            return None
        batch = img if img.dim() == 4 else img.unsqueeze(0)
        n, c = batch.shape[0], batch.shape[1]
        if norm is not None and (len(norm.mean) not in (1, c) or len(norm.std) not in (1, c)):
            return None
        # Compose the window of every stage in original image coordinates.
        h, w = batch.shape[-2:]
        tops, lefts, hf, vf = [0] * n, [0] * n, [False] * n, [False] * n
        for st in stages:
            params = per_sample(st.window_params(st._draw_count(n), h, w), n)
            if isinstance(st, (RandomCrop, CenterCrop)):
                ch, cw = st.size
                for s, (t, l) in enumerate(params):
                    lefts[s] += (w - l - cw) if hf[s] else l
                    tops[s] += (h - t - ch) if vf[s] else t
                h, w = ch, cw
            else:
                flags = hf if isinstance(st, RandomHorizontalFlip) else vf
                for s, f in enumerate(params):
                    flags[s] = flags[s] != bool(f)
        unit = 1.0 / 255.0 if img.dtype == tc.uint8 else 1.0
        if norm is not None:
            std = [float(x) for x in norm.std]
            if any(s == 0 for s in std):
                raise ValueError("normalize: std evaluated to zero, leading to division by zero.")
            mean = [float(x) for x in norm.mean]
            std = std * c if len(std) == 1 else std
            mean = mean * c if len(mean) == 1 else mean
            scale = [unit / s for s in std]
            bias = [-m / s for m, s in zip(mean, std)]
        else:
            scale, bias = [unit], [0.0]
        out = V.crop_flip_normalize(
            batch, tops, lefts, [int(f) for f in hf], [int(f) for f in vf], h, w, scale, bias
        )
        return (out if img.dim() == 4 else out.squeeze(0)), j

    def to_json(self, indent=None):
        """The pipeline (transform names and parameters) as the JSON text save() writes."""
        spec = {
            "format": "tensorcore.vision.transforms",
            "version": 1,
            "transforms": [_spec(t) for t in self.transforms],
        }
        return json.dumps(spec, indent=indent)

    def save(self, path):
        """Writes the pipeline (transform names and parameters) as JSON; load it with load() or
        the C++ tc::vision::transforms::Pipeline."""
        with open(path, "w") as f:
            f.write(self.to_json(indent=1))

    def extra_repr(self):
        return "\n" + "".join(f"    {t!r},\n" for t in self.transforms)


def _spec(t):
    if not isinstance(t, Transform):
        raise TypeError(
            f"Compose.save: {t!r} is not a tensorcore transform and cannot be saved "
            "to a pipeline file"
        )
    return {"name": type(t).__name__, "params": t._config()}


_LOADABLE = {
    c.__name__: c
    for c in (
        ConvertImageDtype,
        Normalize,
        Resize,
        CenterCrop,
        RandomCrop,
        RandomHorizontalFlip,
        RandomVerticalFlip,
        RandomResizedCrop,
        Pad,
        ColorJitter,
        Grayscale,
        RandomRotation,
        RandomAffine,
        RandomPerspective,
        GaussianBlur,
        RandomErasing,
        RandomApply,
        RandomChoice,
        RandomOrder,
        RandomGrayscale,
        RandomInvert,
        RandomPosterize,
        RandomSolarize,
        RandomAdjustSharpness,
        RandomAutocontrast,
        RandomEqualize,
    )
}


def _build(entry, generator, path):
    cls = _LOADABLE.get(entry["name"])
    if cls is None:
        raise ValueError(f"load: unknown transform {entry['name']!r} in {path}")
    params = dict(entry["params"])
    if cls is ConvertImageDtype:
        params["dtype"] = _DTYPES[params["dtype"]]
    if issubclass(cls, _Container):
        params["transforms"] = [_build(e, generator, path) for e in params["transforms"]]
    t = cls(**params)
    if cls is RandomChoice:
        t.p = list(params["p"])
    if t.random:
        t.generator = generator
    return t


def load(path, generator=None):
    """Reads a pipeline written by Compose.save; every random transform draws from `generator`
    (default: the global generator), as the C++ Pipeline does."""
    with open(path) as f:
        spec = json.load(f)
    if spec.get("format") != "tensorcore.vision.transforms":
        raise ValueError(f"load: {path} is not a tensorcore transforms pipeline file")
    return Compose([_build(entry, generator, path) for entry in spec["transforms"]])
