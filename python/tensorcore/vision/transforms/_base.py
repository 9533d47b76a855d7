"""Base class and helpers shared by the transform classes: batching, per-sample random draws and
joint image/boxes/masks targets."""

import numpy as np

import tensorcore as tc

from .._module import Module
from . import _pil


class Transform(Module):
    """A transform over (C, H, W), (N, C, H, W) or any leading dims. Random subclasses draw one
    parameter set per sample (per image of the batch) unless same_on_batch=True.

    A subclass implements `_draw(n, h, w)` (the parameters, a list with one entry per sample, or
    one entry for the whole batch) and `_apply_batch(batch, params)` on an (N, C, H, W) batch; geometric
    ones also implement `_apply_target(target, p, size)` for dict inputs."""

    random = False
    # Whether a PIL image is accepted (and one returned), as torchvision's transform does.
    accepts_pil = True

    def __init__(self, generator=None, same_on_batch=False):
        super().__init__()
        self.generator = generator
        self.same_on_batch = same_on_batch

    # -- random draws: everything goes through tc.rand so a C++ pipeline can replay them --------
    def _rand(self, n):
        if n == 0:
            return []
        return tc.rand(n, generator=self.generator, dtype=tc.float64).tolist()

    def _uniform(self, n, low, high):
        return [low + (high - low) * u for u in self._rand(n)]

    def _randint(self, n, low, high):
        """Integers in [low, high)."""
        span = high - low
        return [low + min(int(u * span), span - 1) for u in self._rand(n)]

    def _draw_count(self, n):
        return 1 if (self.same_on_batch or n == 1) else n

    # -- calling convention ------------------------------------------------------------------
    def forward(self, x):
        if isinstance(x, dict):
            return self._forward_dict(x)
        if _pil.is_pil(x):
            return self._forward_pil(x)
        return self._forward_image(x)

    def _forward_pil(self, img):
        if not self.accepts_pil:
            raise TypeError(
                f"{type(self).__name__}: expected a Tensor image, got a PIL Image (convert it "
                "with ToTensor() or PILToTensor() first)"
            )
        pixels, back = _pil.as_tensor(img)
        return back(self._forward_image(pixels))

    def _forward_image(self, img):
        if not isinstance(img, tc.Tensor):
            raise TypeError(
                f"{type(self).__name__}: expected a tensorcore Tensor image or a dict, "
                f"got {type(img).__name__}"
            )
        if img.dim() < 3:
            out = self._forward_image(img.unsqueeze(0))
            return out.squeeze(0) if isinstance(out, tc.Tensor) else out
        lead = list(img.shape[:-3])
        batch = img.reshape([-1] + list(img.shape[-3:])) if img.dim() != 4 else img
        batch = self._prepare(batch)
        n = batch.shape[0]
        params = self._draw(self._draw_count(n), batch.shape[-2], batch.shape[-1])
        out = self._apply_batch(batch, params)
        return self._restore(out, lead)

    @staticmethod
    def _restore(out, lead):
        if isinstance(out, (tuple, list)):
            return type(out)(Transform._restore(o, lead) for o in out)
        return out.reshape(lead + list(out.shape[1:]))

    def _forward_dict(self, sample):
        if "image" not in sample:
            raise ValueError(f"{type(self).__name__}: a dict input needs an 'image' entry")
        img = sample["image"]
        if img.dim() != 3:
            raise ValueError(
                f"{type(self).__name__}: dict inputs hold one (C, H, W) image, got "
                f"shape {list(img.shape)}"
            )
        prepared = self._prepare(img.unsqueeze(0))
        if prepared.shape[-2:] != img.shape[-2:]:
            sample = self._prepare_target(dict(sample), img.shape[-2:])
        out = dict(sample)
        params = self._draw(1, prepared.shape[-2], prepared.shape[-1])
        out["image"] = self._apply_batch(prepared, params)[0]
        return self._apply_target(out, sample, params[0], prepared.shape[-2:])

    def _prepare(self, batch):
        """Deterministic set-up before drawing parameters (RandomCrop's padding)."""
        return batch

    def _prepare_target(self, sample, size):
        return sample

    def _config(self):
        """Constructor arguments as JSON values, for Compose.save."""
        raise TypeError(f"{type(self).__name__} cannot be saved to a pipeline file")

    def _apply_target(self, out, sample, p, size):
        # Photometric transforms leave boxes and masks alone.
        return out

    def _draw(self, n, h, w):
        return [None]

    def _apply_batch(self, batch, params):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.extra_repr()})"


def per_sample(params, n):
    """Expands a 1-entry parameter list to n entries."""
    return params * n if len(params) == 1 and n != 1 else params


def apply_where(batch, flags, fn):
    """fn applied to the samples whose flag is set; the rest pass through."""
    flags = per_sample(list(flags), batch.shape[0])
    idx = [i for i, f in enumerate(flags) if f]
    if not idx:
        return batch
    if len(idx) == batch.shape[0]:
        return fn(batch)
    index = tc.tensor(idx, dtype=tc.int64, device=batch.device)
    done = fn(batch.index_select(0, index))
    if done.dtype != batch.dtype or list(done.shape[1:]) != list(batch.shape[1:]):
        raise ValueError(
            "a randomly applied transform must keep the image shape and dtype "
            "when applied per sample; use same_on_batch=True"
        )
    return batch.index_copy(0, index, done)


def apply_each(batch, params, fn):
    """fn(sample (1, C, H, W), p) for each sample, stacked; one call when parameters are shared."""
    if len(params) == 1:
        return fn(batch, params[0])
    outs = [fn(batch[i : i + 1], p) for i, p in enumerate(params)]
    shapes = {tuple(o.shape) for o in outs}
    if len(shapes) != 1:
        raise ValueError(
            "per-sample parameters gave images of different sizes; use "
            "same_on_batch=True or transform the images one by one"
        )
    return tc.cat(outs, 0)


# -- joint targets ---------------------------------------------------------------------------


def _boxes_np(sample):
    b = sample["boxes"]
    return b.numpy().astype(np.float64) if isinstance(b, tc.Tensor) else np.asarray(b, np.float64)


def finish_boxes(out, sample, boxes, size, keep_extra=None):
    """Clips xyxy boxes to the image, drops degenerate ones together with their labels and
    masks, and writes them back in the input's dtype."""
    h, w = size
    boxes[:, 0::2] = boxes[:, 0::2].clip(0, w)
    boxes[:, 1::2] = boxes[:, 1::2].clip(0, h)
    keep = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    if keep_extra is not None:
        keep &= keep_extra
    dtype = sample["boxes"].dtype if isinstance(sample["boxes"], tc.Tensor) else tc.float32
    out["boxes"] = tc.from_numpy(boxes[keep].copy()).to(dtype)
    idx = tc.from_numpy(np.nonzero(keep)[0].astype(np.int64))
    for key in ("labels", "masks", "area", "iscrowd"):
        if (
            key in out
            and isinstance(out[key], tc.Tensor)
            and out[key].dim() >= 1
            and out[key].shape[0] == len(keep)
        ):
            out[key] = out[key].index_select(0, idx)
    return out


def transform_points_boxes(out, sample, forward_fn, size):
    """Maps each box's four corners through forward_fn (an (M, 2) -> (M, 2) map in continuous
    pixel coordinates) and takes their bounding box."""
    if "boxes" not in sample:
        return out
    b = _boxes_np(sample).reshape(-1, 4)
    corners = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [0, 3]], b[:, [2, 3]]], 1).reshape(-1, 2)
    mapped = forward_fn(corners).reshape(-1, 4, 2)
    boxes = np.concatenate([mapped.min(1), mapped.max(1)], 1)
    return finish_boxes(out, sample, boxes, size)


def masks_as_batch(masks):
    """(K, H, W) or (H, W) masks -> a (1, K, H, W) batch and a function undoing it."""
    shape = list(masks.shape)
    m = masks.reshape([1, -1] + shape[-2:])
    return m, lambda t: t.reshape(shape[:-2] + list(t.shape[-2:]))
