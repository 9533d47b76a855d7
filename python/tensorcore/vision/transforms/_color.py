"""Color and pixel functional transforms, dtype conversion, normalize, blur and erase."""

import numbers

import tensorcore as tc

from ._common import V, as_batch, check_image, channels, max_value


def convert_image_dtype(image, dtype=tc.float32):
    check_image(image, "convert_image_dtype")
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype in (tc.float16, tc.bfloat16, tc.float32, tc.float64):
            return image.to(dtype)
        if (image.dtype == tc.float32 and dtype in (tc.int32, tc.int64)) or (
            image.dtype == tc.float64 and dtype == tc.int64
        ):
            raise RuntimeError(
                f"convert_image_dtype: the cast from {image.dtype} to {dtype} "
                "cannot be performed safely."
            )
        eps = 1e-3
        return image.mul(max_value(dtype) + 1.0 - eps).to(dtype)
    in_max = max_value(image.dtype)
    if dtype in (tc.float16, tc.bfloat16, tc.float32, tc.float64):
        return image.to(dtype) / in_max
    out_max = max_value(dtype)
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return tc.div(image, factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return image.to(dtype) * factor


def _per_channel(values, like, op, name):
    t = tc.as_tensor(values, dtype=like.dtype, device=like.device)
    if t.dim() == 0:
        t = t.reshape(1)
    if t.dim() != 1 or t.shape[0] not in (1, channels(like)):
        raise ValueError(f"{op}: {name} needs 1 or {channels(like)} values, got {list(t.shape)}")
    return t.reshape(-1, 1, 1)


def normalize(tensor, mean, std, inplace=False):
    check_image(tensor, "normalize", 3)
    if not tensor.is_floating_point():
        raise TypeError(f"normalize: input tensor should be a float tensor, got {tensor.dtype}")
    mean_t = _per_channel(mean, tensor, "normalize", "mean")
    std_t = _per_channel(std, tensor, "normalize", "std")
    if bool((std_t == 0).any()):
        raise ValueError(
            f"normalize: std evaluated to zero after conversion to {tensor.dtype}, "
            "leading to division by zero."
        )
    if inplace:
        tensor.sub_(mean_t).div_(std_t)
        return tensor
    return (tensor - mean_t) / std_t


def _bound(img):
    return 1.0 if img.is_floating_point() else 255.0


def _blend(img1, img2, ratio):
    bound = _bound(img1)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def _check_rgb(img, op, allowed=(1, 3)):
    check_image(img, op, 3)
    if channels(img) not in allowed:
        raise ValueError(
            f"{op}: expected {' or '.join(map(str, allowed))} channels, got {channels(img)}"
        )


def rgb_to_grayscale(img, num_output_channels=1):
    check_image(img, "rgb_to_grayscale", 3)
    if num_output_channels not in (1, 3):
        raise ValueError("rgb_to_grayscale: num_output_channels should be either 1 or 3")
    if channels(img) == 1:
        l_img = img
    elif channels(img) == 3:
        r, g, b = img.unbind(dim=-3)
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(-3)
    else:
        raise ValueError(f"rgb_to_grayscale: expected 1 or 3 channels, got {channels(img)}")
    if num_output_channels == 3:
        return l_img.expand(img.shape)
    return l_img


def _factor(f, op, name="factor"):
    if isinstance(f, tc.Tensor):  # per-sample factors, shape (N, 1, 1, 1)
        return f
    if f < 0:
        raise ValueError(f"{op}: {name} ({f}) is not non-negative.")
    return float(f)


def _fast(img):
    """Whether the fused C++ color kernels handle this image (CPU or CUDA, the same per-pixel
    code)."""
    return img.dtype in (tc.uint8, tc.float32) and img.dim() >= 3


def _factor_list(f):
    return f.reshape(-1).tolist() if isinstance(f, tc.Tensor) else [float(f)]


def adjust_brightness(img, brightness_factor):
    _check_rgb(img, "adjust_brightness")
    f = _factor(brightness_factor, "adjust_brightness", "brightness_factor")
    if _fast(img):
        return V.blend(img, _factor_list(f), 0, [])
    return _blend(img, tc.zeros_like(img), f)


def adjust_contrast(img, contrast_factor):
    _check_rgb(img, "adjust_contrast")
    f = _factor(contrast_factor, "adjust_contrast", "contrast_factor")
    dtype = img.dtype if img.is_floating_point() else tc.float32
    gray = rgb_to_grayscale(img) if channels(img) == 3 else img
    mean = gray.to(dtype).mean(dim=(-3, -2, -1), keepdim=True)
    if _fast(img):
        return V.blend(img, _factor_list(f), 2, mean.reshape(-1).tolist())
    return _blend(img, mean, f)


def adjust_saturation(img, saturation_factor):
    _check_rgb(img, "adjust_saturation")
    f = _factor(saturation_factor, "adjust_saturation", "saturation_factor")
    if channels(img) == 1:
        return img
    if _fast(img):
        return V.blend(img, _factor_list(f), 1, [])
    return _blend(img, rgb_to_grayscale(img), f)


def _rgb2hsv(img):
    r, g, b = img.unbind(dim=-3)
    maxc = img.amax(dim=-3)
    minc = img.amin(dim=-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = tc.ones_like(maxc)
    s = cr / tc.where(eqc, ones, maxc)
    cr_divisor = tc.where(eqc, ones, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    hr = (maxc == r).to(img.dtype) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)).to(img.dtype) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)).to(img.dtype) * (4.0 + gc - rc)
    h = hr + hg + hb
    h = tc.fmod((h / 6.0 + 1.0), 1.0)
    return tc.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(dim=-3)
    i = tc.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(tc.int32)
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    i = i % 6
    a1 = tc.stack((v, q, p, p, t, v), dim=-3)
    a2 = tc.stack((t, v, v, q, p, p), dim=-3)
    a3 = tc.stack((p, p, t, v, v, q), dim=-3)
    a4 = tc.stack((a1, a2, a3), dim=-4)
    mask = (
        i.unsqueeze(-3) == tc.arange(6, dtype=tc.int32, device=img.device).reshape(-1, 1, 1)
    ).to(img.dtype)
    return (a4 * mask.unsqueeze(-4)).sum(dim=-3)


def adjust_hue(img, hue_factor):
    _check_rgb(img, "adjust_hue")
    if not isinstance(hue_factor, tc.Tensor) and not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if channels(img) == 1:
        return img
    if _fast(img):
        return V.adjust_hue(img, _factor_list(hue_factor))
    orig = img.dtype
    if img.dtype == tc.uint8:
        img = img.to(tc.float32) / 255.0
    hsv = _rgb2hsv(img)
    h, s, v = hsv.unbind(dim=-3)
    h = tc.remainder(h + hue_factor, 1.0)
    out = _hsv2rgb(tc.stack((h, s, v), dim=-3))
    if orig == tc.uint8:
        out = (out * 255.0).to(orig)
    return out


def adjust_gamma(img, gamma, gain=1.0):
    check_image(img, "adjust_gamma", 3)
    if gamma < 0:
        raise ValueError("adjust_gamma: gamma should be a non-negative real number")
    result = img if img.is_floating_point() else convert_image_dtype(img, tc.float32)
    result = (gain * result**gamma).clamp(0, 1)
    return convert_image_dtype(result, img.dtype)


def adjust_sharpness(img, sharpness_factor):
    _check_rgb(img, "adjust_sharpness")
    f = _factor(sharpness_factor, "adjust_sharpness", "sharpness_factor")
    if isinstance(f, tc.Tensor):
        if f.numel() != 1:
            raise ValueError("adjust_sharpness: takes one sharpness_factor for the whole batch")
        f = float(f.reshape(-1)[0])
    return V.adjust_sharpness(img, f)


def invert(img):
    check_image(img, "invert", 3)
    return V.invert(img)


def posterize(img, bits):
    check_image(img, "posterize", 3)
    return V.posterize(img, int(bits))


def solarize(img, threshold):
    check_image(img, "solarize", 3)
    return V.solarize(img, float(threshold))


def autocontrast(img):
    check_image(img, "autocontrast", 3)
    return V.autocontrast(img)


def equalize(img):
    check_image(img, "equalize", 3)
    if img.dtype != tc.uint8:
        raise TypeError(f"equalize: only uint8 images are supported, got {img.dtype}")
    return V.equalize(img)  # CPU or CUDA kernel (the same integer algorithm)


def gaussian_blur(img, kernel_size, sigma=None):
    check_image(img, "gaussian_blur", 3)
    if isinstance(kernel_size, numbers.Integral):
        kernel_size = [int(kernel_size), int(kernel_size)]
    if len(kernel_size) != 2:
        raise ValueError(f"gaussian_blur: kernel_size should have 1 or 2 values, got {kernel_size}")
    for k in kernel_size:
        if k <= 0 or k % 2 == 0:
            raise ValueError(
                f"gaussian_blur: kernel_size should have odd and positive integers, "
                f"got {kernel_size}"
            )
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if isinstance(sigma, numbers.Number):
        sigma = [float(sigma), float(sigma)]
    elif len(sigma) == 1:
        sigma = [float(sigma[0]), float(sigma[0])]
    for s in sigma:
        if s <= 0:
            raise ValueError(f"gaussian_blur: sigma should have positive values, got {sigma}")
    batch, restore = as_batch(img)
    return restore(blur_batch(batch, kernel_size, [float(sigma[0])], [float(sigma[1])]))


def blur_batch(batch, kernel_size, sigma_x, sigma_y):
    """Gaussian blur of an (N, C, H, W) batch with 1 or N sigmas per axis (one kernel call)."""
    kx, ky = kernel_size
    if batch.dtype in (tc.uint8, tc.float32, tc.float64):
        return V.gaussian_blur(batch, kx, ky, sigma_x, sigma_y)
    if batch.dtype in (tc.bool, tc.complex64, tc.complex128):
        raise TypeError(f"gaussian_blur: expected an integer or float image, got {batch.dtype}")
    out = V.gaussian_blur(batch.float(), kx, ky, sigma_x, sigma_y)
    if batch.is_floating_point():
        return out.to(batch.dtype)
    return out.round().clamp(0, max_value(batch.dtype)).to(batch.dtype)


def erase(img, i, j, h, w, v, inplace=False):
    """img[..., i:i+h, j:j+w] = v (a number or a tensor broadcastable to (..., C, h, w))."""
    check_image(img, "erase", 3)
    if not isinstance(v, tc.Tensor):
        v = tc.tensor(float(v), dtype=tc.float64, device=img.device)
    return V.erase(img, int(i), int(j), int(h), int(w), v, bool(inplace))
