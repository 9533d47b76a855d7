"""Per-call overhead of the robustness layers on tiny tensors, tensorcore vs PyTorch.

The API sweep (docs/robustness.md) added two layers on the call path: every native binding runs
through arg_guard's exception-translating wrapper (one hash lookup per call), and the public
Python functions of nn.functional / vision / audio through _argcheck's wrapper (one extra Python
frame). This prints the per-call time of a few such calls on 1- and 4-element tensors next to
PyTorch's, and the ratio tc/torch.

Run: .venv/bin/python benchmarks/bench_apifuzz_overhead.py
"""

import timeit

import tensorcore as tc
import tensorcore.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except Exception:  # pragma: no cover
    torch = None


def per_call(fn, number=20000, repeat=7):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main():
    a, b, x = tc.ones(1), tc.ones(1), tc.ones(4)
    cases = [
        ("a + b", lambda: a + b),
        ("tc.add(a, b)", lambda: tc.add(a, b)),
        ("x.sum()", lambda: x.sum()),
        ("F.relu(x)", lambda: F.relu(x)),
        ("F.softmax(x, 0)", lambda: F.softmax(x, 0)),
        ("F.pad(x, [1, 1])", lambda: F.pad(x, [1, 1])),
    ]
    if torch is not None:
        ta, tb, tx = torch.ones(1), torch.ones(1), torch.ones(4)
        ref = [
            lambda: ta + tb,
            lambda: torch.add(ta, tb),
            lambda: tx.sum(),
            lambda: TF.relu(tx),
            lambda: TF.softmax(tx, 0),
            lambda: TF.pad(tx, [1, 1]),
        ]
    print(f"{'call':18s} {'tc ns':>8s} {'torch ns':>9s} {'ratio':>6s}")
    for i, (name, fn) in enumerate(cases):
        t = per_call(fn)
        if torch is not None:
            r = per_call(ref[i])
            print(f"{name:18s} {t * 1e9:8.0f} {r * 1e9:9.0f} {t / r:6.2f}")
        else:
            print(f"{name:18s} {t * 1e9:8.0f}")


if __name__ == "__main__":
    main()
