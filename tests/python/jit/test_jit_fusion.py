"""tc.jit.freeze's conv -> add -> relu fusion (`_C._nn._conv_fused`): the fused op against the ops
it replaces, on the oneDNN route (3x3, strided 1x1), the GEMM route (1x1 stride 1) and the
op-by-op fallback (float64, autograd), and frozen residual networks against eager."""

import numpy as np
import pytest
from jit_testing import assert_close

import tensorcore as tc
from tensorcore import _C, nn
from tensorcore.nn import functional as F
from tensorcore.vision import models

# (in, out, kernel, stride, padding, spatial): a 3x3 and a strided 1x1 (oneDNN), a 1x1 (GEMM).
GEOMETRIES = [
    (8, 16, 3, 1, 1, 9),
    (8, 16, 1, 2, 0, 10),
    (16, 32, 1, 1, 0, 7),
    (3, 16, 7, 2, 3, 20),
]


def reference(x, w, b, stride, padding, residual, mode, relu):
    y = F.conv2d(x, w, b, stride, padding)
    if residual is not None:
        y = y + residual
    return F.relu(y) if relu else y


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_conv_fused_matches_the_ops_it_replaces(geometry, mode, relu, dtype):
    cin, cout, k, stride, padding, size = geometry
    tc.manual_seed(1)
    x = tc.randn(2, cin, size, size, dtype=dtype)
    w = tc.randn(cout, cin, k, k, dtype=dtype) * 0.2
    b = tc.randn(cout, dtype=dtype)
    out = (size + 2 * padding - k) // stride + 1
    residual = tc.randn(2, cout, out, out, dtype=dtype)
    expected = reference(x, w, b, stride, padding, residual, mode, relu)
    kept = residual.clone()
    got = _C._nn._conv_fused(x, w, b, stride, padding, 1, 1, residual, mode, relu)
    assert_close(got, expected, tol=1e-5)
    if mode == 2:
        # `residual += conv(x)`: the result is the residual, updated in place.
        assert_close(residual, expected, tol=1e-5)
    else:
        assert_close(residual, kept, tol=0)
    # Without a residual (conv + relu) and without a bias.
    got = _C._nn._conv_fused(x, w, None, stride, padding, 1, 1, None, 0, relu)
    assert_close(got, reference(x, w, None, stride, padding, None, 0, relu), tol=1e-5)


def test_conv_fused_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 32, 14, 14)), rng.standard_normal((32, 32, 3, 3)) * 0.1
    b, r = rng.standard_normal(32), rng.standard_normal((1, 32, 14, 14))
    x, w, b, r = (a.astype(np.float32) for a in (x, w, b, r))
    got = _C._nn._conv_fused(*map(tc.from_numpy, (x, w, b)), 1, 1, 1, 1, tc.from_numpy(r), 1, True)
    t = torch.relu(
        torch.nn.functional.conv2d(*map(torch.from_numpy, (x, w, b)), 1, 1) + torch.from_numpy(r)
    )
    assert_close(got, t.numpy(), tol=1e-4)


def test_conv_fused_with_autograd_and_broadcast_residual_runs_op_by_op():
    tc.manual_seed(2)
    x = tc.randn(1, 4, 6, 6, requires_grad=True)
    w = tc.randn(4, 4, 3, 3)
    r = tc.randn(1, 4, 1, 1)  # broadcast: no fused kernel takes it
    y = _C._nn._conv_fused(x, w, None, 1, 1, 1, 1, r, 0, True)
    expected = F.relu(F.conv2d(x, w, None, 1, 1) + r)
    assert_close(y.detach(), expected.detach())
    y.sum().backward()
    assert x.grad is not None and float(x.grad.abs().sum()) > 0


def test_conv_fused_bad_arguments():
    x, w = tc.randn(1, 2, 5, 5), tc.randn(2, 2, 3, 3)
    with pytest.raises(ValueError, match="residual_mode"):
        _C._nn._conv_fused(x, w, None, 1, 1, 1, 1, tc.randn(1, 2, 5, 5), 3, False)
    with pytest.raises(ValueError, match="needs a residual"):
        _C._nn._conv_fused(x, w, None, 1, 1, 1, 1, None, 2, False)
    with pytest.raises(ValueError, match="to have 2 channels"):
        _C._nn._conv_fused(tc.randn(1, 3, 5, 5), w, None, 1, 1, 1, 1, None, 0, True)


def test_repeated_geometries_with_other_weights():
    # Blocks sharing a geometry keep one reordered weight each: alternating weights must give
    # each its own result (the oneDNN weight cache keys on the weight, not only the geometry).
    tc.manual_seed(3)
    x = tc.randn(1, 16, 12, 12)
    ws = [tc.randn(16, 16, 3, 3) for _ in range(5)]
    first = [F.conv2d(x, w, None, 1, 1) for w in ws]
    for _ in range(2):
        for w, y in zip(ws, first):
            assert_close(F.conv2d(x, w, None, 1, 1), y, tol=0)
    ws[2].mul_(2)  # an in-place update invalidates that weight's cached copy
    assert_close(F.conv2d(x, ws[2], None, 1, 1), first[2] * 2, tol=1e-5)


class Block(nn.Module):
    """conv -> bn -> relu, and a residual added in place as torchvision's blocks do."""

    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c)
        self.down, self.bn3 = nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.bn3(self.down(identity))  # residual += conv (mode 2 after the fold)
        out = self.relu(out)
        out2 = self.conv2(out)
        out2 += out  # conv += residual (mode 1)
        return tc.relu(out2) + out  # a copying relu; `out` is used again


def test_freeze_fuses_a_residual_block():
    tc.manual_seed(4)
    m = Block(16).eval()
    for bn in (m.bn1, m.bn2, m.bn3):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
    x = tc.randn(2, 16, 10, 10)
    frozen = tc.jit.freeze(tc.jit.trace(m, x))
    # Four convolutions (every conv becomes the fused op); the copying add after them stays.
    assert frozen.ops == ["_C._nn._conv_fused"] * 4 + ["Tensor.__add__"], frozen.ops
    for shape in [(2, 16, 10, 10), (1, 16, 7, 9)]:
        x = tc.randn(*shape)
        with tc.no_grad():
            assert_close(frozen(x), m(x), tol=1e-4)


def test_frozen_resnet50_matches_eager():
    tc.manual_seed(0)
    m = models.resnet50(num_classes=10).eval()
    x = tc.randn(1, 3, 64, 64)
    traced = tc.jit.trace(m, x)
    frozen = tc.jit.freeze(traced)
    # Every conv of the blocks carries its add/relu: no standalone relu or add is left.
    assert "_C._nn.relu" not in frozen.ops and "Tensor.__iadd__" not in frozen.ops, frozen.ops
    with tc.no_grad():
        expected = m(x)
    assert_close(frozen(x), expected, tol=1e-4)
    assert_close(traced(x), expected, tol=1e-5)


class ConvChain(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 16, 1)
        self.c, self.d = nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.Conv2d(16, 8, 1)

    def forward(self, x):
        y = tc.relu(self.a(x))
        z = self.b(y) + y
        p = F.max_pool2d(z, 2)
        w = self.c(z)
        return self.d(w), w.view(w.shape[0], -1), p


def test_frozen_layouts_are_invisible():
    # Inside a frozen graph convolutions may hand each other NHWC memory; graph outputs and ops
    # that need NCHW (`view`) still see what eager gives.
    tc.manual_seed(5)
    m = ConvChain().eval()
    x = tc.randn(2, 3, 12, 12)
    frozen = tc.jit.freeze(tc.jit.trace(m, x))
    got = frozen(x)
    with tc.no_grad():
        expected = m(x)
    for g, e in zip(got, expected):
        assert g.is_contiguous() and g.shape == e.shape
        assert_close(g, e, tol=1e-5)


def test_conv_fused_into_its_own_input_and_unbatched():
    # `x += conv(x)` (mode 2 with the input as residual) must not read what it writes; unbatched
    # input runs op by op.
    tc.manual_seed(6)
    w = tc.randn(8, 8, 1, 1) * 0.3
    for k, pad in ((1, 0), (3, 1)):
        w = tc.randn(8, 8, k, k) * 0.3
        x = tc.randn(1, 8, 6, 6)
        expected = F.relu(x + F.conv2d(x, w, None, 1, pad))
        got = _C._nn._conv_fused(x, w, None, 1, pad, 1, 1, x, 2, True)
        assert_close(got, expected, tol=1e-5)
    x = tc.randn(8, 6, 6)
    r = tc.randn(8, 6, 6)
    got = _C._nn._conv_fused(x, w, None, 1, 1, 1, 1, r, 1, True)
    assert_close(got, F.relu(F.conv2d(x, w, None, 1, 1) + r), tol=1e-5)


class Tail(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = (
            nn.Conv2d(4, 8, 3, padding=1),
            nn.Conv2d(8, 8, 1),
            nn.Conv2d(4, 8, 1),
        )

    def forward(self, x):
        out = self.b(self.a(x))
        out += self.c(x)  # fused into c, written over `out`: the graph's output
        return out


def test_frozen_output_written_into_a_residual_is_nchw():
    tc.manual_seed(7)
    m = Tail().eval()
    x = tc.randn(1, 4, 9, 9)
    frozen = tc.jit.freeze(tc.jit.trace(m, x))
    got = frozen(x)
    with tc.no_grad():
        expected = m(x)
    assert got.is_contiguous()
    assert_close(got, expected, tol=1e-5)
