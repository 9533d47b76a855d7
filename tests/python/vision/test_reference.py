"""Functional transforms against torchvision outputs recorded by
scripts/vision/record_torchvision_reference.py: runs without torch installed."""

import os

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.transforms import functional as F

from reference_cases import CASES, case_args, case_key, image

REF = np.load(os.path.join(os.path.dirname(__file__), "data", "torchvision_reference.npz"))


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_functional_matches_recorded_torchvision(dtype, case):
    name, args, kwargs, tol = CASES[case]
    out = getattr(F, name)(tc.from_numpy(image(dtype)), *case_args(name, args, dtype), **kwargs)
    ref = REF[case_key(case, dtype)]
    got = out.numpy()
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if dtype == "uint8":
        assert np.abs(got.astype(int) - ref.astype(int)).max() <= tol
    else:
        np.testing.assert_allclose(got, ref, atol=2e-5, rtol=1e-5)


def test_crop_window_outside_the_image_is_zero_padding():
    # torchvision 0.14 slices with negative ends here (a bug); we return the zero-padded window.
    x = tc.from_numpy(image("uint8"))
    out = F.crop(x, -20, -30, 5, 6)
    assert out.shape == (3, 5, 6) and int(out.sum()) == 0
    out = F.crop(x, 18, 24, 5, 6)  # overlapping the bottom-right corner
    np.testing.assert_array_equal(out.numpy()[:, :3, :2], image("uint8")[:, 18:, 24:])
    assert int(out[:, 3:].sum()) == 0 and int(out[:, :, 2:].sum()) == 0
