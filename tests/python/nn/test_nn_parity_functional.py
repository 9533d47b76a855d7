"""Python and C++ agree on every non-loss functional op (issue #26).

build/nn_parity_functional (tests/cpp/nn/nn_parity_functional.cpp) runs tc::nn::functional on a
fixed list of cases over the tensors written here and saves its outputs, gradients and error
messages; this file runs tensorcore.nn.functional on the same cases with the same arguments and
requires bitwise-equal values (both run the same C++ function) and the same error class and
message. Where Debian's torch 1.13 is installed, the deterministic cases are also compared
with torch.nn.functional.
"""

import json
import math
import pathlib
import struct
import subprocess

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
SEED = 1234


def _program():
    for candidate in (
        ROOT / "build" / "nn_parity_functional",
        ROOT / "build" / "tests" / "nn_parity_functional",
    ):
        if candidate.exists():
            return candidate
    return None


PROGRAM = _program()
pytestmark = pytest.mark.skipif(PROGRAM is None, reason="build/nn_parity_functional not built")


def _inputs():
    rng = np.random.default_rng(26)

    def r(*shape, lo=-3.0, hi=3.0):
        return tc.from_numpy(rng.uniform(lo, hi, size=shape))

    return {
        "x": r(4, 6),
        "y": r(4, 6),
        "x3": r(2, 4, 5),
        "x4": r(2, 4, 3, 3),
        "x5": r(2, 2, 2, 3, 3),
        "xu": r(2, 2, 4, 6),
        "w_lin": r(5, 6, lo=-1, hi=1),
        "b_lin": r(5, lo=-1, hi=1),
        "w_lin5": r(3, 5, lo=-1, hi=1),
        "w_vec": r(6, lo=-1, hi=1),
        "w_bil": r(3, 6, 6, lo=-1, hi=1),
        "b_bil": r(3, lo=-1, hi=1),
        "w_prelu": r(4, lo=0, hi=0.5),
        "w_prelu1": r(1, lo=0, hi=0.5),
        "idx": tc.tensor([0, 3, 1, 3, 2], dtype=tc.int64),
        "ln_w": r(6, lo=0.5, hi=1.5),
        "ln_b": r(6, lo=-0.5, hi=0.5),
        "gn_w": r(4, lo=0.5, hi=1.5),
        "gn_b": r(4, lo=-0.5, hi=0.5),
        "rm": r(4, lo=-0.5, hi=0.5),
        "rv": r(4, lo=0.5, hi=2.0),
        "emb_w": r(7, 3),
        "emb_idx": tc.tensor([[0, 2, 6], [5, 2, 1]], dtype=tc.int64),
        "cx": r(3, 5, lo=-1, hi=1),
        "h": r(3, 4, lo=-1, hi=1),
        "c": r(3, 4, lo=-1, hi=1),
        "w_ih_l": r(16, 5, lo=-0.5, hi=0.5),
        "w_hh_l": r(16, 4, lo=-0.5, hi=0.5),
        "b_ih_l": r(16, lo=-0.5, hi=0.5),
        "b_hh_l": r(16, lo=-0.5, hi=0.5),
        "w_ih_g": r(12, 5, lo=-0.5, hi=0.5),
        "w_hh_g": r(12, 4, lo=-0.5, hi=0.5),
        "b_ih_g": r(12, lo=-0.5, hi=0.5),
        "b_hh_g": r(12, lo=-0.5, hi=0.5),
        "w_ih_r": r(4, 5, lo=-0.5, hi=0.5),
        "w_hh_r": r(4, 4, lo=-0.5, hi=0.5),
        "b_ih_r": r(4, lo=-0.5, hi=0.5),
        "b_hh_r": r(4, lo=-0.5, hi=0.5),
    }


def _nonleaf(t):
    return t * 1.0


def _bn_train(i):
    rm, rv = i["rm"].clone(), i["rv"].clone()
    y = F.batch_norm(i["x4"], rm, rv, i["gn_w"], i["gn_b"], training=True, momentum=0.2)
    return [y, rm, rv]


def _instance_norm(i):
    rm, rv = i["rm"].clone(), i["rv"].clone()
    return [F.instance_norm(i["x4"], rm, rv, i["gn_w"]), rm, rv]


def _embedding_max_norm(i):
    w = i["emb_w"].clone()
    return [F.embedding(i["emb_idx"], w, max_norm=1.0), w]


# name -> (inputs to differentiate against, the Python call). Same list as the C++ program.
CASES = {
    "linear": (("x", "w_lin", "b_lin"), lambda i: F.linear(i["x"], i["w_lin"], i["b_lin"])),
    "linear_nobias_3d": (("x3", "w_lin5"), lambda i: F.linear(i["x3"], i["w_lin5"])),
    "linear_vec": (("x", "w_vec"), lambda i: F.linear(i["x"], i["w_vec"])),
    "bilinear": (
        ("x", "y", "w_bil", "b_bil"),
        lambda i: F.bilinear(i["x"], i["y"], i["w_bil"], i["b_bil"]),
    ),
    "relu": (("x",), lambda i: F.relu(i["x"])),
    "relu_inplace": (("x",), lambda i: F.relu(_nonleaf(i["x"]), inplace=True)),
    "relu6": (("x",), lambda i: F.relu6(i["x"] * 3.0)),
    "threshold": (("x",), lambda i: F.threshold(i["x"], 0.5, -2.0)),
    "threshold_inplace": (("x",), lambda i: F.threshold_(_nonleaf(i["x"]), 0.5, -2.0)),
    "hardtanh": (("x",), lambda i: F.hardtanh(i["x"], -0.5, 1.5)),
    "hardtanh_inplace": (("x",), lambda i: F.hardtanh_(_nonleaf(i["x"]), -0.5, 1.5)),
    "leaky_relu": (("x",), lambda i: F.leaky_relu(i["x"], 0.2)),
    "leaky_relu_inplace": (("x",), lambda i: F.leaky_relu_(_nonleaf(i["x"]), 0.2)),
    "elu": (("x",), lambda i: F.elu(i["x"], 0.7)),
    "elu_inplace": (("x",), lambda i: F.elu(_nonleaf(i["x"]), alpha=0.7, inplace=True)),
    "selu": (("x",), lambda i: F.selu(i["x"])),
    "selu_inplace": (("x",), lambda i: F.selu_(_nonleaf(i["x"]))),
    "celu": (("x",), lambda i: F.celu(i["x"], 1.3)),
    "celu_inplace": (("x",), lambda i: F.celu_(_nonleaf(i["x"]), 1.3)),
    "rrelu_eval": (("x",), lambda i: F.rrelu(i["x"], 0.1, 0.3)),
    "rrelu_train": (("x",), lambda i: F.rrelu(i["x"], 0.1, 0.3, training=True)),
    "rrelu_train_inplace": (("x",), lambda i: F.rrelu_(_nonleaf(i["x"]), 0.1, 0.3, True)),
    "silu": (("x",), lambda i: F.silu(i["x"])),
    "silu_inplace": (("x",), lambda i: F.silu(_nonleaf(i["x"]), inplace=True)),
    "mish": (("x",), lambda i: F.mish(i["x"])),
    "mish_inplace": (("x",), lambda i: F.mish(_nonleaf(i["x"]), inplace=True)),
    "hardswish": (("x",), lambda i: F.hardswish(i["x"])),
    "hardswish_inplace": (("x",), lambda i: F.hardswish(_nonleaf(i["x"]), inplace=True)),
    "hardsigmoid": (("x",), lambda i: F.hardsigmoid(i["x"])),
    "hardsigmoid_inplace": (("x",), lambda i: F.hardsigmoid(_nonleaf(i["x"]), inplace=True)),
    "gelu": (("x",), lambda i: F.gelu(i["x"])),
    "gelu_tanh": (("x",), lambda i: F.gelu(i["x"], approximate="tanh")),
    "prelu": (("x4", "w_prelu"), lambda i: F.prelu(i["x4"], i["w_prelu"])),
    "prelu_shared": (("x", "w_prelu1"), lambda i: F.prelu(i["x"], i["w_prelu1"])),
    "softplus": (("x",), lambda i: F.softplus(i["x"])),
    "softplus_beta": (("x",), lambda i: F.softplus(i["x"], beta=2.0, threshold=1.0)),
    "softsign": (("x",), lambda i: F.softsign(i["x"])),
    "tanhshrink": (("x",), lambda i: F.tanhshrink(i["x"])),
    "hardshrink": (("x",), lambda i: F.hardshrink(i["x"], 0.7)),
    "softshrink": (("x",), lambda i: F.softshrink(i["x"], 0.7)),
    "logsigmoid": (("x",), lambda i: F.logsigmoid(i["x"])),
    "glu": (("x",), lambda i: F.glu(i["x"])),
    "glu_dim0": (("x",), lambda i: F.glu(i["x"], 0)),
    "softmax": (("x",), lambda i: F.softmax(i["x"], 1)),
    "softmax_legacy_dim": (("x3",), lambda i: F.softmax(i["x3"])),
    "softmax_dtype": (("x",), lambda i: F.softmax(i["x"], -1, dtype=tc.float32)),
    "log_softmax": (("x",), lambda i: F.log_softmax(i["x"], dim=0)),
    "softmin": (("x",), lambda i: F.softmin(i["x"], 1)),
    "gumbel_softmax": (("x",), lambda i: F.gumbel_softmax(i["x"], tau=0.5)),
    "gumbel_softmax_hard": (("x",), lambda i: F.gumbel_softmax(i["x"], hard=True, dim=0)),
    "dropout": (("x",), lambda i: F.dropout(i["x"], 0.3)),
    "dropout_inplace": (("x",), lambda i: F.dropout(_nonleaf(i["x"]), 0.3, inplace=True)),
    "dropout_eval": (("x",), lambda i: F.dropout(i["x"], 0.3, training=False)),
    "dropout1d": (("x3",), lambda i: F.dropout1d(i["x3"])),
    "dropout1d_unbatched": (("x",), lambda i: F.dropout1d(i["x"])),
    "dropout2d": (("x4",), lambda i: F.dropout2d(i["x4"])),
    "dropout3d": (("x5",), lambda i: F.dropout3d(i["x5"])),
    "dropout3d_unbatched": (("x4",), lambda i: F.dropout3d(i["x4"])),
    "alpha_dropout": (("x",), lambda i: F.alpha_dropout(i["x"], 0.4, training=True)),
    "feature_alpha_dropout": (
        ("x4",),
        lambda i: F.feature_alpha_dropout(i["x4"], 0.4, training=True),
    ),
    "one_hot": ((), lambda i: F.one_hot(i["idx"])),
    "one_hot_n": ((), lambda i: F.one_hot(i["idx"], num_classes=6)),
    "normalize": (("x",), lambda i: F.normalize(i["x"], p=3.0, dim=0)),
    "cosine_similarity": (("x", "y"), lambda i: F.cosine_similarity(i["x"], i["y"])),
    "pairwise_distance": (
        ("x", "y"),
        lambda i: F.pairwise_distance(i["x"], i["y"], p=1.5, keepdim=True),
    ),
    "pdist": (("x",), lambda i: F.pdist(i["x"])),
    "pdist_p1": (("x",), lambda i: F.pdist(i["x"], p=1)),
    "channel_shuffle": (("x4",), lambda i: F.channel_shuffle(i["x4"], 2)),
    "pad_constant": (("x4",), lambda i: F.pad(i["x4"], (1, -1, 2, 0), value=0.5)),
    "pad_reflect": (("x4",), lambda i: F.pad(i["x4"], (2, 1, 1, 2), mode="reflect")),
    "pad_replicate": (("x3",), lambda i: F.pad(i["x3"], (3, 1), mode="replicate")),
    "pad_circular": (("x4",), lambda i: F.pad(i["x4"], (1, 2, 3, 0), mode="circular")),
    "interpolate_bilinear": (
        ("x4",),
        lambda i: F.interpolate(i["x4"], scale_factor=2, mode="bilinear", align_corners=False),
    ),
    "interpolate_nearest": (("x4",), lambda i: F.interpolate(i["x4"], size=(5, 4))),
    "interpolate_area": (("x4",), lambda i: F.interpolate(i["x4"], scale_factor=0.5, mode="area")),
    "upsample_bilinear": (("x4",), lambda i: F.upsample_bilinear(i["x4"], scale_factor=2)),
    "lp_pool1d": (("x3",), lambda i: F.lp_pool1d(i["x3"].abs(), 2, 2)),
    "lp_pool2d": (("x4",), lambda i: F.lp_pool2d(i["x4"].abs(), 3, (2, 2), 1, ceil_mode=True)),
    "layer_norm": (
        ("x", "ln_w", "ln_b"),
        lambda i: F.layer_norm(i["x"], (6,), i["ln_w"], i["ln_b"]),
    ),
    "group_norm": (
        ("x4", "gn_w", "gn_b"),
        lambda i: F.group_norm(i["x4"], 2, i["gn_w"], i["gn_b"]),
    ),
    "batch_norm_train": (("x4", "gn_w", "gn_b"), _bn_train),
    "batch_norm_eval": (("x4",), lambda i: F.batch_norm(i["x4"], i["rm"], i["rv"])),
    "instance_norm": (("x4", "gn_w"), _instance_norm),
    "embedding": (("emb_w",), lambda i: F.embedding(i["emb_idx"], i["emb_w"], padding_idx=2)),
    "embedding_max_norm": ((), _embedding_max_norm),
    "lstm_cell": (
        ("cx", "h", "c", "w_ih_l", "w_hh_l", "b_ih_l", "b_hh_l"),
        lambda i: F.lstm_cell(
            i["cx"], (i["h"], i["c"]), i["w_ih_l"], i["w_hh_l"], i["b_ih_l"], i["b_hh_l"]
        ),
    ),
    "gru_cell": (
        ("cx", "h", "w_ih_g", "w_hh_g", "b_ih_g", "b_hh_g"),
        lambda i: F.gru_cell(i["cx"], i["h"], i["w_ih_g"], i["w_hh_g"], i["b_ih_g"], i["b_hh_g"]),
    ),
    "rnn_tanh_cell": (
        ("cx", "h", "w_ih_r", "w_hh_r"),
        lambda i: F.rnn_tanh_cell(i["cx"], i["h"], i["w_ih_r"], i["w_hh_r"]),
    ),
    "rnn_relu_cell": (
        ("cx", "h", "w_ih_r", "w_hh_r", "b_ih_r", "b_hh_r"),
        lambda i: F.rnn_relu_cell(
            i["cx"], i["h"], i["w_ih_r"], i["w_hh_r"], i["b_ih_r"], i["b_hh_r"]
        ),
    ),
    "pixel_shuffle": (("x4",), lambda i: F.pixel_shuffle(i["x4"], 2)),
    "pixel_unshuffle": (("xu",), lambda i: F.pixel_unshuffle(i["xu"], 2)),
}

ERROR_CASES = {
    "linear_shape": lambda i: F.linear(i["x"], i["w_bil"]),
    "linear_0d": lambda i: F.linear(i["x"].sum(), i["w_lin"]),
    "bilinear_weight": lambda i: F.bilinear(i["x"], i["y"], i["w_lin"]),
    "hardtanh_bounds": lambda i: F.hardtanh(i["x"], 2.0, 1.0),
    "softshrink_lambd": lambda i: F.softshrink(i["x"], -1.0),
    "celu_alpha": lambda i: F.celu(i["x"], 0.0),
    "gelu_approximate": lambda i: F.gelu(i["x"], approximate="fast"),
    "rrelu_bounds": lambda i: F.rrelu(i["x"], 0.5, 0.1, training=True),
    "prelu_channels": lambda i: F.prelu(i["x4"], i["ln_w"]),
    "glu_odd": lambda i: F.glu(i["x3"], -1),
    "glu_scalar": lambda i: F.glu(i["x"].sum()),
    "dropout_p": lambda i: F.dropout(i["x"], 1.5),
    "dropout1d_rank": lambda i: F.dropout1d(i["x4"], 0.5),
    "dropout2d_rank": lambda i: F.dropout2d(i["w_vec"], 0.5),
    "one_hot_negative": lambda i: F.one_hot(-i["idx"]),
    "one_hot_small": lambda i: F.one_hot(i["idx"], 2),
    "one_hot_dtype": lambda i: F.one_hot(i["x"]),
    "pdist_rank": lambda i: F.pdist(i["x3"]),
    "pdist_p": lambda i: F.pdist(i["x"], -1.0),
    "channel_shuffle_groups": lambda i: F.channel_shuffle(i["x4"], 3),
    "interpolate_both": lambda i: F.interpolate(i["x4"], size=4, scale_factor=2.0),
    "interpolate_mode": lambda i: F.interpolate(i["x4"], size=4, mode="cubic"),
    "interpolate_align": lambda i: F.interpolate(i["x4"], size=4, align_corners=False),
    "pad_reflect_large": lambda i: F.pad(i["x4"], (3, 3), mode="reflect"),
    "pad_odd": lambda i: F.pad(i["x4"], (1, 2, 3)),
    "pixel_shuffle_channels": lambda i: F.pixel_shuffle(i["x4"], 3),
    "lp_pool_norm": lambda i: F.lp_pool2d(i["x4"], -1.0, 2),
    "layer_norm_shape": lambda i: F.layer_norm(i["x"], (5,)),
}


def _cot(t):
    return tc.sin(tc.arange(t.numel(), dtype=tc.float64)).reshape(tuple(t.shape)).to(t.dtype)


def _run_python(name, inputs):
    wrt, fn = CASES[name]
    args = dict(inputs)
    leaves = []
    for n in wrt:
        leaf = inputs[n].detach().clone().requires_grad_(True)
        args[n] = leaf
        leaves.append(leaf)
    tc.manual_seed(SEED)
    outs = fn(args)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    loss = None
    for o in outs:
        if o.requires_grad:
            term = (o * _cot(o)).sum()
            loss = term if loss is None else loss + term
    grads = {}
    if leaves and loss is not None:
        got = tc.autograd.grad([loss], leaves, allow_unused=True)
        grads = {n: g for n, g in zip(wrt, got) if g is not None}
    return [o.detach() for o in outs], grads


def _metadata(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n)).get("__metadata__", {})


@pytest.fixture(scope="module")
def parity(tmp_path_factory):
    d = tmp_path_factory.mktemp("parity")
    inputs = _inputs()
    tc.serialization.save_safetensors(inputs, d / "in.safetensors")
    subprocess.run(
        [str(PROGRAM), str(d / "in.safetensors"), str(d / "out.safetensors")],
        check=True,
        timeout=120,
    )
    return (
        inputs,
        tc.serialization.load_safetensors(d / "out.safetensors"),
        _metadata(d / "out.safetensors"),
    )


def _equal(a, b, what):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape), (
        f"{what}: {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
    )
    # Bitwise: both languages run the same C++ function (NaN == NaN).
    assert np.array_equal(a.numpy(), b.numpy(), equal_nan=True), what


def test_every_case_ran_in_cpp(parity):
    _, out, meta = parity
    unexpected = {k: v for k, v in meta.items() if k.startswith("unexpected.")}
    assert not unexpected
    ran = {k.split(".")[1] for k in out if k.startswith("out.")}
    assert ran == set(CASES)
    assert {k[len("error.") :] for k in meta if k.startswith("error.")} == set(ERROR_CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_cpp(parity, name):
    inputs, out, _ = parity
    outs, grads = _run_python(name, inputs)
    cpp_outs = sorted(
        (k for k in out if k.startswith(f"out.{name}.")), key=lambda k: int(k.split(".")[-1])
    )
    assert len(cpp_outs) == len(outs), name
    for k, o in zip(cpp_outs, outs):
        _equal(o, out[k], k)
    cpp_grads = {k.split(".")[-1]: v for k, v in out.items() if k.startswith(f"grad.{name}.")}
    assert set(cpp_grads) == set(grads), name
    for n, g in grads.items():
        _equal(g, cpp_grads[n], f"grad.{name}.{n}")


_PY_CLASS = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "IndexError": IndexError,
    "NotImplementedError": NotImplementedError,
    "RuntimeError": RuntimeError,
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_cpp(parity, name):
    inputs, _, meta = parity
    cls, message = meta["error." + name].split("|", 1)
    assert cls != "none", f"{name}: the C++ call did not fail"
    with pytest.raises(Exception) as info:
        ERROR_CASES[name](inputs)
    assert type(info.value) is _PY_CLASS[cls] or isinstance(info.value, _PY_CLASS[cls]), (
        f"{name}: Python raised {type(info.value).__name__}, C++ {cls}"
    )
    assert message in str(info.value), f"{name}: {info.value!s} vs C++ {message}"


# ---------------------------------------------------------------- torch 1.13 reference

_TORCH_SKIP = {  # random draws differ between the libraries, or no torch counterpart
    "rrelu_train",
    "rrelu_train_inplace",
    "gumbel_softmax",
    "gumbel_softmax_hard",
    "dropout",
    "dropout_inplace",
    "dropout1d",
    "dropout1d_unbatched",
    "dropout2d",
    "dropout3d",
    "dropout3d_unbatched",
    "alpha_dropout",
    "feature_alpha_dropout",
    "softmax_dtype",  # dtype= takes a tensorcore dtype
}


_TORCH_NO_GRAD = {"channel_shuffle"}  # torch 1.13 has no derivative for it


@pytest.mark.parametrize("name", sorted(set(CASES) - _TORCH_SKIP))
def test_values_and_gradients_match_torch(parity, name):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    inputs, out, _ = parity

    class Shim:  # F with torch's functions, tensors converted
        def __getattr__(self, attr):
            if attr in ("lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"):
                return getattr(torch._VF, attr)
            return getattr(TF, attr)

    t_inputs = {k: torch.from_numpy(v.numpy().copy()) for k, v in inputs.items()}
    wrt, fn = CASES[name]
    leaves = {n: t_inputs[n].clone().requires_grad_(True) for n in wrt}
    args = {**t_inputs, **leaves}
    global F
    saved, F = F, Shim()
    try:
        outs = fn(args)
    finally:
        F = saved
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    for k, o in enumerate(outs):
        np.testing.assert_allclose(
            o.detach().numpy(),
            out[f"out.{name}.{k}"].numpy(),
            rtol=1e-6,
            atol=1e-9,
            err_msg=f"{name} output {k}",
        )
    loss = None
    for o in outs:
        if o.requires_grad:
            cot = (
                torch.sin(torch.arange(o.numel(), dtype=torch.float64)).reshape(o.shape).to(o.dtype)
            )
            term = (o * cot).sum()
            loss = term if loss is None else loss + term
    if loss is None or not leaves or name in _TORCH_NO_GRAD:
        return
    got = torch.autograd.grad([loss], list(leaves.values()), allow_unused=True)
    for n, g in zip(leaves, got):
        if g is None:
            continue
        np.testing.assert_allclose(
            g.numpy(),
            out[f"grad.{name}.{n}"].numpy(),
            rtol=1e-6,
            atol=1e-9,
            err_msg=f"{name} grad {n}",
        )


def test_softmax_implicit_dim_is_torch_legacy_rule():
    # 0-, 1- and 3-d inputs use dim 0, others dim 1 (torch's _get_softmax_dim).
    for shape, dim in (((), 0), ((5,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)):
        x = tc.randn(*shape, dtype=tc.float64) if shape else tc.tensor(1.5, dtype=tc.float64)
        assert np.array_equal(F.softmax(x).numpy(), F.softmax(x, dim).numpy()), shape
    assert math.isfinite(float(F.log_softmax(tc.tensor(3.0, dtype=tc.float64))))
