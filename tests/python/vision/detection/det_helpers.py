"""Helpers of the detection tests: tensor conversion both ways, random well-formed boxes and the
detections comparison."""

import numpy as np

import tensorcore as tc


def to_torch(x):
    import torch

    if isinstance(x, dict):
        return {k: to_torch(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_torch(v) for v in x)
    return torch.from_numpy(np.array(x.detach().numpy() if isinstance(x, tc.Tensor) else x))


def to_tc(x):
    if isinstance(x, dict):
        return {k: to_tc(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_tc(v) for v in x)
    return tc.tensor(np.array(x.detach().numpy() if hasattr(x, "detach") else x))


def to_numpy(x):
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_numpy(v) for v in x)
    return x.detach().numpy()


def random_boxes(rng, n, height, width, min_side=2.0, dtype=np.float32):
    """n xyxy boxes inside a (height, width) image, each side at least min_side."""
    x1 = rng.uniform(0, width - min_side, n)
    y1 = rng.uniform(0, height - min_side, n)
    x2 = np.minimum(x1 + rng.uniform(min_side, width / 2, n), width)
    y2 = np.minimum(y1 + rng.uniform(min_side, height / 2, n), height)
    return np.stack([x1, y1, x2, y2], axis=1).astype(dtype)


def assert_detections_equal(got, want, box_tol, score_tol):
    """Same number of detections, same labels in the same order, boxes and scores within tolerance."""
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g["boxes"].shape == w["boxes"].shape, (
            f"image {i}: {g['boxes'].shape} vs {w['boxes'].shape}"
        )
        np.testing.assert_array_equal(g["labels"], w["labels"], err_msg=f"image {i} labels")
        np.testing.assert_allclose(
            g["scores"], w["scores"], rtol=score_tol, atol=0, err_msg=f"image {i} scores"
        )
        np.testing.assert_allclose(
            g["boxes"], w["boxes"], rtol=0, atol=box_tol, err_msg=f"image {i} boxes"
        )
