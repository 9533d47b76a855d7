"""Checks shared by the dataset tests."""

import numpy as np


def assert_same_items(ours, ref, metadata=False):
    """Our dataset gives torchaudio's items: the same non-empty length, the same waveform (item
    0) and the same remaining fields; with metadata=True, the same get_metadata(i) too."""
    assert len(ours) == len(ref) > 0
    for i in range(len(ours)):
        a, b = ours[i], ref[i]
        np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
        assert a[1:] == b[1:]
        if metadata:
            assert ours.get_metadata(i) == ref.get_metadata(i)
