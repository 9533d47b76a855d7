"""Docstrings of tensorcore.vision.transforms (classes and functional) and tensorcore.vision.ops."""

from ._style import doc

TARGET = "tensorcore.vision.transforms"

_RAND = (
    "generator (Generator, optional): the random source.",
    "same_on_batch (bool): for a batch (B, C, H, W), draw one set of random parameters for all "
    "images instead of one per image.",
)
_IMG = "Input: a tensor (..., C, H, W) (uint8 or float), a batch, or a PIL image."
_P = "p (float): probability of applying the transform."
_INTERP = "interpolation (InterpolationMode): ``NEAREST``, ``BILINEAR`` or ``BICUBIC``."
_FILL = "fill (number or sequence): value of the pixels outside the image."
_SIZE = "size (int or sequence): (h, w), or one int for a square (for Resize: the smaller edge)."


def _t(text, args=(), example=""):
    return doc("", f"{text} {_IMG}", list(args), example=example).lstrip()


_TRANSFORMS = {
    "Resize": _t(
        "Resizes to ``size``; an int matches the smaller edge keeping the aspect ratio.",
        [
            _SIZE,
            _INTERP,
            "max_size (int, optional): cap of the longer edge when ``size`` is an int.",
            "antialias (bool, optional): antialias when downsampling (PIL always does).",
        ],
        ">>> transforms.Resize((4, 6))(tc.zeros(3, 8, 8, dtype=tc.uint8)).shape\ntensorcore.Size([3, 4, 6])",
    ),
    "CenterCrop": _t(
        "Crops the center ``size`` region (zero-padded if the image is smaller).", [_SIZE]
    ),
    "RandomCrop": _t(
        "Crops a random ``size`` region, optionally after padding.",
        [
            _SIZE,
            "padding (int or sequence, optional): padding applied first.",
            "pad_if_needed (bool): pad when the image is smaller than ``size``.",
            _FILL,
            "padding_mode (str): ``'constant'``, ``'edge'``, ``'reflect'`` or ``'symmetric'``.",
            *_RAND,
        ],
    ),
    "RandomResizedCrop": _t(
        "Crops a random region of random area (``scale``) and aspect ratio (``ratio``), then resizes it to ``size`` (Inception-style augmentation).",
        [
            _SIZE,
            "scale (tuple): range of the area fraction.",
            "ratio (tuple): range of the aspect ratio.",
            _INTERP,
            "antialias (bool, optional): antialias when downsampling.",
            *_RAND,
        ],
    ),
    "FiveCrop": _t("The four corner crops and the center crop of ``size``, as a tuple.", [_SIZE]),
    "TenCrop": _t(
        "The five crops of :class:`FiveCrop` plus those of the flipped image.",
        [_SIZE, "vertical_flip (bool): flip vertically instead of horizontally."],
    ),
    "Pad": _t(
        "Pads the borders.",
        [
            "padding (int or sequence): 1, 2 (left/right, top/bottom) or 4 (left, top, right, bottom) values.",
            _FILL,
            "padding_mode (str): ``'constant'``, ``'edge'``, ``'reflect'`` or ``'symmetric'``.",
        ],
    ),
    "RandomHorizontalFlip": _t(
        "Flips left-right with probability ``p``.",
        [_P, *_RAND],
        ">>> img = tc.tensor([[[1, 2]]], dtype=tc.uint8)\n>>> transforms.RandomHorizontalFlip(p=1.0)(img)\ntensor([[[2, 1]]], dtype=tensorcore.uint8)",
    ),
    "RandomVerticalFlip": _t("Flips upside down with probability ``p``.", [_P, *_RAND]),
    "Normalize": _t(
        "Normalizes each channel: ``(x - mean[c]) / std[c]`` (float tensors only).",
        [
            "mean (sequence): per-channel means.",
            "std (sequence): per-channel standard deviations.",
            "inplace (bool): modify the input.",
        ],
        ">>> transforms.Normalize([0.5], [0.5])(tc.tensor([[[0.0, 1.0]]]))\ntensor([[[-1.,  1.]]])",
    ),
    "ConvertImageDtype": _t(
        "Converts the dtype and rescales values (uint8 [0, 255] to float [0, 1] and back).",
        ["dtype (tensorcore.dtype): the target dtype."],
    ),
    "Grayscale": _t(
        "Converts to grayscale (ITU-R 601-2 luma).",
        ["num_output_channels (int): 1, or 3 (replicated)."],
    ),
    "RandomGrayscale": _t(
        "Converts to grayscale (keeping the channel count) with probability ``p``.", [_P, *_RAND]
    ),
    "ColorJitter": _t(
        "Randomly changes brightness, contrast, saturation and hue, in random order. Each factor is a number ``f`` (range ``[1 - f, 1 + f]``; ``[-f, f]`` for hue) or a (min, max) pair.",
        [
            "brightness (float or tuple): brightness factor range.",
            "contrast (float or tuple): contrast factor range.",
            "saturation (float or tuple): saturation factor range.",
            "hue (float or tuple): hue shift range, within [-0.5, 0.5].",
            *_RAND,
        ],
    ),
    "GaussianBlur": _t(
        "Blurs with a Gaussian kernel of random standard deviation.",
        [
            "kernel_size (int or sequence): odd kernel size(s).",
            "sigma (float or tuple): the standard deviation or its range.",
            *_RAND,
        ],
    ),
    "RandomAffine": _t(
        "Random affine transformation (rotation, translation, scale, shear) about the center.",
        [
            "degrees (float or tuple): rotation range.",
            "translate (tuple, optional): maximum fractions of width and height.",
            "scale (tuple, optional): scale range.",
            "shear (float or sequence, optional): shear range(s) in degrees.",
            _INTERP,
            _FILL,
            "center (sequence, optional): rotation center.",
            *_RAND,
        ],
    ),
    "RandomRotation": _t(
        "Rotates by a random angle.",
        [
            "degrees (float or tuple): angle range (a number d means (-d, d)).",
            _INTERP,
            "expand (bool): enlarge the output to hold the whole rotated image.",
            "center (sequence, optional): rotation center.",
            _FILL,
            *_RAND,
        ],
    ),
    "RandomPerspective": _t(
        "Random perspective distortion with probability ``p``.",
        ["distortion_scale (float): amount of distortion in [0, 1].", _P, _INTERP, _FILL, *_RAND],
    ),
    "RandomErasing": _t(
        "Erases a random rectangle with probability ``p`` (on tensors, after ToTensor/Normalize).",
        [
            _P,
            "scale (tuple): range of the erased area fraction.",
            "ratio (tuple): range of its aspect ratio.",
            "value (number, sequence or 'random'): the fill.",
            "inplace (bool): modify the input.",
            *_RAND,
        ],
    ),
    "RandomInvert": _t("Inverts the colors with probability ``p``.", [_P, *_RAND]),
    "RandomPosterize": _t(
        "Keeps only the top ``bits`` bits of each channel with probability ``p`` (uint8).",
        ["bits (int): bits kept (0-8).", _P, *_RAND],
    ),
    "RandomSolarize": _t(
        "Inverts the pixels at or above ``threshold`` with probability ``p``.",
        ["threshold (float): the threshold.", _P, *_RAND],
    ),
    "RandomAdjustSharpness": _t(
        "Adjusts the sharpness by ``sharpness_factor`` with probability ``p``.",
        ["sharpness_factor (float): 0 blurs, 1 keeps, 2 doubles the sharpness.", _P, *_RAND],
    ),
    "RandomAutocontrast": _t(
        "Stretches each channel to the full range with probability ``p``.", [_P, *_RAND]
    ),
    "RandomEqualize": _t("Equalizes the histogram (uint8) with probability ``p``.", [_P, *_RAND]),
    "RandomApply": _t(
        "Applies the list of ``transforms`` together with probability ``p``.",
        ["transforms (sequence): the transforms.", _P, *_RAND],
    ),
    "RandomChoice": _t(
        "Applies one transform picked at random (with probabilities ``p``).",
        [
            "transforms (sequence): the candidates.",
            "p (sequence, optional): their probabilities.",
            *_RAND,
        ],
    ),
    "RandomOrder": _t(
        "Applies the transforms in a random order.",
        ["transforms (sequence): the transforms.", *_RAND],
    ),
    "Lambda": doc(
        "", "Applies a user function as a transform.", ["lambd (callable): the function."]
    ).lstrip(),
    "LinearTransformation": _t(
        "Flattens the tensor, subtracts ``mean_vector`` and multiplies by ``transformation_matrix`` (e.g. ZCA whitening), then restores the shape.",
        ["transformation_matrix (Tensor): (D, D) with D = C*H*W.", "mean_vector (Tensor): (D,)."],
    ),
    "InterpolationMode": "The interpolation of the geometric transforms: ``NEAREST``, ``BILINEAR``, ``BICUBIC``, ``BOX``, ``HAMMING``, ``LANCZOS`` (the last three for PIL images only).",
}

_F_IMG = "img (Tensor or PIL Image): image (..., C, H, W)."
_FUNCTIONAL = {
    "hflip": doc("hflip(img) -> Tensor", "Flips the image left-right.", [_F_IMG]),
    "vflip": doc("vflip(img) -> Tensor", "Flips the image upside down.", [_F_IMG]),
    "center_crop": doc(
        "center_crop(img, output_size) -> Tensor",
        "Crops the center ``output_size`` region (padding with zeros if needed).",
        [_F_IMG, "output_size (int or sequence): (h, w)."],
    ),
    "resized_crop": doc(
        "resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=None) -> Tensor",
        "Crops the given region and resizes it to ``size``.",
        [
            _F_IMG,
            "top (int): row of the top edge.",
            "left (int): column of the left edge.",
            "height (int): crop height.",
            "width (int): crop width.",
            _SIZE,
            _INTERP,
            "antialias (bool, optional): antialias when downsampling.",
        ],
    ),
    "five_crop": doc(
        "five_crop(img, size) -> tuple",
        "The four corner crops and the center crop.",
        [_F_IMG, _SIZE],
    ),
    "ten_crop": doc(
        "ten_crop(img, size, vertical_flip=False) -> tuple",
        "The five crops of the image and of its flipped version.",
        [_F_IMG, _SIZE, "vertical_flip (bool): flip vertically instead."],
    ),
    "normalize": doc(
        "normalize(tensor, mean, std, inplace=False) -> Tensor",
        "Per-channel ``(x - mean) / std`` of a float tensor (..., C, H, W).",
        [
            "tensor (Tensor): float image.",
            "mean (sequence): per-channel means.",
            "std (sequence): per-channel standard deviations.",
            "inplace (bool): modify the input.",
        ],
    ),
    "convert_image_dtype": doc(
        "convert_image_dtype(image, dtype=tensorcore.float32) -> Tensor",
        "Converts the dtype, rescaling the value range (e.g. uint8 [0, 255] to float [0, 1]).",
        ["image (Tensor): the image.", "dtype (tensorcore.dtype): the target dtype."],
        example=">>> img = tc.tensor([[[0, 255]]], dtype=tc.uint8)\n>>> transforms.functional.convert_image_dtype(img)\ntensor([[[0., 1.]]])",
    ),
    "rgb_to_grayscale": doc(
        "rgb_to_grayscale(img, num_output_channels=1) -> Tensor",
        "Luma ``0.299 R + 0.587 G + 0.114 B`` of an RGB image.",
        [_F_IMG, "num_output_channels (int): 1 or 3."],
    ),
    "adjust_brightness": doc(
        "adjust_brightness(img, brightness_factor) -> Tensor",
        "Multiplies the intensities by ``brightness_factor`` (clamped to the range).",
        [_F_IMG, "brightness_factor (float): 0 gives black, 1 the original."],
    ),
    "adjust_contrast": doc(
        "adjust_contrast(img, contrast_factor) -> Tensor",
        "Blends with the mean gray level: 0 gives a gray image, 1 the original.",
        [_F_IMG, "contrast_factor (float): the factor."],
    ),
    "adjust_saturation": doc(
        "adjust_saturation(img, saturation_factor) -> Tensor",
        "Blends with the grayscale image: 0 gives grayscale, 1 the original.",
        [_F_IMG, "saturation_factor (float): the factor."],
    ),
    "adjust_sharpness": doc(
        "adjust_sharpness(img, sharpness_factor) -> Tensor",
        "Blends with a smoothed image: 0 blurs, 1 keeps, 2 sharpens.",
        [_F_IMG, "sharpness_factor (float): the factor."],
    ),
    "adjust_gamma": doc(
        "adjust_gamma(img, gamma, gain=1.0) -> Tensor",
        "Gamma correction ``gain * x^gamma`` on intensities scaled to [0, 1].",
        [_F_IMG, "gamma (float): non-negative exponent.", "gain (float): multiplier."],
    ),
    "affine": doc(
        "affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None) -> Tensor",
        "Affine transformation about the center (or ``center``).",
        [
            _F_IMG,
            "angle (float): rotation in degrees (counter-clockwise).",
            "translate (sequence of int): horizontal and vertical shift.",
            "scale (float): scale.",
            "shear (float or sequence): shear angle(s) in degrees.",
            _INTERP,
            _FILL,
            "center (sequence, optional): the center.",
        ],
    ),
    "perspective": doc(
        "perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None) -> Tensor",
        "Perspective transformation mapping the four ``startpoints`` to ``endpoints``.",
        [
            _F_IMG,
            "startpoints (list): four (x, y) corners of the input.",
            "endpoints (list): where they go.",
            _INTERP,
            _FILL,
        ],
    ),
    "gaussian_blur": doc(
        "gaussian_blur(img, kernel_size, sigma=None) -> Tensor",
        "Gaussian blur with reflect padding.",
        [
            _F_IMG,
            "kernel_size (int or sequence): odd sizes.",
            "sigma (float or sequence, optional): standard deviation(s) (default from the kernel size).",
        ],
    ),
    "invert": doc("invert(img) -> Tensor", "Inverts the colors (``max - x``).", [_F_IMG]),
    "posterize": doc(
        "posterize(img, bits) -> Tensor",
        "Keeps the top ``bits`` bits of each uint8 channel.",
        [_F_IMG, "bits (int): 0 to 8."],
    ),
    "solarize": doc(
        "solarize(img, threshold) -> Tensor",
        "Inverts the pixels at or above ``threshold``.",
        [_F_IMG, "threshold (float): the threshold."],
    ),
    "autocontrast": doc(
        "autocontrast(img) -> Tensor",
        "Stretches each channel so its minimum and maximum span the full range.",
        [_F_IMG],
    ),
    "equalize": doc(
        "equalize(img) -> Tensor",
        "Histogram equalization of each channel of a uint8 image.",
        [_F_IMG],
    ),
    "get_dimensions": doc(
        "get_dimensions(img) -> list", "``[channels, height, width]`` of an image.", [_F_IMG]
    ),
    "get_image_size": doc(
        "get_image_size(img) -> list", "``[width, height]`` of an image.", [_F_IMG]
    ),
    "get_image_num_channels": doc(
        "get_image_num_channels(img) -> int", "The number of channels of an image.", [_F_IMG]
    ),
}

_BOXES = "boxes (Tensor or list of Tensors): (K, 5) rows ``(batch_index, x1, y1, x2, y2)``, or one (K_i, 4) tensor per image."
_OUT_SIZE = "output_size (int or tuple): (h, w) of each pooled region."
_SCALE = "spatial_scale (float): multiplies the box coordinates to map them onto ``input`` (e.g. 1/16 for stride 16)."
_SAMPLING = "sampling_ratio (int): sampling points per bin side (<= 0: adaptive, ceil(roi size / output size))."
_OPS = {
    "roi_align": doc(
        "roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False) -> Tensor",
        "RoI Align (Mask R-CNN): bilinearly samples each box into a fixed grid and averages each bin. Output (K, C, h, w).",
        [
            "input (Tensor): features (N, C, H, W).",
            _BOXES,
            _OUT_SIZE,
            _SCALE,
            _SAMPLING,
            "aligned (bool): shift the boxes by -0.5 pixel for exact alignment.",
        ],
    ),
    "roi_pool": doc(
        "roi_pool(input, boxes, output_size, spatial_scale=1.0) -> Tensor",
        "RoI max pooling (Fast R-CNN): max over each bin of each box. Output (K, C, h, w).",
        ["input (Tensor): features (N, C, H, W).", _BOXES, _OUT_SIZE, _SCALE],
    ),
    "ps_roi_align": doc(
        "ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1) -> Tensor",
        "Position-sensitive RoI Align (R-FCN): bin (i, j) reads its own channel group. ``C`` must be divisible by h*w; output (K, C/(h*w), h, w).",
        ["input (Tensor): features (N, C, H, W).", _BOXES, _OUT_SIZE, _SCALE, _SAMPLING],
    ),
    "ps_roi_pool": doc(
        "ps_roi_pool(input, boxes, output_size, spatial_scale=1.0) -> Tensor",
        "Position-sensitive RoI average pooling (R-FCN).",
        ["input (Tensor): features (N, C, H, W).", _BOXES, _OUT_SIZE, _SCALE],
    ),
    "RoIAlign": doc(
        "",
        "Module form of :func:`roi_align`.",
        [_OUT_SIZE, _SCALE, _SAMPLING, "aligned (bool): half-pixel alignment."],
    ).lstrip(),
    "RoIPool": doc("", "Module form of :func:`roi_pool`.", [_OUT_SIZE, _SCALE]).lstrip(),
    "PSRoIAlign": doc(
        "", "Module form of :func:`ps_roi_align`.", [_OUT_SIZE, _SCALE, _SAMPLING]
    ).lstrip(),
    "PSRoIPool": doc("", "Module form of :func:`ps_roi_pool`.", [_OUT_SIZE, _SCALE]).lstrip(),
    "DeformConv2d": doc(
        "",
        "Deformable convolution v2 layer: called as ``layer(input, offset, mask=None)``, where ``offset`` (N, 2*groups*kh*kw, H_out, W_out) shifts each kernel sample and ``mask`` modulates it (see :func:`deform_conv2d`).",
        [
            "in_channels (int): input channels.",
            "out_channels (int): output channels.",
            "kernel_size (int or tuple): kernel size.",
            "stride (int or tuple): step.",
            "padding (int or tuple): zero padding.",
            "dilation (int or tuple): kernel spacing.",
            "groups (int): channel groups.",
            "bias (bool): learnable bias.",
        ],
    ).lstrip(),
    "FeaturePyramidNetwork": doc(
        "",
        "Feature Pyramid Network: 1x1 lateral convolutions bring each input level to ``out_channels``, a top-down pathway adds the upsampled coarser level, and 3x3 convolutions smooth the result. Takes and returns an ordered dict of feature maps (fine to coarse).",
        [
            "in_channels_list (list of int): channels of each input level (0 skips a level).",
            "out_channels (int): channels of every output level.",
            "extra_blocks (module, optional): adds levels (e.g. LastLevelMaxPool).",
            "norm_layer (callable, optional): normalization after the convolutions.",
        ],
    ).lstrip(),
}

TARGETS = {
    "tensorcore.vision.transforms": _TRANSFORMS,
    "tensorcore.vision.transforms.functional": _FUNCTIONAL,
    "tensorcore.vision.ops": _OPS,
}
DOCS = _TRANSFORMS
