"""LSTM / GRU forward+backward: tensorcore vs PyTorch in one process, same thread count.

    .venv/bin/python benchmarks/bench_rnn.py [--threads 1] [--reps 5] [--only py,cpp,fn,packed,proj] [--wall]

Cases: the Python modules (tensorcore.nn.LSTM / GRU: 1 and 2 layers, bidirectional; nn.RNN) and the
C++ frontend (tensorcore.nn.cpp.LSTM / GRU) against torch.nn with identical weights, and the
functional single layers (lstm_layer / gru_layer). "packed": PackedSequence input (unsorted
lengths drawn from T/2 to T) to nn.LSTM / GRU / RNN and nn.cpp.LSTM / GRU; "proj": nn.LSTM with
proj_size (padded and packed). The packed and proj cases use only the modules' public API, so the
script also times older builds (PYTHONPATH pointing at another checkout's python/). Each repetition runs tensorcore then torch
(so load changes hit both) and the script prints medians and their ratio (< 1: tensorcore is
faster). Times are process CPU time by default (robust on a shared, loaded machine: time spent
waiting for a core is not counted); --wall uses wall-clock time instead.

Both libraries call the same OpenBLAS (Debian's torch uses the system libblas), whose thread pool
tc.set_num_threads / torch.set_num_threads do not size; the script sets OPENBLAS_NUM_THREADS to
--threads (unless already set) before either library loads, so "1 thread" means one thread.
"""

import argparse
import os
import time

from _common import geometric_mean, preset_blas_threads, race  # noqa: E402

if __name__ == "__main__":
    preset_blas_threads("1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tensorcore as tc  # noqa: E402
import tensorcore.nn as tnn  # noqa: E402
import tensorcore.nn.functional as F  # noqa: E402
from tensorcore.nn import cpp  # noqa: E402


def report(name, times):
    a, b = times
    print(
        f"{name:56s} tc {a * 1e3:8.1f} ms  torch {b * 1e3:8.1f} ms  ratio {a / b:5.2f}", flush=True
    )
    return a / b


def copy_weights(src_torch, dst):
    for name, p in src_torch.named_parameters():
        with tc.no_grad():
            getattr(dst, name).copy_(tc.from_numpy(p.detach().numpy().copy()))


def fwd_bwd(mod, x):
    def run():
        out = mod(x)[0]
        out.sum().backward()

    return run


def packed_pair(x, lengths, batch_first=False):
    """The same PackedSequence for both libraries, its data a leaf that requires grad."""
    from tensorcore.nn.utils import rnn as tc_rnn

    t = tc_rnn.pack_padded_sequence(
        tc.from_numpy(x), lengths, batch_first=batch_first, enforce_sorted=False
    )
    r = torch.nn.utils.rnn.pack_padded_sequence(
        torch.from_numpy(x), torch.tensor(lengths), batch_first=batch_first, enforce_sorted=False
    )
    t = tc_rnn.PackedSequence(
        t.data.detach().requires_grad_(), t.batch_sizes, t.sorted_indices, t.unsorted_indices
    )
    r = torch.nn.utils.rnn.PackedSequence(
        r.data.detach().requires_grad_(), r.batch_sizes, r.sorted_indices, r.unsorted_indices
    )
    return t, r


def fwd_bwd_packed(mod, packed):
    def run():
        out, state = mod(packed)
        h = state[0] if isinstance(state, tuple) else state
        (out.data.sum() + h.sum()).backward()

    return run


def run_packed_cases(args, clock, rng, only, ratios):
    T, N, I, H = 100, 32, 512, 512
    lengths = [int(n) for n in rng.integers(T // 2, T + 1, size=N)]
    lengths[int(rng.integers(N))] = T
    x = rng.standard_normal((T, N, I), dtype=np.float32)
    if "packed" in only:
        tp, rp = packed_pair(x, lengths)
        for mode, extra in (("LSTM", {}), ("GRU", {}), ("RNN", {})):
            for layers, bidir in ((1, False), (2, True)):
                ref = getattr(torch.nn, mode)(I, H, layers, bidirectional=bidir, **extra)
                ours = getattr(tnn, mode)(I, H, layers, bidirectional=bidir, **extra)
                copy_weights(ref, ours)
                name = f"packed nn.{mode} {layers}L{' bidir' if bidir else ''} T={T} N={N} H={H}"
                ratios.append(
                    report(
                        name,
                        race(fwd_bwd_packed(ours, tp), fwd_bwd_packed(ref, rp), args.reps, clock),
                    )
                )
        # The C++ frontend (sizes as its padded cases above), batch_first.
        Tc, Nc, Ic, Hc = 50, 16, 128, 256
        lc = [int(n) for n in rng.integers(Tc // 2, Tc + 1, size=Nc)]
        lc[0] = Tc
        tpc, rpc = packed_pair(
            rng.standard_normal((Nc, Tc, Ic), dtype=np.float32), lc, batch_first=True
        )
        for mode in ("LSTM", "GRU"):
            ours = getattr(cpp, mode)(Ic, Hc, 2, batch_first=True, bidirectional=True)
            ref = getattr(torch.nn, mode)(Ic, Hc, 2, batch_first=True, bidirectional=True)
            ref.load_state_dict(
                {
                    k: torch.from_numpy(v.detach().numpy().copy())
                    for k, v in ours.state_dict().items()
                }
            )
            name = f"packed nn.cpp.{mode} 2L bidir T={Tc} N={Nc} H={Hc}"
            ratios.append(
                report(
                    name,
                    race(fwd_bwd_packed(ours, tpc), fwd_bwd_packed(ref, rpc), args.reps, clock),
                )
            )
    if "proj" in only:
        P = 128
        xc, xt = tc.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
        tp, rp = packed_pair(x, lengths)
        for layers, bidir, packed in ((1, False, False), (2, True, False), (1, False, True)):
            ref = torch.nn.LSTM(I, H, layers, bidirectional=bidir, proj_size=P)
            ours = tnn.LSTM(I, H, layers, bidirectional=bidir, proj_size=P)
            copy_weights(ref, ours)
            name = (
                f"{'packed ' if packed else ''}nn.LSTM proj_size={P} {layers}L{' bidir' if bidir else ''} "
                f"T={T} N={N} H={H}"
            )
            runs = (
                (fwd_bwd_packed(ours, tp), fwd_bwd_packed(ref, rp))
                if packed
                else (fwd_bwd(ours, xc), fwd_bwd(ref, xt))
            )
            ratios.append(report(name, race(*runs, args.reps, clock)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="py,cpp,fn,packed,proj")
    ap.add_argument("--wall", action="store_true")
    args = ap.parse_args()
    tc.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    clock = time.perf_counter if args.wall else time.process_time
    only = set(args.only.split(","))
    print(
        f"threads: tensorcore {tc.get_num_threads()}, torch {torch.get_num_threads()}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; "
        f"{'wall' if args.wall else 'CPU'} time, median of {args.reps}",
        flush=True,
    )
    rng = np.random.default_rng(0)
    ratios = []

    if "py" in only:
        # The case: hidden 512, 100 steps, batch 32.
        T, N, I, H = 100, 32, 512, 512
        seq = rng.standard_normal((T, N, I), dtype=np.float32)
        xc, xt = tc.from_numpy(seq).requires_grad_(), torch.from_numpy(seq).requires_grad_()
        for mode in ("LSTM", "GRU"):
            for layers, bidir in ((1, False), (2, False), (1, True), (2, True)):
                ref = getattr(torch.nn, mode)(I, H, layers, bidirectional=bidir)
                ours = getattr(tnn, mode)(I, H, layers, bidirectional=bidir)
                copy_weights(ref, ours)
                name = f"nn.{mode} {layers}L{' bidir' if bidir else ''} T={T} N={N} H={H}"
                ratios.append(
                    report(name, race(fwd_bwd(ours, xc), fwd_bwd(ref, xt), args.reps, clock))
                )
        for layers, bidir in ((1, False), (2, True)):
            ref = torch.nn.RNN(I, H, layers, bidirectional=bidir)
            ours = tnn.RNN(I, H, layers, bidirectional=bidir)
            copy_weights(ref, ours)
            name = f"nn.RNN tanh {layers}L{' bidir' if bidir else ''} T={T} N={N} H={H}"
            ratios.append(report(name, race(fwd_bwd(ours, xc), fwd_bwd(ref, xt), args.reps, clock)))

    if "cpp" in only:
        # The C++ frontend, as in bench_nncpp.py (batch_first).
        T, N, I, H = 50, 16, 128, 256
        seq = rng.standard_normal((N, T, I), dtype=np.float32)
        xc, xt = tc.from_numpy(seq).requires_grad_(), torch.from_numpy(seq).requires_grad_()
        for mode in ("LSTM", "GRU"):
            for layers, bidir in ((2, False), (2, True)):
                ours = getattr(cpp, mode)(I, H, layers, batch_first=True, bidirectional=bidir)
                ref = getattr(torch.nn, mode)(I, H, layers, batch_first=True, bidirectional=bidir)
                ref.load_state_dict(
                    {
                        k: torch.from_numpy(v.detach().numpy().copy())
                        for k, v in ours.state_dict().items()
                    }
                )
                name = f"nn.cpp.{mode} {layers}L{' bidir' if bidir else ''} T={T} N={N} H={H}"
                ratios.append(
                    report(name, race(fwd_bwd(ours, xc), fwd_bwd(ref, xt), args.reps, clock))
                )

    if "fn" in only:
        # One layer through the functional op (all gradients) vs torch.nn with one layer.
        T, N, H = 100, 32, 512
        seq = rng.standard_normal((T, N, H), dtype=np.float32)
        h0 = np.zeros((N, H), np.float32)
        for kind in ("lstm", "gru"):
            mod = getattr(torch.nn, kind.upper())(H, H)
            tp = [
                tc.from_numpy(p.detach().numpy().copy()).requires_grad_() for p in mod.parameters()
            ]
            tx, rx = tc.from_numpy(seq).requires_grad_(), torch.from_numpy(seq).requires_grad_()
            if kind == "lstm":
                ours = lambda: tc.autograd.grad(
                    [F.lstm_layer(tx, tc.from_numpy(h0), tc.from_numpy(h0), *tp)[0].sum()],
                    [tx] + tp,
                )
            else:
                ours = lambda: tc.autograd.grad(
                    [F.gru_layer(tx, tc.from_numpy(h0), *tp)[0].sum()], [tx] + tp
                )
            ref = lambda: torch.autograd.grad([mod(rx)[0].sum()], [rx] + list(mod.parameters()))
            ratios.append(
                report(
                    f"{kind}_layer T={T} N={N} H={H} vs nn.{kind.upper()} 1L",
                    race(ours, ref, args.reps, clock),
                )
            )

    if "packed" in only or "proj" in only:
        run_packed_cases(args, clock, rng, only, ratios)

    if ratios:
        geo = geometric_mean(ratios)
        print(f"geometric mean ratio over {len(ratios)} cases: {geo:.2f}; max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
