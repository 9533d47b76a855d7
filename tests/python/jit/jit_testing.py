"""Shared helpers of the jit tests: small images written with PIL, tolerance checks."""

import numpy as np


def write_images(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(0)
    jpg, png = tmp_path / "a.jpg", tmp_path / "b.png"
    Image.fromarray(rng.integers(0, 255, (90, 120, 3), dtype=np.uint8)).save(jpg)
    Image.fromarray(rng.integers(0, 255, (150, 100, 3), dtype=np.uint8)).save(png)
    return jpg, png


def assert_close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)
