"""logsumexp and var/std fold contiguous runs with vectorized two-pass loops: values against
float64 numpy (and torch when present) for full, per-row and strided reductions, with NaN, +-inf,
large offsets and empty inputs."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(9)


def _lse(x, axis=None):
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(all="ignore"):
        m = np.where(np.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_contiguous_and_rows(dtype):
    x = (RNG.standard_normal((37, 5003)) * 10).astype(dtype)
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(tc.logsumexp(tc.from_numpy(x), 1).numpy(), _lse(x, 1), rtol=rtol)
    np.testing.assert_allclose(tc.logsumexp(tc.from_numpy(x), 0).numpy(), _lse(x, 0), rtol=rtol)
    flat = x.reshape(-1)
    np.testing.assert_allclose(tc.logsumexp(tc.from_numpy(flat), 0).numpy(), _lse(flat), rtol=rtol)
    # very negative values (e^(x - max) underflows for most) and a large offset
    y = np.concatenate([flat - 1e4, [flat.max() + 50.0]]).astype(dtype)
    np.testing.assert_allclose(tc.logsumexp(tc.from_numpy(y), 0).numpy(), _lse(y), rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_specials(dtype):
    torch = pytest.importorskip("torch")
    base = RNG.standard_normal(3000).astype(dtype)
    for special in ([np.nan], [np.inf], [-np.inf], [np.inf, np.inf], [np.inf, -np.inf]):
        x = np.concatenate([base, np.array(special, dtype=dtype)])
        got = tc.logsumexp(tc.from_numpy(x), 0).numpy()
        ref = torch.logsumexp(torch.from_numpy(x), 0).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        if not np.isnan(ref):
            np.testing.assert_allclose(got, ref, rtol=1e-6)
    allneg = np.full(1000, -np.inf, dtype=dtype)
    assert tc.logsumexp(tc.from_numpy(allneg), 0).numpy() == -np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_std_two_pass(dtype):
    # a large mean relative to the spread: the two-pass form stays accurate
    x = (1e4 + RNG.standard_normal((19, 7001))).astype(dtype)
    x64 = x.astype(np.float64)
    rtol = 1e-5 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(tc.var(tc.from_numpy(x)).numpy(), np.var(x64, ddof=1), rtol=rtol)
    np.testing.assert_allclose(
        tc.std(tc.from_numpy(x), 1).numpy(), np.std(x64, 1, ddof=1), rtol=rtol
    )
    np.testing.assert_allclose(
        tc.var(tc.from_numpy(x), 0).numpy(), np.var(x64, 0, ddof=1), rtol=rtol
    )
    one = np.array([3.0], dtype=dtype)
    assert np.isnan(tc.var(tc.from_numpy(one)).numpy())
    with_nan = x[0].copy()
    with_nan[5] = np.nan
    assert np.isnan(tc.var(tc.from_numpy(with_nan)).numpy())
    with_inf = x[0].copy()
    with_inf[5] = np.inf
    assert np.isnan(tc.var(tc.from_numpy(with_inf)).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_vector_lanes(dtype, name):
    x = RNG.standard_normal(100_003).astype(dtype)
    ref = getattr(np, name)
    assert getattr(tc, name)(tc.from_numpy(x)).item() == ref(x)
    rows = x[:100_000].reshape(8, -1)
    np.testing.assert_array_equal(getattr(tc, name)(tc.from_numpy(rows), 1).numpy(), ref(rows, 1))
    for special in (np.nan, np.inf, -np.inf):
        for pos in (3, 50_001, 100_002):  # in a vector block and in the scalar tail
            y = x.copy()
            y[pos] = special
            got = getattr(tc, name)(tc.from_numpy(y)).item()
            want = ref(y)
            assert got == want or (np.isnan(got) and np.isnan(want))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64"])
@pytest.mark.parametrize("dims", [(0, 2), (0, 1, 3), (1, 3)])
def test_reductions_over_separated_dims(dtype, dims):
    # Reduced dims split by a kept one (a bias gradient's sum over batch and spatial dims): the
    # slice is folded as contiguous runs of its innermost reduced dim, merged; values against
    # float64 numpy for every op that takes this path.
    x = RNG.standard_normal((3, 5, 4, 67)) * 3
    if dtype == "int64":
        x = np.round(x)
    t = tc.tensor(x).to(getattr(tc, dtype))
    xv = t.double().numpy()  # the values as stored (bfloat16 rounding included)
    rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1e-2, "int64": 0}[dtype]
    cases = [("sum", np.sum), ("amax", np.max), ("amin", np.min)]
    if dtype != "int64":
        cases += [
            ("mean", np.mean),
            ("var", lambda a, axis: np.var(a, axis=axis, ddof=1)),
            ("logsumexp", lambda a, axis: np.log(np.sum(np.exp(a), axis=axis))),
            ("norm", lambda a, axis: np.sqrt(np.sum(a * a, axis=axis))),
        ]
    for name, ref in cases:
        got = getattr(tc, name)(t, dims) if name != "norm" else tc.linalg.vector_norm(t, 2, dims)
        np.testing.assert_allclose(
            got.double().numpy(), ref(xv, axis=dims), rtol=rtol, atol=rtol, err_msg=name
        )
