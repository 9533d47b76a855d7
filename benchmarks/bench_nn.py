"""Native nn kernels vs PyTorch, side by side in one run.

    .venv/bin/python benchmarks/bench_nn.py [--batch 8] [--reps 5] [--only conv,dwconv,pool,bn,ctc,rnn,mha]

Prints per-case median times (ms) for tensorcore and torch and the ratio (ours / torch; < 1 is
faster). Both libraries run with the same thread count (torch.get_num_threads() is set to
tensorcore's).
"""

import argparse
import statistics

import numpy as np
import torch

import tensorcore as tc
import tensorcore.nn as tnn
from tensorcore._C import _nn as F
from _common import run_times

# (name, C_in, C_out, H_in, kernel, stride, padding): every distinct conv of ResNet-50.
RESNET50_CONVS = [
    ("conv1", 3, 64, 224, 7, 2, 3),
    ("l1.1x1a", 64, 64, 56, 1, 1, 0),
    ("l1.3x3", 64, 64, 56, 3, 1, 1),
    ("l1.1x1b", 64, 256, 56, 1, 1, 0),
    ("l1.1x1c", 256, 64, 56, 1, 1, 0),
    ("l2.1x1a", 256, 128, 56, 1, 1, 0),
    ("l2.3x3s2", 128, 128, 56, 3, 2, 1),
    ("l2.down", 256, 512, 56, 1, 2, 0),
    ("l2.1x1b", 128, 512, 28, 1, 1, 0),
    ("l2.1x1c", 512, 128, 28, 1, 1, 0),
    ("l2.3x3", 128, 128, 28, 3, 1, 1),
    ("l3.1x1a", 512, 256, 28, 1, 1, 0),
    ("l3.3x3s2", 256, 256, 28, 3, 2, 1),
    ("l3.down", 512, 1024, 28, 1, 2, 0),
    ("l3.1x1b", 256, 1024, 14, 1, 1, 0),
    ("l3.1x1c", 1024, 256, 14, 1, 1, 0),
    ("l3.3x3", 256, 256, 14, 3, 1, 1),
    ("l4.1x1a", 1024, 512, 14, 1, 1, 0),
    ("l4.3x3s2", 512, 512, 14, 3, 2, 1),
    ("l4.down", 1024, 2048, 14, 1, 2, 0),
    ("l4.1x1b", 512, 2048, 7, 1, 1, 0),
    ("l4.1x1c", 2048, 512, 7, 1, 1, 0),
    ("l4.3x3", 512, 512, 7, 3, 1, 1),
]


def timeit(fn, reps):
    return statistics.median(run_times(fn, min_runs=reps, max_runs=reps))


class Report:
    def __init__(self):
        self.rows = []

    def add(self, group, name, ours, ref):
        self.rows.append((group, name, ours, ref))
        print(
            f"{group:6s} {name:28s} tc {ours * 1e3:9.2f} ms   torch {ref * 1e3:9.2f} ms   ratio {ours / ref:5.2f}",
            flush=True,
        )

    def summary(self):
        groups = {}
        for g, _, a, b in self.rows:
            groups.setdefault(g, [0.0, 0.0])
            groups[g][0] += a
            groups[g][1] += b
        print("\ntotals per group (sum of medians):")
        for g, (a, b) in groups.items():
            print(f"  {g:6s} tc {a * 1e3:9.2f} ms   torch {b * 1e3:9.2f} ms   ratio {a / b:5.2f}")


def both(x, requires_grad=False):
    a = tc.tensor(x)
    b = torch.tensor(x)
    if requires_grad:
        a.requires_grad_(True)
        b.requires_grad_(True)
    return a, b


def bench_conv(rep, batch, reps):
    rng = np.random.default_rng(0)
    for name, cin, cout, h, k, s, p in RESNET50_CONVS:
        x = rng.standard_normal((batch, cin, h, h), dtype=np.float32)
        w = rng.standard_normal((cout, cin, k, k), dtype=np.float32) * 0.05
        tx, rx = both(x, requires_grad=name != "conv1")
        tw, rw = both(w, requires_grad=True)
        ho = (h + 2 * p - k) // s + 1
        g = rng.standard_normal((batch, cout, ho, ho), dtype=np.float32)
        tg, rg = both(g)
        t_inputs = [tw] + ([tx] if name != "conv1" else [])
        r_inputs = [rw] + ([rx] if name != "conv1" else [])
        ours = timeit(
            lambda: tc.autograd.grad([F.conv2d(tx, tw, None, s, p)], t_inputs, [tg]), reps
        )
        ref = timeit(
            lambda: torch.autograd.grad(
                [torch.nn.functional.conv2d(rx, rw, None, s, p)], r_inputs, [rg]
            ),
            reps,
        )
        rep.add("conv", f"{name} {cin}->{cout} {h}x{h} k{k}s{s}", ours, ref)


def bench_dwconv(rep, reps):
    """ConvTasNet's depthwise dilated conv1d (256 channels, kernel 3, 4 x 1001 frames): input,
    weight and bias gradients, in float32 and bfloat16 (CPU autocast's dtype)."""
    rng = np.random.default_rng(0)
    shape, channels = (4, 256, 1001), 256
    for dtype in ("float32", "bfloat16"):
        for dilation in (1, 32):
            x = rng.standard_normal(shape, dtype=np.float32)
            w = rng.standard_normal((channels, 1, 3), dtype=np.float32) * 0.5
            b = rng.standard_normal(channels, dtype=np.float32)
            t_in = [tc.tensor(a).to(getattr(tc, dtype)).requires_grad_(True) for a in (x, w, b)]
            r_in = [
                torch.tensor(a).to(getattr(torch, dtype)).requires_grad_(True) for a in (x, w, b)
            ]
            g = rng.standard_normal(shape, dtype=np.float32)
            tg, rg = tc.tensor(g).to(getattr(tc, dtype)), torch.tensor(g).to(getattr(torch, dtype))
            kw = dict(padding=dilation, dilation=dilation, groups=channels)
            ours = timeit(lambda: tc.autograd.grad([F.conv1d(*t_in, **kw)], t_in, [tg]), reps)
            ref = timeit(
                lambda: torch.autograd.grad([torch.nn.functional.conv1d(*r_in, **kw)], r_in, [rg]),
                reps,
            )
            rep.add("dwconv", f"{dtype} d{dilation} 4x256x1001 k3", ours, ref)


def bench_pool(rep, batch, reps):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, 64, 112, 112), dtype=np.float32)
    tx, rx = both(x, requires_grad=True)
    y = F.max_pool2d(tx, 3, 2, 1)
    tg, rg = both(np.ones(tuple(y.shape), np.float32))
    rep.add(
        "pool",
        "max_pool2d 3x3s2 fwd+bwd",
        timeit(lambda: tc.autograd.grad([F.max_pool2d(tx, 3, 2, 1)], [tx], [tg]), reps),
        timeit(
            lambda: torch.autograd.grad([torch.nn.functional.max_pool2d(rx, 3, 2, 1)], [rx], [rg]),
            reps,
        ),
    )
    y = F.avg_pool2d(tx, 3, 2, 1)
    rep.add(
        "pool",
        "avg_pool2d 3x3s2 fwd+bwd",
        timeit(lambda: tc.autograd.grad([F.avg_pool2d(tx, 3, 2, 1)], [tx], [tg]), reps),
        timeit(
            lambda: torch.autograd.grad([torch.nn.functional.avg_pool2d(rx, 3, 2, 1)], [rx], [rg]),
            reps,
        ),
    )
    x2 = rng.standard_normal((batch, 2048, 7, 7), dtype=np.float32)
    tx2, rx2 = both(x2, requires_grad=True)
    tg2, rg2 = both(np.ones((batch, 2048, 1, 1), np.float32))
    rep.add(
        "pool",
        "adaptive_avg_pool2d 7x7->1",
        timeit(lambda: tc.autograd.grad([F.adaptive_avg_pool2d(tx2, 1)], [tx2], [tg2]), reps),
        timeit(
            lambda: torch.autograd.grad(
                [torch.nn.functional.adaptive_avg_pool2d(rx2, 1)], [rx2], [rg2]
            ),
            reps,
        ),
    )


def bench_bn(rep, batch, reps):
    rng = np.random.default_rng(2)
    for c, h in [(64, 112), (256, 56), (1024, 14)]:
        x = rng.standard_normal((batch, c, h, h), dtype=np.float32)
        tx, rx = both(x, requires_grad=True)
        tw, rw = both(np.ones(c, np.float32), requires_grad=True)
        tb, rb = both(np.zeros(c, np.float32), requires_grad=True)
        trm, rrm = both(np.zeros(c, np.float32))
        trv, rrv = both(np.ones(c, np.float32))
        tg, rg = both(rng.standard_normal(x.shape, dtype=np.float32))
        rep.add(
            "bn",
            f"batch_norm train {c}x{h}x{h}",
            timeit(
                lambda: tc.autograd.grad(
                    [F.batch_norm(tx, trm, trv, tw, tb, True)], [tx, tw, tb], [tg]
                ),
                reps,
            ),
            timeit(
                lambda: torch.autograd.grad(
                    [torch.nn.functional.batch_norm(rx, rrm, rrv, rw, rb, True)], [rx, rw, rb], [rg]
                ),
                reps,
            ),
        )
    x = rng.standard_normal((32, 100, 512), dtype=np.float32)
    tx, rx = both(x, requires_grad=True)
    tw, rw = both(np.ones(512, np.float32), requires_grad=True)
    tb, rb = both(np.zeros(512, np.float32), requires_grad=True)
    tg, rg = both(rng.standard_normal(x.shape, dtype=np.float32))
    rep.add(
        "bn",
        "layer_norm 32x100x512",
        timeit(
            lambda: tc.autograd.grad([F.layer_norm(tx, (512,), tw, tb)], [tx, tw, tb], [tg]), reps
        ),
        timeit(
            lambda: torch.autograd.grad(
                [torch.nn.functional.layer_norm(rx, (512,), rw, rb)], [rx, rw, rb], [rg]
            ),
            reps,
        ),
    )
    x = rng.standard_normal((batch, 256, 28, 28), dtype=np.float32)
    tx, rx = both(x, requires_grad=True)
    tw, rw = both(np.ones(256, np.float32), requires_grad=True)
    tg, rg = both(rng.standard_normal(x.shape, dtype=np.float32))
    rep.add(
        "bn",
        "group_norm 32 groups 256x28x28",
        timeit(lambda: tc.autograd.grad([F.group_norm(tx, 32, tw, None)], [tx, tw], [tg]), reps),
        timeit(
            lambda: torch.autograd.grad(
                [torch.nn.functional.group_norm(rx, 32, rw, None)], [rx, rw], [rg]
            ),
            reps,
        ),
    )


def bench_ctc(rep, reps):
    rng = np.random.default_rng(3)
    T, N, C, S = 200, 16, 30, 50
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = rng.integers(1, C, size=(N, S))
    tl = rng.integers(30, S + 1, size=N)
    il = np.full(N, T)
    tx, rx = both(lp, requires_grad=True)
    tt, rt = both(targets)
    til, ril = both(il)
    ttl, rtl = both(tl)
    rep.add(
        "ctc",
        "ctc_loss T200 C30 N16 fwd+bwd",
        timeit(lambda: tc.autograd.grad([F.ctc_loss(tx, tt, til, ttl)], [tx]), reps),
        timeit(
            lambda: torch.autograd.grad([torch.nn.functional.ctc_loss(rx, rt, ril, rtl)], [rx]),
            reps,
        ),
    )


def bench_rnn(rep, reps):
    rng = np.random.default_rng(4)
    N, H = 32, 512
    x = rng.standard_normal((N, H), dtype=np.float32)
    h = rng.standard_normal((N, H), dtype=np.float32)
    for kind, gates in [("lstm", 4), ("gru", 3)]:
        w = rng.standard_normal((gates * H, H), dtype=np.float32) * 0.05
        u = rng.standard_normal((gates * H, H), dtype=np.float32) * 0.05
        b = np.zeros(gates * H, np.float32)
        T = [both(a, requires_grad=True)[0] for a in (x, h, w, u, b, b)]
        R = [torch.tensor(a, requires_grad=True) for a in (x, h, w, u, b, b)]
        if kind == "lstm":
            c = both(h)
            # Gradients for every input (x and h included), as inside a training loop over time.
            ours = lambda: tc.autograd.grad(
                [sum(o.sum() for o in F.lstm_cell(T[0], (T[1], c[0]), *T[2:]))], T
            )
            ref = lambda: torch.autograd.grad(
                [sum(o.sum() for o in torch._VF.lstm_cell(R[0], (R[1], c[1]), *R[2:]))], R
            )
        else:
            ours = lambda: tc.autograd.grad([F.gru_cell(*T).sum()], T)
            ref = lambda: torch.autograd.grad([torch._VF.gru_cell(*R).sum()], R)
        rep.add(
            "rnn",
            f"{kind}_cell step H512 N32 fwd+bwd",
            timeit(ours, reps * 4),
            timeit(ref, reps * 4),
        )

    # A whole sequence (T=100) through one layer: tc's lstm_layer/gru_layer vs torch.nn.LSTM/GRU.
    T_steps = 100
    seq = rng.standard_normal((T_steps, N, H), dtype=np.float32)
    for kind, gates in [("lstm", 4), ("gru", 3)]:
        mod = getattr(torch.nn, kind.upper())(H, H)
        params = [p.detach().numpy().copy() for p in mod.parameters()]  # w_ih, w_hh, b_ih, b_hh
        tp = [tc.tensor(p).requires_grad_(True) for p in params]
        tx, rx = both(seq, requires_grad=True)
        h0 = np.zeros((N, H), np.float32)
        if kind == "lstm":
            ours = lambda: tc.autograd.grad(
                [F.lstm_layer(tx, tc.tensor(h0), tc.tensor(h0), *tp)[0].sum()], [tx] + tp
            )
        else:
            ours = lambda: tc.autograd.grad(
                [F.gru_layer(tx, tc.tensor(h0), *tp)[0].sum()], [tx] + tp
            )
        ref = lambda: torch.autograd.grad([mod(rx)[0].sum()], [rx] + list(mod.parameters()))
        rep.add("rnn", f"{kind} layer T100 H512 N32 fwd+bwd", timeit(ours, reps), timeit(ref, reps))


def bench_mha(rep, reps):
    """nn.MultiheadAttention (self-attention with a key padding mask) and a pre-norm
    nn.TransformerEncoderLayer, fwd+bwd, with torch's weights; also a small-shape case where the
    per-call overhead of the Python layer shows."""
    rng = np.random.default_rng(5)
    for N, L, E, heads in [(16, 64, 256, 8), (4, 8, 32, 4)]:
        ref = torch.nn.MultiheadAttention(E, heads, batch_first=True)
        ours = tnn.MultiheadAttention(E, heads, batch_first=True)
        ours.load_state_dict(
            {k: tc.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
        )
        tx, rx = both(rng.standard_normal((N, L, E), dtype=np.float32), requires_grad=True)
        mask = np.zeros((N, L), bool)
        mask[:, L - L // 4 :] = True
        tm, rm = tc.tensor(mask), torch.tensor(mask)
        run_ours = lambda: ours(tx, tx, tx, key_padding_mask=tm)[0].sum().backward()
        run_ref = lambda: ref(rx, rx, rx, key_padding_mask=rm)[0].sum().backward()
        rep.add(
            "mha",
            f"MHA N{N} L{L} E{E} h{heads} fwd+bwd",
            timeit(run_ours, reps),
            timeit(run_ref, reps),
        )
        ref_layer = torch.nn.TransformerEncoderLayer(
            E, heads, 4 * E, 0.0, batch_first=True, norm_first=True
        )
        our_layer = tnn.TransformerEncoderLayer(
            E, heads, 4 * E, 0.0, batch_first=True, norm_first=True
        )
        our_layer.load_state_dict(
            {k: tc.tensor(v.detach().numpy()) for k, v in ref_layer.state_dict().items()}
        )
        run_ours = lambda: our_layer(tx, src_key_padding_mask=tm).sum().backward()
        run_ref = lambda: ref_layer(rx, src_key_padding_mask=rm).sum().backward()
        rep.add(
            "mha",
            f"EncoderLayer N{N} L{L} E{E} fwd+bwd",
            timeit(run_ours, reps),
            timeit(run_ref, reps),
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="conv,dwconv,pool,bn,ctc,rnn,mha")
    args = ap.parse_args()
    torch.set_num_threads(tc.get_num_threads())
    print(
        f"threads: tensorcore {tc.get_num_threads()}, torch {torch.get_num_threads()}; batch {args.batch}"
    )
    rep = Report()
    only = set(args.only.split(","))
    if "conv" in only:
        bench_conv(rep, args.batch, args.reps)
    if "dwconv" in only:
        bench_dwconv(rep, args.reps)
    if "pool" in only:
        bench_pool(rep, args.batch, args.reps)
    if "bn" in only:
        bench_bn(rep, args.batch, args.reps)
    if "mha" in only:
        bench_mha(rep, args.reps)
    if "ctc" in only:
        bench_ctc(rep, args.reps)
    if "rnn" in only:
        bench_rnn(rep, args.reps)
    rep.summary()


if __name__ == "__main__":
    main()
