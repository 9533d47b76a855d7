"""torch 1.13's CPU random stream, reproduced bit for bit for the draws FakeData makes.

tensorcore's own generator is Philox (docs/random.md), so ``tc.manual_seed(s); tc.randn(...)``
differs from torch. torchvision's FakeData defines its images as torch's stream for a seed, and
users compare datasets pixel for pixel, so FakeData draws from this reproduction instead:

- the engine is MT19937 seeded as ``torch.manual_seed`` seeds it (NumPy's legacy
  ``RandomState(seed)`` uses the same seeding and gives the raw 32-bit words);
- ``randn`` of 16 or more float32 elements is torch's AVX2 Box-Muller fill (the kernel torch
  1.13 runs on x86-64 machines with AVX2): uniforms from 24 bits of each word, then Cephes-style
  log and sincos in float32 with the same operation order and the fused multiply-adds GCC forms
  from it; fewer elements use torch's scalar double-precision path;
- ``randint`` with a range below 2**32 is ``word % range + low``.
"""

import math

import numpy as np

_F = np.float32


def _fma(a, b, c):
    """Correctly rounded float32 a*b + c (what the FMA instruction gives).

    a*b is exact in float64; the float64 sum is made exact with TwoSum and nudged off a float32
    rounding midpoint when it landed there by rounding, so the final cast rounds once."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = np.broadcast_to(np.asarray(c, np.float64), p.shape)
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    # float64 has 29 more mantissa bits than float32: a midpoint has exactly bit 28 set below
    low = s.view(np.uint64) & np.uint64((1 << 29) - 1)
    at_mid = (low == np.uint64(1 << 28)) & (err != 0)
    if at_mid.any():
        s = np.where(at_mid, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def _log(x):
    """Cephes logf as torch's log256_ps computes it, elementwise over float32 ``x`` > 0."""
    x = np.maximum(x, np.array([0x00800000], np.int32).view(np.float32)[0])
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _F(1)
    x = ((bits & ~0x7F800000) | np.array([0.5], np.float32).view(np.int32)[0]).view(np.float32)
    below = x < _F(0.707106781186547524)
    x = (x - _F(1)) + np.where(below, x, _F(0))
    e = e - np.where(below, _F(1), _F(0))
    z = x * x
    coeffs = (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
    y = np.full_like(x, _F(coeffs[0]))
    for c in coeffs[1:]:
        y = _fma(y, x, _F(c))
    y = _fma(y * x, z, e * _F(-2.12194440e-4))
    y = _fma(-z, np.full_like(z, _F(0.5)), y)
    return _fma(e, np.full_like(e, _F(0.693359375)), x + y)


def _sincos(x):
    """Cephes sincosf as torch's sincos256_ps computes it, elementwise over float32 ``x``."""
    sin_negative = np.signbit(x)
    x = np.abs(x)
    j = (x * _F(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    sin_negative ^= (j & 4) != 0
    cos_negative = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    for dp in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma(y, np.full_like(y, _F(dp)), x)
    z = x * x
    cos_poly = _fma(np.full_like(z, _F(2.443315711809948e-5)), z, _F(-1.388731625493765e-3))
    cos_poly = _fma(cos_poly, z, _F(4.166664568298827e-2))
    cos_poly = _fma(cos_poly * z, z, -(z * _F(0.5))) + _F(1)
    sin_poly = _fma(np.full_like(z, _F(-1.9515295891e-4)), z, _F(8.3321608736e-3))
    sin_poly = _fma(sin_poly, z, _F(-1.6666654611e-1))
    sin_poly = _fma(sin_poly * z, x, x)
    s = np.where(use_sin_poly, sin_poly, cos_poly)
    c = np.where(use_sin_poly, cos_poly, sin_poly)
    return np.where(sin_negative, -s, s), np.where(cos_negative, -c, c)


def _box_muller_16(blocks):
    """torch's normal_fill_16_AVX2 over rows of 16 uniforms, in place."""
    u1 = _F(1) - blocks[:, :8]
    theta = _F(2.0 * math.pi) * blocks[:, 8:]
    radius = np.sqrt(_F(-2) * _log(u1))
    s, c = _sincos(theta)
    blocks[:, :8] = radius * c
    blocks[:, 8:] = radius * s


class TorchCPUStream:
    """The stream ``torch.manual_seed(seed)`` starts on the CPU; draws advance it as torch's."""

    def __init__(self, seed):
        seed = int(seed)
        if not 0 <= seed < 2**64:
            raise ValueError(f"TorchCPUStream: seed must be in [0, 2**64), got {seed}")
        # torch keeps the low 32 bits for MT19937 (CPUGeneratorImpl::set_current_seed)
        self._words = np.random.RandomState(seed & 0xFFFFFFFF)
        self._next_double_normal = None

    def _next_words(self, count):
        return self._words.randint(0, 2**32, size=count, dtype=np.uint64)

    def _uniform_float(self, count):
        return (self._next_words(count) & np.uint64(0xFFFFFF)).astype(np.float32) * _F(2.0**-24)

    def _uniform_double(self):
        hi, lo = (int(w) for w in self._next_words(2))
        return ((hi << 32 | lo) & ((1 << 53) - 1)) * 2.0**-53

    def _normal_double(self):
        if self._next_double_normal is not None:
            value, self._next_double_normal = self._next_double_normal, None
            return value
        u1 = self._uniform_double()
        u2 = self._uniform_double()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_double_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def randn(self, *shape):
        """float32 standard normals of ``shape``, as ``torch.randn(*shape)``."""
        n = int(np.prod(shape, dtype=np.int64))
        if n < 16:
            out = np.array([self._normal_double() for _ in range(n)], dtype=np.float32)
            return out.reshape(shape)
        data = self._uniform_float(n)
        full = n - n % 16
        _box_muller_16(data[:full].reshape(-1, 16))
        if n % 16:
            # torch redraws 16 fresh uniforms for the last 16 elements
            tail = self._uniform_float(16).reshape(1, 16)
            _box_muller_16(tail)
            data[n - 16 :] = tail[0]
        return data.reshape(shape)

    def randint(self, low, high, count):
        """``count`` int64 values in [low, high), as ``torch.randint(low, high, (count,))``."""
        span = int(high) - int(low)
        if span <= 0:
            raise ValueError(f"TorchCPUStream.randint: need low < high, got [{low}, {high})")
        if span >= 2**32:
            raise ValueError("TorchCPUStream.randint: ranges of 2**32 or more are not reproduced")
        return (self._next_words(count) % np.uint64(span)).astype(np.int64) + int(low)
