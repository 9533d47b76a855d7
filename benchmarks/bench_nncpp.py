"""tensorcore vs PyTorch, side by side in one process and the same thread count, for the work of
the nncpp branch: fused GELU and cross-entropy kernels, the ResNet stem convolution (7x7 stride 2,
3->64), and C++ frontend layers driven from Python (tensorcore.nn.cpp) against torch.nn.

    .venv/bin/python benchmarks/bench_nncpp.py [--threads 1] [--reps 30]

Each case alternates tensorcore and torch calls (so load changes hit both) and prints the
medians and their ratio (tensorcore / torch; < 1 is faster).
"""

import argparse

import numpy as np
import torch

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.nn import cpp
from _common import parse_bench_args, race


def report(name, times):
    a, b = times
    print(
        f"{name:48s} tc {a * 1e3:9.3f} ms   torch {b * 1e3:9.3f} ms   ratio {a / b:5.2f}",
        flush=True,
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    args = parse_bench_args(ap, torch, 1)
    reps = args.reps
    rng = np.random.default_rng(0)

    x = rng.standard_normal((256, 1000), dtype=np.float32)
    y = rng.integers(0, 1000, size=256)
    xc, xt = tc.from_numpy(x), torch.from_numpy(x)
    xcg, xtg = tc.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    yc, yt = tc.from_numpy(y), torch.from_numpy(y)
    gt_ = rng.standard_normal((256, 1000), dtype=np.float32)
    gc_, gtt = tc.from_numpy(gt_), torch.from_numpy(gt_)
    report(
        "softmax dim 1 256x1000", race(lambda: F.softmax(xc, 1), lambda: torch.softmax(xt, 1), reps)
    )
    report(
        "log_softmax forward+backward 256x1000",
        race(
            lambda: F.log_softmax(xcg, 1).backward(gc_),
            lambda: torch.log_softmax(xtg, 1).backward(gtt),
            reps,
        ),
    )
    report(
        "gelu (exact) 256x1000",
        race(lambda: F.gelu(xc), lambda: torch.nn.functional.gelu(xt), reps),
    )
    report(
        "gelu forward+backward 256x1000",
        race(
            lambda: F.gelu(xcg).sum().backward(),
            lambda: torch.nn.functional.gelu(xtg).sum().backward(),
            reps,
        ),
    )
    report(
        "cross_entropy forward+backward 256x1000",
        race(
            lambda: F.cross_entropy(xcg, yc).backward(),
            lambda: torch.nn.functional.cross_entropy(xtg, yt).backward(),
            reps,
        ),
    )
    report(
        "cross_entropy label_smoothing=0.1 f+b",
        race(
            lambda: F.cross_entropy(xcg, yc, label_smoothing=0.1).backward(),
            lambda: torch.nn.functional.cross_entropy(xtg, yt, label_smoothing=0.1).backward(),
            reps,
        ),
    )

    img = rng.standard_normal((8, 3, 224, 224), dtype=np.float32)
    w = rng.standard_normal((64, 3, 7, 7), dtype=np.float32) * 0.05
    g = rng.standard_normal((8, 64, 112, 112), dtype=np.float32)
    ic, it_ = tc.from_numpy(img), torch.from_numpy(img)
    wc, wt = tc.from_numpy(w).requires_grad_(), torch.from_numpy(w).requires_grad_()
    gc, gt = tc.from_numpy(g), torch.from_numpy(g)
    conv_reps = max(3, reps // 6)

    def conv_fwd_tc():
        with tc.no_grad():
            F.conv2d(ic, wc, None, 2, 3)

    def conv_fwd_torch():
        with torch.no_grad():
            torch.nn.functional.conv2d(it_, wt, None, 2, 3)

    report("conv1 7x7s2 3->64, 8x224x224, forward", race(conv_fwd_tc, conv_fwd_torch, conv_reps))
    report(
        "conv1 forward + weight grad",
        race(
            lambda: tc.autograd.grad([F.conv2d(ic, wc, None, 2, 3)], [wc], [gc]),
            lambda: torch.autograd.grad(
                [torch.nn.functional.conv2d(it_, wt, None, 2, 3)], [wt], [gt]
            ),
            conv_reps,
        ),
    )

    # C++ frontend layers from Python, same weights as the torch layers.
    tc.manual_seed(0)
    layer = cpp.TransformerEncoderLayer(256, 8, 1024, 0.0, batch_first=True)
    ref = torch.nn.TransformerEncoderLayer(256, 8, 1024, 0.0, batch_first=True)
    ref.load_state_dict(
        {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in layer.state_dict().items()}
    )
    src = rng.standard_normal((16, 64, 256), dtype=np.float32)
    sc, st = tc.from_numpy(src).requires_grad_(), torch.from_numpy(src).requires_grad_()
    report(
        "cpp.TransformerEncoderLayer fwd+bwd 16x64x256",
        race(
            lambda: layer(sc).sum().backward(), lambda: ref(st).sum().backward(), max(5, reps // 3)
        ),
    )
    lstm = cpp.LSTM(128, 256, 2, batch_first=True)
    rlstm = torch.nn.LSTM(128, 256, 2, batch_first=True)
    rlstm.load_state_dict(
        {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in lstm.state_dict().items()}
    )
    seq = rng.standard_normal((16, 50, 128), dtype=np.float32)
    qc, qt = tc.from_numpy(seq).requires_grad_(), torch.from_numpy(seq).requires_grad_()
    report(
        "cpp.LSTM 2 layers H=256 T=50 N=16 fwd+bwd",
        race(
            lambda: lstm(qc)[0].sum().backward(),
            lambda: rlstm(qt)[0].sum().backward(),
            max(5, reps // 3),
        ),
    )

    # Layers of the coverage pass (nn/modules/conv.h, rnn.h, nn/modules/*.h).
    def same_weights(ours, theirs):
        theirs.load_state_dict(
            {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in ours.state_dict().items()}
        )

    rnn = cpp.RNN(128, 256, 2, batch_first=True)
    rrnn = torch.nn.RNN(128, 256, 2, batch_first=True)
    same_weights(rnn, rrnn)
    report(
        "cpp.RNN tanh 2 layers H=256 T=50 N=16 fwd+bwd",
        race(
            lambda: rnn(qc)[0].sum().backward(),
            lambda: rrnn(qt)[0].sum().backward(),
            max(5, reps // 3),
        ),
    )
    conv3 = cpp.Conv3d(16, 32, 3, padding=1)
    rconv3 = torch.nn.Conv3d(16, 32, 3, padding=1)
    same_weights(conv3, rconv3)
    vol = rng.standard_normal((2, 16, 16, 32, 32), dtype=np.float32)
    vc, vt = tc.from_numpy(vol).requires_grad_(), torch.from_numpy(vol).requires_grad_()
    report(
        "cpp.Conv3d 16->32 k3 2x16x16x32x32 fwd+bwd",
        race(
            lambda: conv3(vc).sum().backward(),
            lambda: rconv3(vt).sum().backward(),
            max(3, reps // 6),
        ),
    )
    bag = cpp.EmbeddingBag(50000, 128, mode="sum")
    rbag = torch.nn.EmbeddingBag(50000, 128, mode="sum")
    same_weights(bag, rbag)
    ids = rng.integers(0, 50000, size=64 * 40)
    offs = np.arange(0, 64 * 40, 40)
    ic_, it2 = tc.from_numpy(ids), torch.from_numpy(ids)
    oc_, ot_ = tc.from_numpy(offs), torch.from_numpy(offs)
    report(
        "cpp.EmbeddingBag sum 50000x128, 64 bags of 40 fwd+bwd",
        race(lambda: bag(ic_, oc_).sum().backward(), lambda: rbag(it2, ot_).sum().backward(), reps),
    )


if __name__ == "__main__":
    main()
