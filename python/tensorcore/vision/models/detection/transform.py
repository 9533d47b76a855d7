"""GeneralizedRCNNTransform (torchvision.models.detection.transform): normalize, resize to the
detector's min/max size, batch into one padded tensor, and map predictions back afterwards."""

import math

import numpy as np

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn import functional as F

from ._utils import _float_tensor

_native = tc._C._models_vision
from .image_list import ImageList

__all__ = ["GeneralizedRCNNTransform", "resize_boxes", "resize_keypoints"]


def _resize_scale(height, width, min_size, max_size):
    """torchvision's scale for an image: min(min_size / shorter, max_size / longer), computed with
    its float32 arithmetic (the reciprocal of the side times the target), so sizes agree exactly."""
    shorter, longer = np.float32(min(height, width)), np.float32(max(height, width))
    by_min = (np.float32(1) / shorter) * np.float32(min_size)
    by_max = (np.float32(1) / longer) * np.float32(max_size)
    return float(min(by_min, by_max))


def _resized_size(height, width, min_size, max_size, fixed_size):
    if fixed_size is not None:
        return int(fixed_size[1]), int(fixed_size[0])
    scale = _resize_scale(height, width, min_size, max_size)
    return int(math.floor(height * scale)), int(math.floor(width * scale))


def _resize_image_and_masks(image, self_min_size, self_max_size, target=None, fixed_size=None):
    """Bilinear resize of a (C, H, W) image (and nearest resize of target['masks'])."""
    size = _resized_size(image.shape[-2], image.shape[-1], self_min_size, self_max_size, fixed_size)
    if min(size) < 1:
        raise ValueError(
            f"GeneralizedRCNNTransform: image of size {tuple(image.shape[-2:])} would be resized "
            f"to {size}; it is too small or too elongated for min_size={self_min_size}, "
            f"max_size={self_max_size}"
        )
    image = F.interpolate(image[None], size=size, mode="bilinear", align_corners=False)[0]
    if target is not None and "masks" in target:
        masks = F.interpolate(target["masks"][:, None].float(), size=size)[:, 0].to(tc.uint8)
        target["masks"] = masks
    return image, target


def _ratios(new_size, original_size):
    # float32 ratios as torchvision computes them; Python floats of them keep a float64 input's
    # products the same as torchvision's float64 * float32-scalar ones.
    return [float(np.float32(s) / np.float32(s_orig)) for s, s_orig in zip(new_size, original_size)]


def resize_boxes(boxes, original_size, new_size):
    """Scales xyxy boxes from an image of size original_size (h, w) to one of new_size."""
    ratio_h, ratio_w = _ratios(new_size, original_size)
    x1, y1, x2, y2 = boxes.unbind(1)
    return tc.stack((x1 * ratio_w, y1 * ratio_h, x2 * ratio_w, y2 * ratio_h), dim=1)


def resize_keypoints(keypoints, original_size, new_size):
    """Scales (N, K, 3) keypoints (x, y, visibility) between image sizes."""
    ratio_h, ratio_w = _ratios(new_size, original_size)
    return tc.stack(
        (keypoints[..., 0] * ratio_w, keypoints[..., 1] * ratio_h, keypoints[..., 2]), dim=-1
    )


class GeneralizedRCNNTransform(nn.Module):
    """Prepares images and targets for a detector: normalize with image_mean/image_std, resize so
    the shorter side is min_size (a random choice among min_size in training) unless the longer
    side would exceed max_size, pad into one batch whose sides are multiples of size_divisible.

    forward(images, targets=None) -> (ImageList, targets with boxes scaled to the resized images);
    postprocess(detections, resized_sizes, original_sizes) scales boxes back."""

    def __init__(
        self,
        min_size,
        max_size,
        image_mean,
        image_std,
        size_divisible=32,
        fixed_size=None,
        **kwargs,
    ):
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        if len(image_mean) != len(image_std):
            raise ValueError(
                f"GeneralizedRCNNTransform: image_mean has {len(image_mean)} entries but image_std "
                f"has {len(image_std)}"
            )
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)
        if kwargs:
            raise TypeError(
                f"GeneralizedRCNNTransform got unexpected keyword arguments {sorted(kwargs)}"
            )

    def forward(self, images, targets=None):
        images = list(images)
        if not images:
            raise ValueError(
                "GeneralizedRCNNTransform: got an empty list of images; expected at least one "
                "(C, H, W) image"
            )
        if targets is not None:
            if len(targets) != len(images):
                raise ValueError(
                    f"GeneralizedRCNNTransform: got {len(images)} images but {len(targets)} targets"
                )
            targets = [
                dict(t) for t in targets
            ]  # shallow copies: the caller's dicts stay untouched
        for i, image in enumerate(images):
            if not isinstance(image, tc.Tensor):
                raise TypeError(f"images[{i}] must be a Tensor, got {type(image).__name__}")
            if image.dim() != 3:
                raise ValueError(
                    f"images is expected to be a list of 3d tensors of shape [C, H, W], "
                    f"got {list(image.shape)} for images[{i}]"
                )
        if self.training and self._skip_resize:
            for i, image in enumerate(images):
                images[i] = self.normalize(image)
            image_sizes = [(int(img.shape[-2]), int(img.shape[-1])) for img in images]
            return ImageList(self.batch_images(images, self.size_divisible), image_sizes), targets
        # Normalize, resize and batch run natively (models/vision/detection.cpp): one
        # implementation for eager runs and traced graphs, which then accept any image size.
        if self.training:
            min_sizes = [float(self.torch_choice(self.min_size)) for _ in images]
        else:
            min_sizes = [float(self.min_size[-1])]  # evaluation uses the largest scale
        fixed = None if self.fixed_size is None else tuple(int(v) for v in self.fixed_size)
        batch, sizes = _native.detection_preprocess(
            images,
            [float(v) for v in self.image_mean],
            [float(v) for v in self.image_std],
            min_sizes,
            float(self.max_size),
            int(self.size_divisible),
            fixed,
        )
        # A traced graph keeps the sizes as a tensor (they vary with the input); eager callers
        # get torchvision's list of (h, w) tuples.
        image_sizes = sizes if tc.jit.is_tracing() else [tuple(s) for s in sizes.tolist()]
        if targets is not None:
            for i, target in enumerate(targets):
                original = (int(images[i].shape[-2]), int(images[i].shape[-1]))
                new_size = tuple(sizes[i].tolist())
                target["boxes"] = resize_boxes(target["boxes"], original, new_size)
                if "keypoints" in target:
                    target["keypoints"] = resize_keypoints(target["keypoints"], original, new_size)
                if "masks" in target:
                    masks = F.interpolate(target["masks"][:, None].float(), size=new_size)
                    target["masks"] = masks[:, 0].to(tc.uint8)
        return ImageList(batch, image_sizes), targets

    def normalize(self, image):
        if not image.is_floating_point():
            raise TypeError(
                f"Expected input images to be of floating type (in range [0, 1]), "
                f"but found type {image.dtype} instead"
            )
        if image.shape[0] != len(self.image_mean):
            raise ValueError(
                f"GeneralizedRCNNTransform: expected images with {len(self.image_mean)} channels "
                f"(one per image_mean entry), got an image of shape {list(image.shape)}"
            )
        mean = _float_tensor(self.image_mean, image.dtype, image.device)
        std = _float_tensor(self.image_std, image.dtype, image.device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k):
        """A uniformly random element of k, drawn from tensorcore's generator (as torchvision
        draws from torch's), so tc.manual_seed makes training resizes reproducible."""
        return k[int(tc.empty(1).uniform_(0.0, float(len(k))).item())]

    def resize(self, image, target=None):
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = float(self.torch_choice(self.min_size))
        else:
            size = float(self.min_size[-1])  # evaluation uses the largest scale
        image, target = _resize_image_and_masks(
            image, size, float(self.max_size), target, self.fixed_size
        )
        if target is None:
            return image, target
        new_size = tuple(image.shape[-2:])
        target["boxes"] = resize_boxes(target["boxes"], (h, w), new_size)
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(target["keypoints"], (h, w), new_size)
        return image, target

    def max_by_axis(self, the_list):
        return [max(sizes) for sizes in zip(*the_list)]

    def batch_images(self, images, size_divisible=32):
        """Zero-pads the images at the bottom/right into one (N, C, H, W) tensor, H and W rounded
        up to multiples of size_divisible."""
        channels = {img.shape[0] for img in images}
        if len(channels) != 1:
            raise ValueError(
                f"GeneralizedRCNNTransform: images have different channel counts {sorted(channels)}"
            )
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        batched = images[0].new_full([len(images)] + max_size, 0)
        for i, img in enumerate(images):
            batched[i, :, : img.shape[1], : img.shape[2]].copy_(img)
        return batched

    def postprocess(self, result, image_shapes, original_image_sizes):
        """Scales each detection's boxes (and keypoints) from the resized image to the original."""
        if self.training:
            return result
        for i, (pred, resized, original) in enumerate(
            zip(result, image_shapes, original_image_sizes)
        ):
            result[i]["boxes"] = resize_boxes(pred["boxes"], resized, original)
            if "masks" in pred:
                raise NotImplementedError(
                    "GeneralizedRCNNTransform.postprocess: pasting instance masks "
                    "(Mask R-CNN) is not implemented in tensorcore"
                )
            if "keypoints" in pred:
                result[i]["keypoints"] = resize_keypoints(pred["keypoints"], resized, original)
        return result

    def __repr__(self):
        return (
            f"{type(self).__name__}(\n    Normalize(mean={self.image_mean}, std={self.image_std})\n"
            f"    Resize(min_size={self.min_size}, max_size={self.max_size}, mode='bilinear')\n)"
        )
