"""tc.jit.trace: recorded graphs give the eager results, on other shapes too, after save/load and
freeze, from several threads at once and through fork/wait."""

import threading

import pytest
from jit_testing import assert_close

import tensorcore as tc
from tensorcore import nn
from tensorcore.audio import models as audio_models
from tensorcore.vision import models


def eager(m, *x):
    with tc.no_grad():
        return m(*x)


@pytest.fixture(scope="module")
def resnet():
    tc.manual_seed(0)
    return models.resnet18(num_classes=10).eval()


def test_resnet_graph_matches_eager_on_other_shapes(resnet):
    traced = tc.jit.trace(resnet, tc.randn(1, 3, 64, 64))
    assert set(traced.ops) >= {"_C._nn.conv2d", "_C._nn.batch_norm", "_C._nn.linear"}
    for shape in [(1, 3, 64, 64), (3, 3, 80, 96), (2, 3, 33, 47)]:
        x = tc.randn(*shape)
        assert_close(traced(x), eager(resnet, x))


def test_save_load_roundtrip(resnet, tmp_path):
    x = tc.randn(2, 3, 48, 48)
    traced = tc.jit.trace(resnet, x)
    path = tmp_path / "r18.tcj"
    tc.jit.save(traced, path)
    loaded = tc.jit.load(path)
    assert loaded.ops == traced.ops
    assert_close(loaded(x), eager(resnet, x))
    # Constants keep the module's state-dict names, so they can be inspected or compared.
    assert_close(loaded.state_dict()["conv1.weight"], resnet.conv1.weight)
    with open(path, "rb") as f:
        assert_close(tc.jit.load(f)(x), eager(resnet, x))


def test_freeze_folds_batch_norm_into_conv(resnet):
    x = tc.randn(1, 3, 64, 64)
    traced = tc.jit.trace(resnet, x)
    frozen = tc.jit.freeze(traced)
    assert "_C._nn.batch_norm" not in frozen.ops
    assert len(frozen.ops) < len(traced.ops)
    assert_close(frozen(x), eager(resnet, x), tol=1e-4)


@pytest.mark.parametrize(
    "name,make,x",
    [
        ("mobilenet_v3_small", lambda: models.mobilenet_v3_small(), (1, 3, 64, 64)),
        ("vgg11_bn", lambda: models.vgg11_bn(num_classes=5), (1, 3, 32, 32)),
        (
            "fcn_resnet50",
            lambda: models.segmentation.fcn_resnet50(
                pretrained=False, pretrained_backbone=False, num_classes=3
            ),
            (1, 3, 48, 48),
        ),
        (
            "wav2letter",
            lambda: audio_models.Wav2Letter(num_classes=40, input_type="mfcc", num_features=13),
            (2, 13, 50),
        ),
        (
            "convtasnet",
            lambda: audio_models.ConvTasNet(
                num_sources=2,
                enc_kernel_size=16,
                enc_num_feats=32,
                msk_kernel_size=3,
                msk_num_feats=16,
                msk_num_hidden_feats=32,
                msk_num_layers=2,
                msk_num_stacks=1,
            ),
            (1, 1, 800),
        ),
    ],
)
def test_models_trace(name, make, x):
    tc.manual_seed(1)
    m = make().eval()
    x = tc.randn(*x)
    traced = tc.jit.trace(m, x)
    out, ref = traced(x), eager(m, x)
    if isinstance(ref, dict):
        assert set(out) == set(ref)
        for k in ref:
            assert_close(out[k], ref[k], tol=1e-4)
    else:
        assert_close(out, ref, tol=1e-4)


def test_function_with_tuple_and_dict_io():
    def f(pair, scale):
        a, b = pair
        return {"sum": a + b * 2, "parts": (a.relu(), tc.cat([a, b], 1) * scale)}

    a, b, s = tc.randn(2, 3), tc.randn(2, 3), tc.randn(2, 6)
    traced = tc.jit.trace(f, ((a, b), s))
    a2, b2, s2 = tc.randn(4, 3), tc.randn(4, 3), tc.randn(4, 6)
    out, ref = traced((a2, b2), s2), f((a2, b2), s2)
    assert_close(out["sum"], ref["sum"])
    assert_close(out["parts"][1], ref["parts"][1])
    assert isinstance(out["parts"], tuple)


def test_inplace_ops_and_indexing_are_recorded():
    def f(x):
        y = x.clone()
        y[:, 0] = 0.0
        y.mul_(2)
        return y[1:, ::2] + x[1:].sum(1, keepdim=True)

    x = tc.randn(5, 6)
    traced = tc.jit.trace(f, x)
    x2 = tc.randn(7, 6)
    assert_close(traced(x2), f(x2))


def test_concurrent_requests_and_fork(resnet):
    traced = tc.jit.freeze(tc.jit.trace(resnet, tc.randn(1, 3, 40, 40)))
    inputs = [tc.randn(1, 3, 40, 40) for _ in range(4)]
    expected = [traced(x) for x in inputs]
    results = [None] * 4

    def worker(i):
        for _ in range(3):
            results[i] = traced(inputs[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        assert_close(got, want)
    futures = [tc.jit.fork(traced, x) for x in inputs]
    for fut, want in zip(futures, expected):
        assert_close(tc.jit.wait(fut), want)

    def boom():
        raise ValueError("inside the fork")

    with pytest.raises(ValueError, match="inside the fork"):
        tc.jit.wait(tc.jit.fork(boom))


def test_fork_inside_trace_is_recorded():
    def f(x):
        fut = tc.jit.fork(lambda t: t.sigmoid() * 3, x)
        y = x.tanh()
        return tc.jit.wait(fut) + y

    x = tc.randn(3, 4)
    traced = tc.jit.trace(f, x)
    x2 = tc.randn(3, 4)
    assert_close(traced(x2), f(x2))


def test_registered_op_names_are_bindings():
    # An op is named after the binding it is traced through: every registered name must resolve
    # to a bound function, so the tracer and the runtime cannot drift apart silently.
    from tensorcore import _C

    missing = []
    for name in tc.jit.registered_ops():
        scope, _, attr = name.rpartition(".")
        obj = tc.Tensor if scope == "Tensor" else _C
        if scope not in ("Tensor", "_C"):
            for part in scope.split(".")[1:]:
                obj = getattr(obj, part, None)
        if obj is None or not hasattr(obj, attr):
            missing.append(name)
    assert not missing, missing
    assert len(tc.jit.registered_ops()) > 200


def test_trace_checks_against_eager():
    class DataDependent(nn.Module):
        def forward(self, x):
            return x * 2 if float(x.sum()) > 0 else x - 1

    m = DataDependent()
    x = tc.full((3,), 2.0)
    traced = tc.jit.trace(m, x, check_inputs=[x])
    assert_close(traced(x), m(x))
    with pytest.raises(RuntimeError, match="different results"):
        tc.jit.trace(m, x, check_inputs=[-x])
