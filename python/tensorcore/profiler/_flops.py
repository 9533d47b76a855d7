"""Floating-point operation counts from input shapes (with_flops=True), for the ops torch
counts: matrix products, convolutions and elementwise add/mul (a multiply-add counts as 2)."""

import math


def _numel(shape):
    return math.prod(shape) if shape else 1


def _per_dim(values, n, default):
    if not values:
        return [default] * n
    return list(values) * n if len(values) == 1 else list(values)


def _conv_flops(shapes, int_args):
    x, w = shapes[0], shapes[1]
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        return 0
    # conv(input, weight, bias, stride, padding, dilation, groups): the output size from them.
    stride = _per_dim(int_args[3] if len(int_args) > 3 else [], spatial, 1)
    padding = _per_dim(int_args[4] if len(int_args) > 4 else [], spatial, 0)
    dilation = _per_dim(int_args[5] if len(int_args) > 5 else [], spatial, 1)
    out = []
    for d in range(spatial):
        k = dilation[d] * (w[2 + d] - 1) + 1
        out.append(max(0, (x[2 + d] + 2 * padding[d] - k) // stride[d] + 1))
    # Each output element: Cin/groups * prod(kernel) multiply-adds (w is Cout, Cin/g, k...).
    return 2 * x[0] * w[0] * _numel(out) * _numel(w[1:])


def flops_of(name, shapes, int_args=()):
    op = name.split("::", 1)[-1]
    try:
        if op in ("mm", "matmul") and len(shapes) >= 2 and len(shapes[0]) == 2:
            (m, k), n = shapes[0], shapes[1][-1]
            return 2 * m * k * n
        if op == "addmm" and len(shapes) >= 3:
            (m, k), n = shapes[1], shapes[2][-1]
            return 2 * m * k * n
        if op in ("bmm", "baddbmm") and len(shapes) >= 2:
            a, b = (shapes[0], shapes[1]) if op == "bmm" else (shapes[1], shapes[2])
            return 2 * a[0] * a[1] * a[2] * b[2]
        if op == "linear" and len(shapes) >= 2:
            return 2 * _numel(shapes[0]) * shapes[1][0]
        if op in ("conv1d", "conv2d", "conv3d") and len(shapes) >= 2:
            return _conv_flops(shapes, list(int_args))
        if op in ("add", "add_", "mul", "mul_", "sub", "sub_", "div", "div_") and shapes:
            return max((_numel(s) for s in shapes if s), default=0)
    except (IndexError, TypeError, ValueError, ZeroDivisionError):
        return 0
    return 0
