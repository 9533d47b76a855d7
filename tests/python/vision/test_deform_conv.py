import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import ops

from shared_inputs import deform_conv_inputs


@pytest.mark.parametrize("use_mask", [False, True])
@pytest.mark.parametrize(
    "cfg", [{}, {"groups": 1, "og": 1, "stride": (1, 1), "padding": (0, 0), "dilation": (2, 1)}]
)
def test_deform_conv2d_matches_torchvision(torch_ref, use_mask, cfg):
    tv = pytest.importorskip("torchvision")
    rng = np.random.default_rng(0)
    (x, off, w, b, m), kw = deform_conv_inputs(rng, **cfg)
    tcs = [tc.from_numpy(a).requires_grad_() for a in (x, off, w, b, m)]
    ths = [torch_ref.from_numpy(a).requires_grad_() for a in (x, off, w, b, m)]
    out = ops.deform_conv2d(*tcs[:4], mask=tcs[4] if use_mask else None, **kw)
    ref = tv.ops.deform_conv2d(*ths[:4], mask=ths[4] if use_mask else None, **kw)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-10)
    g = rng.standard_normal(ref.shape)
    out.backward(tc.from_numpy(g))
    ref.backward(torch_ref.from_numpy(g))
    for a, r in zip(tcs[:5] if use_mask else tcs[:4], ths[:5] if use_mask else ths[:4]):
        np.testing.assert_allclose(a.grad.numpy(), r.grad.numpy(), atol=1e-9)


def test_deform_conv2d_gradcheck():
    rng = np.random.default_rng(1)
    (x, off, w, b, m), kw = deform_conv_inputs(
        rng, n=1, cin=2, h=5, w=6, cout=2, groups=1, og=1, k=(2, 2), stride=(1, 1), padding=(0, 1)
    )
    # Keep sample points away from integer coordinates, where bilinear sampling has kinks.
    off = np.floor(off) + 0.3
    args = [tc.from_numpy(a).requires_grad_() for a in (x, off, w, b, m)]
    assert tc.autograd.gradcheck(
        lambda *t: ops.deform_conv2d(t[0], t[1], t[2], t[3], mask=t[4], **kw), tuple(args)
    )


def test_deform_conv2d_zero_offset_is_conv(torch_ref):
    rng = np.random.default_rng(2)
    (x, off, w, b, m), kw = deform_conv_inputs(rng, groups=1, og=1)
    out = ops.deform_conv2d(
        tc.from_numpy(x), tc.from_numpy(off * 0), tc.from_numpy(w), tc.from_numpy(b), **kw
    )
    ref = torch_ref.nn.functional.conv2d(
        torch_ref.from_numpy(x), torch_ref.from_numpy(w), torch_ref.from_numpy(b), **kw
    )
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-10)


def test_deform_conv2d_errors_and_module():
    x = tc.zeros((1, 4, 8, 8))
    with pytest.raises(ValueError, match="offset"):
        ops.deform_conv2d(x, tc.zeros((1, 18, 5, 5)), tc.zeros((2, 4, 3, 3)))
    with pytest.raises(ValueError, match="multiple"):
        ops.deform_conv2d(x, tc.zeros((1, 18, 6, 6)), tc.zeros((2, 3, 3, 3)))
    layer = ops.DeformConv2d(4, 6, 3, padding=1)
    out = layer(x, tc.zeros((1, 18, 8, 8)))
    assert out.shape == (1, 6, 8, 8)
    out.sum().backward()
    assert layer.weight.grad.shape == (6, 4, 3, 3)
