"""torchvision.utils: image grids, saving, and drawing boxes, masks and keypoints on images.

Drawing uses Pillow's ImageDraw exactly as torchvision 0.14 does (same shapes, same default
bitmap font for labels), so the pixels match torchvision's; make_grid/save_image and the mask
blend are tensor code with torchvision's arithmetic.
"""

import math
import warnings

import numpy as np

import tensorcore as tc

__all__ = [
    "make_grid",
    "save_image",
    "draw_bounding_boxes",
    "draw_segmentation_masks",
    "draw_keypoints",
]


def _pil():
    try:
        from PIL import Image, ImageColor, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover
        raise RuntimeError("tensorcore.vision.utils needs Pillow (Debian's python3-pil)") from None
    return Image, ImageColor, ImageDraw, ImageFont


def _as_batch(tensor):
    if isinstance(tensor, (list, tuple)):
        for t in tensor:
            if not isinstance(t, tc.Tensor):
                raise TypeError(
                    f"make_grid: tensor or list of tensors expected, got a list containing "
                    f"{type(t).__name__}"
                )
        tensor = tc.stack(list(tensor), 0)
    elif not isinstance(tensor, tc.Tensor):
        raise TypeError(
            f"make_grid: tensor or list of tensors expected, got {type(tensor).__name__}"
        )
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.shape[0] == 1:  # grayscale shown as RGB
            tensor = tc.cat([tensor] * 3, 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() != 4:
        raise ValueError(
            f"make_grid: expected 2-d, 3-d or 4-d images, got shape {list(tensor.shape)}"
        )
    if tensor.shape[1] == 1:
        tensor = tc.cat([tensor] * 3, 1)
    return tensor


def _normalize_(t, value_range):
    low, high = value_range if value_range is not None else (float(t.min()), float(t.max()))
    t.clamp_(min=low, max=high)
    t.sub_(low).div_(max(high - low, 1e-5))


@tc.no_grad()
def make_grid(
    tensor,
    nrow=8,
    padding=2,
    normalize=False,
    value_range=None,
    scale_each=False,
    pad_value=0.0,
    **kwargs,
):
    """Tiles a (B, C, H, W) batch (or a list of images) into one (C, H', W') image, nrow per row."""
    tensor = _as_batch(tensor)
    if normalize:
        tensor = tensor.clone()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("make_grid: value_range has to be a tuple (min, max) if specified")
        if scale_each:
            for image in tensor:
                _normalize_(image, value_range)
        else:
            _normalize_(tensor, value_range)
    if tensor.shape[0] == 1:
        return tensor.squeeze(0)
    count = tensor.shape[0]
    cols = min(nrow, count)
    rows = int(math.ceil(count / cols))
    cell_h, cell_w = tensor.shape[2] + padding, tensor.shape[3] + padding
    grid = tc.full(
        (tensor.shape[1], cell_h * rows + padding, cell_w * cols + padding),
        pad_value,
        dtype=tensor.dtype,
        device=tensor.device,
    )
    for k in range(count):
        y, x = divmod(k, cols)
        grid[
            :,
            y * cell_h + padding : (y + 1) * cell_h,
            x * cell_w + padding : (x + 1) * cell_w,
        ] = tensor[k]
    return grid


@tc.no_grad()
def save_image(tensor, fp, format=None, **kwargs):
    """Writes an image (or a grid of a batch, see make_grid) with values in [0, 1] to a file."""
    Image = _pil()[0]
    grid = make_grid(tensor, **kwargs)
    # +0.5 rounds to the nearest level, as torchvision.
    pixels = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(tc.uint8).cpu().numpy()
    Image.fromarray(np.ascontiguousarray(pixels)).save(fp, format=format)


def _palette(n):
    # torchvision's deterministic default colors.
    base = np.array([2**25 - 1, 2**15 - 1, 2**21 - 1], dtype=np.int64)
    return [tuple(int(c) for c in (i * base) % 255) for i in range(n)]


def _check_uint8_image(image, op, channels):
    if not isinstance(image, tc.Tensor):
        raise TypeError(f"{op}: the image must be a tensor, got {type(image).__name__}")
    if image.dtype != tc.uint8:
        raise ValueError(f"{op}: the image dtype must be uint8, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError(f"{op}: pass individual (C, H, W) images, not batches")
    if image.shape[0] not in channels:
        raise ValueError(
            f"{op}: only images with {' or '.join(map(str, channels))} channels are supported, "
            f"got {image.shape[0]}"
        )


def _to_pil(image):
    Image = _pil()[0]
    return Image.fromarray(np.ascontiguousarray(image.permute(1, 2, 0).cpu().numpy()))


def _from_pil(img):
    return tc.from_numpy(np.ascontiguousarray(np.array(img).transpose(2, 0, 1)))


@tc.no_grad()
def draw_bounding_boxes(
    image, boxes, labels=None, colors=None, fill=False, width=1, font=None, font_size=None
):
    """Draws (N, 4) xyxy boxes (and labels) on a uint8 (C, H, W) image; returns a new image."""
    _, ImageColor, ImageDraw, ImageFont = _pil()
    _check_uint8_image(image, "draw_bounding_boxes", (1, 3))
    if boxes.dim() != 2 or boxes.shape[-1] != 4:
        raise ValueError(f"draw_bounding_boxes: boxes must be (N, 4), got {list(boxes.shape)}")
    if bool((boxes[:, 0] > boxes[:, 2]).any()) or bool((boxes[:, 1] > boxes[:, 3]).any()):
        raise ValueError(
            "draw_bounding_boxes: boxes need to be in (xmin, ymin, xmax, ymax) format; use "
            "tensorcore.vision.ops.box_convert to convert them"
        )
    n = boxes.shape[0]
    if n == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn")
        return image
    if labels is None:
        labels = [None] * n
    elif len(labels) != n:
        raise ValueError(
            f"draw_bounding_boxes: number of boxes ({n}) and labels ({len(labels)}) mismatch"
        )
    if colors is None:
        colors = _palette(n)
    elif isinstance(colors, list):
        if len(colors) < n:
            raise ValueError(
                f"draw_bounding_boxes: number of colors ({len(colors)}) is less than number of "
                f"boxes ({n})"
            )
    else:
        colors = [colors] * n
    colors = [ImageColor.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        text_font = ImageFont.load_default()
    else:
        text_font = ImageFont.truetype(font=font, size=font_size or 10)
    if image.shape[0] == 1:
        image = image.repeat(3, 1, 1)
    canvas = _to_pil(image)
    draw = ImageDraw.Draw(canvas, "RGBA") if fill else ImageDraw.Draw(canvas)
    for box, color, label in zip(boxes.to(tc.int64).tolist(), colors, labels):
        if fill:
            draw.rectangle(box, width=width, outline=color, fill=color + (100,))
        else:
            draw.rectangle(box, width=width, outline=color)
        if label is not None:
            margin = width + 1
            draw.text((box[0] + margin, box[1] + margin), label, fill=color, font=text_font)
    return _from_pil(canvas)


@tc.no_grad()
def draw_segmentation_masks(image, masks, alpha=0.8, colors=None):
    """Blends boolean (N, H, W) masks in their colors over a uint8 RGB (3, H, W) image."""
    ImageColor = _pil()[1]
    _check_uint8_image(image, "draw_segmentation_masks", (3,))
    if masks.dim() == 2:
        masks = masks.unsqueeze(0)
    if masks.dim() != 3:
        raise ValueError("draw_segmentation_masks: masks must be of shape (H, W) or (N, H, W)")
    if masks.dtype != tc.bool:
        raise ValueError(f"draw_segmentation_masks: masks must be of dtype bool, got {masks.dtype}")
    if tuple(masks.shape[-2:]) != tuple(image.shape[-2:]):
        raise ValueError("draw_segmentation_masks: the image and the masks must have the same size")
    n = masks.shape[0]
    if colors is not None and not isinstance(colors, list):
        colors = [colors]
    if colors is not None and n > len(colors):
        raise ValueError(f"draw_segmentation_masks: more masks ({n}) than colors ({len(colors)})")
    if n == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn")
        return image
    if colors is None:
        colors = _palette(n)
    if not isinstance(colors[0], (tuple, str)):
        raise ValueError("draw_segmentation_masks: colors must be a tuple or a string, or a list")
    if isinstance(colors[0], tuple) and len(colors[0]) != 3:
        raise ValueError(
            "draw_segmentation_masks: a color tuple needs 3 values (pass a list of colors)"
        )
    painted = image.clone()
    for mask, color in zip(masks, colors):
        rgb = ImageColor.getrgb(color) if isinstance(color, str) else color
        # Later masks paint over earlier ones, as torchvision.
        painted = tc.where(
            mask.unsqueeze(0), tc.tensor(rgb, dtype=tc.uint8).reshape(3, 1, 1), painted
        )
    blended = image * (1 - alpha) + painted * alpha
    return blended.to(tc.uint8)


@tc.no_grad()
def draw_keypoints(image, keypoints, connectivity=None, colors=None, radius=2, width=3):
    """Draws (N, K, 2) keypoints (and the given connections) on a uint8 RGB (3, H, W) image."""
    ImageDraw = _pil()[2]
    _check_uint8_image(image, "draw_keypoints", (3,))
    if keypoints.dim() != 3 or keypoints.shape[-1] != 2:
        raise ValueError("draw_keypoints: keypoints must be of shape (num_instances, K, 2)")
    canvas = _to_pil(image)
    draw = ImageDraw.Draw(canvas)
    for instance in keypoints.to(tc.int64).tolist():
        for x, y in instance:
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colors, width=0)
        for a, b in connectivity or []:
            draw.line((tuple(instance[a]), tuple(instance[b])), width=width)
    return _from_pil(canvas)
