"""Python and C++ agree on every loss: build/tests/nn_parity_losses (tests/cpp/nn/
nn_parity_losses.cpp) runs each loss of tc::nn::functional on the inputs written here (every
reduction, input gradients, weights, ignore_index, label smoothing, probability targets), and the
same cases run through tensorcore.nn.functional must give bitwise-equal results (both are the same
C++ functions), the same warnings and the same errors; torch 1.13 is the reference for values."""

import json
import math
import pathlib
import subprocess
import warnings

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
CANDIDATES = [ROOT / "build" / "tests" / "nn_parity_losses", ROOT / "build" / "nn_parity_losses"]
PROGRAM = next((p for p in CANDIDATES if p.exists()), None)
REDUCTIONS = ("none", "mean", "sum")


def _inputs():
    rng = np.random.default_rng(26)
    n, c = 4, 5
    p = rng.uniform(0.05, 0.95, (n, c))
    q = rng.uniform(0.1, 1.0, (n, c))
    x = rng.standard_normal((n, c))
    x[0, 0] = 3.0  # outside [0, 1]: bce_range
    raw = {
        "x": x,
        "t": rng.standard_normal((n, c)),
        "n": rng.standard_normal((n, c)),
        "p": p,
        "q": q / q.sum(1, keepdims=True),
        "w": rng.uniform(0.5, 1.5, (n, c)),
        "w5": rng.uniform(0.5, 1.5, c),
        "w3": rng.uniform(0.5, 1.5, 3),
        "pw": rng.uniform(0.5, 2.0, c),
        "c": rng.integers(0, 5, (n, c)).astype(np.float64),
        "var": rng.uniform(0.1, 1.1, (n, c)),
        "var1": rng.uniform(0.1, 1.1, (n, 1)),
        "y": rng.integers(0, 2, (n, c)) * 2.0 - 1.0,
        "y1": np.array([1.0, -1.0, 1.0, -1.0]),
        "mlb": rng.integers(0, 2, (n, c)).astype(np.float64),
        "logp": np.log(q / q.sum(1, keepdims=True)),
        "cls": np.array([0, 3, 4, 1]),
        "cls_ign": np.array([0, 2, 4, 2]),
        "cls_bad": np.array([0, 7, 4, 1]),
        "cls3d": np.array([[1, 4], [0, 2]]),
        "cls0": np.array(3),
        "ml": np.array([[3, 0, -1, 1, 2], [4, -1, 2, 2, 2], [1, 2, 3, 4, 0], [-1, 0, 1, 2, 3]]),
        "ml_bad": np.array([[3, 9, -1, 1, 2]] * 4),
    }
    raw["p"][0, 0] = 0.0  # kl_div's 0 * log 0 = 0
    return raw


def _l1_distance(a, b):
    return (a - b).abs().sum(-1)


# name -> loss(F, x, inputs, reduction); the same callables run with tensorcore and torch.
CASES = {
    "l1": lambda F, x, i, r: F.l1_loss(x, i["t"], reduction=r),
    "mse": lambda F, x, i, r: F.mse_loss(x, i["t"], reduction=r),
    "smooth_l1": lambda F, x, i, r: F.smooth_l1_loss(x, i["t"], reduction=r, beta=0.7),
    "smooth_l1_b0": lambda F, x, i, r: F.smooth_l1_loss(x, i["t"], reduction=r, beta=0.0),
    "huber": lambda F, x, i, r: F.huber_loss(x, i["t"], reduction=r, delta=0.6),
    "bce": lambda F, x, i, r: F.binary_cross_entropy(x.sigmoid(), i["p"], i["w"], reduction=r),
    "bce_logits": lambda F, x, i, r: F.binary_cross_entropy_with_logits(
        x, i["p"], i["w"], reduction=r, pos_weight=i["pw"]
    ),
    "kl": lambda F, x, i, r: F.kl_div(x, i["p"], reduction=r),
    "kl_log": lambda F, x, i, r: F.kl_div(x, i["logp"], reduction=r, log_target=True),
    "margin_ranking": lambda F, x, i, r: F.margin_ranking_loss(
        x, i["t"], i["y"], margin=0.3, reduction=r
    ),
    "cosine": lambda F, x, i, r: F.cosine_embedding_loss(
        x, i["t"], i["y1"], margin=0.2, reduction=r
    ),
    "triplet": lambda F, x, i, r: F.triplet_margin_loss(x, i["t"], i["n"], reduction=r),
    "triplet_swap_p1": lambda F, x, i, r: F.triplet_margin_loss(
        x, i["t"], i["n"], margin=0.5, p=1, swap=True, reduction=r
    ),
    "triplet_dist": lambda F, x, i, r: F.triplet_margin_with_distance_loss(
        x, i["t"], i["n"], reduction=r
    ),
    "triplet_dist_l1_swap": lambda F, x, i, r: F.triplet_margin_with_distance_loss(
        x, i["t"], i["n"], distance_function=_l1_distance, margin=2.0, swap=True, reduction=r
    ),
    "poisson": lambda F, x, i, r: F.poisson_nll_loss(x, i["c"], full=True, reduction=r),
    "poisson_lin": lambda F, x, i, r: F.poisson_nll_loss(
        x.exp(), i["c"], log_input=False, reduction=r
    ),
    "gaussian": lambda F, x, i, r: F.gaussian_nll_loss(x, i["t"], i["var"], full=True, reduction=r),
    "gaussian_homo": lambda F, x, i, r: F.gaussian_nll_loss(x, i["t"], i["var1"], reduction=r),
    "hinge": lambda F, x, i, r: F.hinge_embedding_loss(x, i["y"], margin=0.8, reduction=r),
    "soft_margin": lambda F, x, i, r: F.soft_margin_loss(x, i["y"], reduction=r),
    "multilabel_soft_margin": lambda F, x, i, r: F.multilabel_soft_margin_loss(
        x, i["mlb"], weight=i["w5"], reduction=r
    ),
    "multi_margin": lambda F, x, i, r: F.multi_margin_loss(x, i["cls"], margin=0.9, reduction=r),
    "multi_margin_p2_w": lambda F, x, i, r: F.multi_margin_loss(
        x, i["cls"], p=2, weight=i["w5"], reduction=r
    ),
    "multilabel_margin": lambda F, x, i, r: F.multilabel_margin_loss(x, i["ml"], reduction=r),
    "nll_w": lambda F, x, i, r: F.nll_loss(x, i["cls"], i["w5"], reduction=r),
    "nll_ignore": lambda F, x, i, r: F.nll_loss(x, i["cls_ign"], ignore_index=2, reduction=r),
    "ce": lambda F, x, i, r: F.cross_entropy(x, i["cls"], reduction=r),
    "ce_w_ign_ls": lambda F, x, i, r: F.cross_entropy(
        x, i["cls_ign"], i["w5"], ignore_index=2, reduction=r, label_smoothing=0.1
    ),
    "ce_probs_ls": lambda F, x, i, r: F.cross_entropy(x, i["q"], reduction=r, label_smoothing=0.2),
    "ce_probs_w": lambda F, x, i, r: F.cross_entropy(x, i["q"], i["w5"], reduction=r),
    "ce_3d": lambda F, x, i, r: F.cross_entropy(
        x.reshape(2, 2, 5).transpose(1, 2), i["cls3d"], reduction=r
    ),
    "ce_unbatched": lambda F, x, i, r: F.cross_entropy(x[0], i["cls0"], reduction=r),
    "mse_broadcast": lambda F, x, i, r: F.mse_loss(x, i["t"][0], reduction=r),
}

ERRORS = {
    "reduction": lambda i: F.mse_loss(i["x"], i["t"], reduction="avg"),
    "kl_reduction": lambda i: F.kl_div(i["x"], i["t"], reduction="avg"),
    "bce_range": lambda i: F.binary_cross_entropy(i["x"], i["p"]),
    "bce_shape": lambda i: F.binary_cross_entropy(i["p"], i["p"][0]),
    "bce_logits_shape": lambda i: F.binary_cross_entropy_with_logits(i["x"], i["t"][0]),
    "nll_target_oob": lambda i: F.nll_loss(i["x"], i["cls_bad"]),
    "nll_float_target": lambda i: F.nll_loss(i["x"], i["t"]),
    "nll_target_shape": lambda i: F.nll_loss(i["x"], i["cls3d"]),
    "ce_target_oob": lambda i: F.cross_entropy(i["x"], i["cls_bad"]),
    "ce_weight_shape": lambda i: F.cross_entropy(i["x"], i["cls"], i["w3"]),
    "ce_label_smoothing": lambda i: F.cross_entropy(i["x"], i["cls"], label_smoothing=1.5),
    "ce_target_shape": lambda i: F.cross_entropy(i["x"], i["cls3d"]),
    "ce_probs_shape": lambda i: F.cross_entropy(i["x"], i["t"][0]),
    "smooth_l1_beta": lambda i: F.smooth_l1_loss(i["x"], i["t"], beta=-1.0),
    "huber_delta": lambda i: F.huber_loss(i["x"], i["t"], delta=0.0),
    "margin_ranking_dims": lambda i: F.margin_ranking_loss(i["x"], i["t"][0], i["y"]),
    "cosine_target_shape": lambda i: F.cosine_embedding_loss(i["x"], i["t"], i["y"]),
    "cosine_input_shape": lambda i: F.cosine_embedding_loss(i["x"], i["t"][0], i["y1"]),
    "triplet_dims": lambda i: F.triplet_margin_loss(i["x"], i["t"][0], i["n"]),
    "triplet_dist_margin": lambda i: F.triplet_margin_with_distance_loss(
        i["x"], i["t"], i["n"], margin=0.0
    ),
    "gaussian_var_shape": lambda i: F.gaussian_nll_loss(i["x"], i["t"], i["w3"]),
    "gaussian_var_negative": lambda i: F.gaussian_nll_loss(i["x"], i["t"], -i["var"]),
    "gaussian_reduction": lambda i: F.gaussian_nll_loss(i["x"], i["t"], i["var"], reduction="avg"),
    "multi_margin_p": lambda i: F.multi_margin_loss(i["x"], i["cls"], p=3),
    "multi_margin_target_oob": lambda i: F.multi_margin_loss(i["x"], i["cls_bad"]),
    "multi_margin_target_size": lambda i: F.multi_margin_loss(i["x"], i["cls3d"]),
    "multilabel_margin_shape": lambda i: F.multilabel_margin_loss(i["x"], i["cls"]),
    "multilabel_margin_oob": lambda i: F.multilabel_margin_loss(i["x"], i["ml_bad"]),
}


def _grad_weights(loss, lib):
    k = lib.arange(loss.numel(), dtype=lib.float64)
    return (k * 0.7 + 0.1).cos().reshape(tuple(loss.shape))


def _run(lib, Fmod, inputs, name, red):
    x = inputs["x"].clone().requires_grad_(True)
    loss = CASES[name](Fmod, x, inputs, red)
    s = (loss * _grad_weights(loss, lib)).sum() if red == "none" else loss
    (g,) = lib.autograd.grad([s], [x])
    return loss.detach(), g


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    if PROGRAM is None:
        pytest.skip("nn_parity_losses is not built (build/tests/nn_parity_losses)")
    d = tmp_path_factory.mktemp("parity_losses")
    raw = _inputs()
    tc.serialization.save_safetensors(
        {k: tc.tensor(v) for k, v in raw.items()}, d / "in.safetensors"
    )
    subprocess.run(
        [str(PROGRAM), str(d / "in.safetensors"), str(d / "out.safetensors"), str(d / "m.json")],
        check=True,
        timeout=120,
    )
    return tc.serialization.load_safetensors(d / "out.safetensors"), json.loads(
        (d / "m.json").read_text()
    )


@pytest.fixture(scope="module")
def tc_inputs():
    return {k: tc.tensor(v) for k, v in _inputs().items()}


# The loss modules whose C++ classes (tc::nn::HingeEmbeddingLoss ...) the C++ program runs as
# "module.<name>.<reduction>": name -> tensorcore.nn module of the same configuration (reduction).
MODULES = {
    "hinge": lambda nn, i, r: (nn.HingeEmbeddingLoss(0.8, reduction=r), (i["y"],)),
    "soft_margin": lambda nn, i, r: (nn.SoftMarginLoss(reduction=r), (i["y"],)),
    "multilabel_soft_margin": lambda nn, i, r: (
        nn.MultiLabelSoftMarginLoss(i["w5"], reduction=r),
        (i["mlb"],),
    ),
    "multi_margin_p2_w": lambda nn, i, r: (
        nn.MultiMarginLoss(2, 0.9, i["w5"], reduction=r),
        (i["cls"],),
    ),
    "multilabel_margin": lambda nn, i, r: (nn.MultiLabelMarginLoss(reduction=r), (i["ml"],)),
    "triplet_dist_l1_swap": lambda nn, i, r: (
        nn.TripletMarginWithDistanceLoss(
            distance_function=_l1_distance, margin=2.0, swap=True, reduction=r
        ),
        (i["t"], i["n"]),
    ),
}


def test_every_case_is_covered(cpp):
    outs, _ = cpp
    expected = {f"{n}.{r}" for n in CASES for r in REDUCTIONS} | {"kl.batchmean"}
    expected |= {f"module.{n}.{r}" for n in MODULES for r in REDUCTIONS}
    assert {k for k in outs if not k.endswith(".grad")} == expected


@pytest.mark.parametrize("name", sorted(MODULES))
def test_cpp_module_classes_equal(cpp, tc_inputs, name):
    outs, _ = cpp
    for red in REDUCTIONS:
        key = f"module.{name}.{red}"
        module, rest = MODULES[name](tc.nn, tc_inputs, red)
        x = tc_inputs["x"].clone().requires_grad_(True)
        loss = module(x, *rest)
        s = (loss * _grad_weights(loss, tc)).sum() if red == "none" else loss
        (g,) = tc.autograd.grad([s], [x])
        np.testing.assert_array_equal(loss.detach().numpy(), outs[key].numpy(), err_msg=key)
        np.testing.assert_array_equal(g.numpy(), outs[key + ".grad"].numpy(), err_msg=key)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_equal(cpp, tc_inputs, name):
    outs, msgs = cpp
    for red in REDUCTIONS:
        key = f"{name}.{red}"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss, grad = _run(tc, F, tc_inputs, name, red)
        assert loss.dtype == tc.float64 and tuple(loss.shape) == tuple(outs[key].shape), key
        # The same C++ function runs on both sides: bitwise equal.
        np.testing.assert_array_equal(loss.numpy(), outs[key].numpy(), err_msg=key)
        np.testing.assert_array_equal(grad.numpy(), outs[key + ".grad"].numpy(), err_msg=key)
        py_warnings = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        if "warn." + key in msgs:
            assert py_warnings == [msgs["warn." + key]], key
        else:
            assert py_warnings == [], key


def test_kl_batchmean(cpp, tc_inputs):
    outs, _ = cpp
    x = tc_inputs["x"].clone().requires_grad_(True)
    loss = F.kl_div(x, tc_inputs["p"], reduction="batchmean")
    (g,) = tc.autograd.grad([loss], [x])
    np.testing.assert_array_equal(loss.detach().numpy(), outs["kl.batchmean"].numpy())
    np.testing.assert_array_equal(g.numpy(), outs["kl.batchmean.grad"].numpy())


def test_broadcast_warning_text(cpp):
    _, msgs = cpp
    assert msgs["warn.mse_broadcast.mean"] == (
        "mse_loss: Using a target size ([5]) that is different to the input size ([4, 5]). "
        "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
        "the same size."
    )


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_equal(cpp, tc_inputs, name):
    _, msgs = cpp
    expected = msgs["error." + name]
    assert expected != "no error", name
    cls_name, _, message = expected.partition(": ")
    with pytest.raises(Exception) as info:
        ERRORS[name](tc_inputs)
    assert type(info.value).__name__ == cls_name, (name, info.value)
    assert str(info.value) == message


def test_legacy_reduction_flags(tc_inputs):
    x, t = tc_inputs["x"], tc_inputs["t"]
    ref = {r: F.mse_loss(x, t, reduction=r).numpy() for r in REDUCTIONS}
    for sa, rd, red in [
        (None, None, "sum"),
        (True, None, "mean"),
        (False, None, "sum"),
        (None, False, "none"),
        (False, False, "none"),
        (False, True, "sum"),
        (True, True, "mean"),
    ]:
        kw = {} if (sa is None and rd is None) else {"size_average": sa, "reduce": rd}
        got = F.mse_loss(x, t, reduction="sum", **kw) if not kw else F.mse_loss(x, t, **kw)
        np.testing.assert_array_equal(got.numpy(), ref[red])
    mod = tc.nn.CrossEntropyLoss(size_average=False)
    assert mod.reduction == "sum"
    assert tc.nn.L1Loss(reduce=False).reduction == "none"


def test_modules_call_the_same_functions(tc_inputs):
    i = tc_inputs
    pairs = [
        (
            tc.nn.MSELoss(reduction="sum")(i["x"], i["t"]),
            F.mse_loss(i["x"], i["t"], reduction="sum"),
        ),
        (
            tc.nn.CrossEntropyLoss(i["w5"], ignore_index=2, label_smoothing=0.1)(
                i["x"], i["cls_ign"]
            ),
            F.cross_entropy(i["x"], i["cls_ign"], i["w5"], ignore_index=2, label_smoothing=0.1),
        ),
        (
            tc.nn.MultiMarginLoss(p=2, weight=i["w5"])(i["x"], i["cls"]),
            F.multi_margin_loss(i["x"], i["cls"], p=2, weight=i["w5"]),
        ),
        (
            tc.nn.HingeEmbeddingLoss(0.8)(i["x"], i["y"]),
            F.hinge_embedding_loss(i["x"], i["y"], 0.8),
        ),
    ]
    for a, b in pairs:
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        tc.nn.L1Loss(reduction="avg")(i["x"], i["t"])


def test_against_torch(tc_inputs):
    torch = pytest.importorskip("torch")
    Ft = torch.nn.functional
    t_inputs = {k: torch.from_numpy(np.asarray(v)) for k, v in _inputs().items()}
    for name in CASES:
        for red in REDUCTIONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss, grad = _run(tc, F, tc_inputs, name, red)
                ref, ref_grad = _run(torch, Ft, t_inputs, name, red)
            np.testing.assert_allclose(
                loss.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12, err_msg=f"{name}.{red}"
            )
            np.testing.assert_allclose(
                grad.numpy(), ref_grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=f"{name}.{red}"
            )
    assert math.isfinite(float(F.binary_cross_entropy(tc.tensor([0.0]), tc.tensor([1.0]))))
