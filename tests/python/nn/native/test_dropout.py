import numpy as np
import pytest

import tensorcore as tc


def test_dropout_masks_and_scales(F):
    tc.manual_seed(0)
    x = tc.ones(200, 500, dtype=tc.float64).requires_grad_(True)
    y = F.dropout(x, 0.3)
    v = y.detach().numpy()
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-12)
    assert abs(kept.mean() - 0.7) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), v, rtol=1e-12)  # gradient is the scaled mask
    assert F.dropout(x, 0.3, training=False) is x
    assert np.all(F.dropout(x, 1.0).detach().numpy() == 0)


def test_feature_dropout_drops_whole_channels(F):
    tc.manual_seed(1)
    x = tc.ones(16, 32, 5, 5)
    y = F.dropout2d(x, 0.5).numpy()
    per_map = y.reshape(16, 32, -1)
    assert np.all((per_map == 0).all(-1) | (per_map == 2).all(-1))
    assert 0.3 < (per_map[..., 0] == 0).mean() < 0.7
    assert tuple(F.dropout1d(tc.ones(4, 6), 0.5).shape) == (4, 6)
    assert tuple(F.dropout3d(tc.ones(2, 3, 2, 2, 2), 0.5).shape) == (2, 3, 2, 2, 2)


def test_alpha_dropout_keeps_selu_statistics(F):
    tc.manual_seed(2)
    x = tc.randn(1000, 1000, dtype=tc.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False, as torch


def test_dropout_errors(F):
    with pytest.raises(
        ValueError, match="dropout: dropout probability has to be between 0 and 1, but got 1.5"
    ):
        F.dropout(tc.ones(3), 1.5)
    with pytest.raises(ValueError, match="dropout2d: feature dropout needs at least 2 dimensions"):
        F.dropout2d(tc.ones(3), 0.5)
