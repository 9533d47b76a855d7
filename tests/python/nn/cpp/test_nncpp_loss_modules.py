"""The C++ loss modules (tc::nn::*Loss through tensorcore.nn.cpp) against torch.nn's losses in
float64: every reduction, the loss value and the input gradients; weight / pos_weight buffers
appear in the state_dict under torch's names. Without torch they run against tensorcore.nn."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as tnn
from tensorcore.nn import cpp

try:
    import torch
except ImportError:
    torch = None

RNG = np.random.default_rng(0)
N, C = 6, 4
X = RNG.standard_normal((N, C))
T = RNG.standard_normal((N, C))
P = RNG.uniform(0.05, 0.95, (N, C))
LABELS = RNG.integers(0, C, N)
LABELS[2] = 1
W = RNG.uniform(0.5, 1.5, C)
SIGN = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])


def softmax_rows(a):
    e = np.exp(a - a.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def t(a):
    return ("t", a)


# (loss name, constructor kwargs with tensors as ("t", array), inputs: arrays; the first `grads` of
# them get gradients).
CASES = [
    ("CrossEntropyLoss", {}, [X, LABELS], 1),
    ("CrossEntropyLoss", dict(weight=t(W), ignore_index=1, label_smoothing=0.1), [X, LABELS], 1),
    ("CrossEntropyLoss", dict(weight=t(W)), [X, softmax_rows(T)], 1),
    ("CrossEntropyLoss", {}, [RNG.standard_normal((2, C, 3, 2)), RNG.integers(0, C, (2, 3, 2))], 1),
    ("NLLLoss", dict(weight=t(W)), [np.log(softmax_rows(X)), LABELS], 1),
    ("MSELoss", {}, [X, T], 2),
    ("L1Loss", {}, [X, T], 2),
    ("SmoothL1Loss", dict(beta=0.5), [X, T], 2),
    ("HuberLoss", dict(delta=0.7), [X, T], 2),
    ("BCELoss", dict(weight=t(W)), [P, RNG.uniform(0, 1, (N, C))], 2),
    ("BCEWithLogitsLoss", dict(pos_weight=t(W)), [X, RNG.uniform(0, 1, (N, C))], 2),
    ("KLDivLoss", {}, [np.log(softmax_rows(X)), softmax_rows(T)], 2),
    ("KLDivLoss", dict(log_target=True), [np.log(softmax_rows(X)), np.log(softmax_rows(T))], 2),
    ("MarginRankingLoss", dict(margin=0.2), [X[:, 0], T[:, 0], SIGN], 2),
    ("CosineEmbeddingLoss", dict(margin=0.1), [X, T, SIGN], 2),
    (
        "TripletMarginLoss",
        dict(margin=0.5, p=1.5, swap=True),
        [X, T, RNG.standard_normal((N, C))],
        3,
    ),
    ("PoissonNLLLoss", dict(full=True), [X, RNG.integers(0, 5, (N, C)).astype(np.float64)], 1),
    (
        "PoissonNLLLoss",
        dict(log_input=False),
        [np.exp(X), RNG.integers(0, 5, (N, C)).astype(np.float64)],
        1,
    ),
    ("GaussianNLLLoss", dict(full=True), [X, T, RNG.uniform(0.2, 2.0, (N, C))], 3),
    ("GaussianNLLLoss", {}, [X, T, RNG.uniform(0.2, 2.0, (N, 1))], 3),
    ("HingeEmbeddingLoss", dict(margin=0.8), [X, np.sign(T)], 1),
    ("SoftMarginLoss", {}, [X, np.sign(T)], 1),
    ("MultiLabelSoftMarginLoss", dict(weight=t(W)), [X, (T > 0).astype(np.float64)], 1),
    ("MultiMarginLoss", dict(p=2, margin=0.9, weight=t(W)), [X, LABELS], 1),
    ("MultiLabelMarginLoss", {}, [X, np.array([[3, 0, -1, 1]] * N)], 1),
]


def ctc_case():
    """(log_probs T=8 x N=3 x C=5, concatenated targets, lengths) with one infeasible sample."""
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((8, 3, 5))
    lp = logits - np.log(np.exp(logits).sum(2, keepdims=True))
    targets = np.array([1, 2, 2, 3, 1, 4, 4, 4, 4, 4], dtype=np.int64)
    return [lp, targets, np.array([8, 7, 3]), np.array([3, 2, 5])]


def case_id(c):
    return c[0] + "(" + ",".join(f"{k}" for k in c[1]) + ")"


def build(lib, name, kwargs, reduction):
    kw = {k: (lib_tensor(lib, v[1]) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    if lib == "torch":
        return getattr(torch.nn, name)(reduction=reduction, **kw)
    if lib == "cpp":
        return getattr(cpp, name)(reduction=reduction, **kw).double()
    return getattr(tnn, name)(reduction=reduction, **kw)


def lib_tensor(lib, a, grad=False):
    if lib == "torch":
        return torch.tensor(a, requires_grad=grad)
    return tc.tensor(a, requires_grad=grad)


def run(lib, name, kwargs, reduction, inputs, grads):
    module = build(lib, name, kwargs, reduction)
    xs = [lib_tensor(lib, a, k < grads and a.dtype == np.float64) for k, a in enumerate(inputs)]
    out = module(*xs)
    g = np.random.default_rng(2).standard_normal(tuple(out.shape))
    (out * lib_tensor(lib, g)).sum().backward()
    return (
        out.detach().numpy(),
        [x.grad.numpy() for x in xs if x.grad is not None],
        {k: v.detach().numpy() for k, v in module.state_dict().items()},
    )


def check(name, kwargs, inputs, grads, ref_lib):
    for reduction in ("none", "mean", "sum"):
        got, got_g, got_sd = run("cpp", name, kwargs, reduction, inputs, grads)
        want, want_g, want_sd = run(ref_lib, name, kwargs, reduction, inputs, grads)
        what = f"{name} {kwargs} {reduction} vs {ref_lib}"
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=what)
        assert len(got_g) == len(want_g), what
        for a, b in zip(got_g, want_g):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=what + " grad")
        assert list(got_sd) == list(want_sd), what


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_cpp_loss_module_matches_torch(case, torch_ref):
    check(*case, "torch")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_cpp_loss_module_matches_python_loss(case):
    check(*case, "tc")


def test_cpp_ctc_loss_module(torch_ref):
    inputs = ctc_case()
    for reduction in ("none", "mean", "sum"):
        for zero_infinity in (False, True):
            kw = dict(blank=0, zero_infinity=zero_infinity)
            mod_c = cpp.CTCLoss(reduction=reduction, **kw)
            mod_t = torch_ref.nn.CTCLoss(reduction=reduction, **kw)
            lc = tc.tensor(inputs[0], requires_grad=True)
            lt = torch_ref.tensor(inputs[0], requires_grad=True)
            out_c = mod_c(lc, *[tc.tensor(a) for a in inputs[1:]])
            out_t = mod_t(lt, *[torch_ref.tensor(a) for a in inputs[1:]])
            np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=1e-10)
            if zero_infinity or reduction == "none":
                # Gradients w.r.t. logits agree (torch's log_probs gradient differs by exp(lp),
                # a term log_softmax cancels: see docs/nn_native.md).
                logits = np.random.default_rng(3).standard_normal(inputs[0].shape)
                xc = tc.tensor(logits, requires_grad=True)
                xt = torch_ref.tensor(logits, requires_grad=True)
                g = np.random.default_rng(4).standard_normal(tuple(out_t.shape))
                lc2 = mod_c(tnn.functional.log_softmax(xc, 2), *[tc.tensor(a) for a in inputs[1:]])
                lt2 = mod_t(
                    torch_ref.log_softmax(xt, 2), *[torch_ref.tensor(a) for a in inputs[1:]]
                )
                if (
                    not zero_infinity
                ):  # the infeasible sample's infinite loss gets no gradient weight
                    g[2] = 0.0
                (lc2 * tc.tensor(g)).sum().backward()
                (lt2 * torch_ref.tensor(g)).sum().backward()
                np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_cpp_loss_module_errors_and_keywords():
    loss = cpp.CrossEntropyLoss()
    x = tc.tensor(X)
    np.testing.assert_allclose(
        loss(input=x, target=tc.tensor(LABELS)).numpy(), loss(x, tc.tensor(LABELS)).numpy()
    )
    with pytest.raises(
        TypeError, match=r"CrossEntropyLoss.forward: expected 2 tensor arguments, got 3"
    ):
        loss(x, tc.tensor(LABELS), x)
    with pytest.raises(ValueError, match="reduction"):
        cpp.MSELoss(reduction="avg")(x, x)
    # The deprecated flags map to a reduction as in torch (nn::functional::legacy_reduction).
    np.testing.assert_array_equal(
        cpp.MSELoss(size_average=False)(x, x + 1).numpy(),
        cpp.MSELoss(reduction="sum")(x, x + 1).numpy(),
    )
    assert list(cpp.BCEWithLogitsLoss(pos_weight=tc.ones(4)).state_dict()) == ["pos_weight"]
