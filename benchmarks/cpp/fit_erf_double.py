#!/usr/bin/env python3
"""Derives the double erf/erfc coefficients of tensorcore/kernels/cpu/vec_math.h (needs mpmath).

Usage: /usr/bin/python3 benchmarks/cpp/fit_erf_double.py MODE
  y      erf(x)/x - 1 - c0 = z P(z), z = x^2 <= 9/16, 11 terms (c0 = 2/sqrt(pi) - 1 kept as hi+lo)
  near   g(a) on [1/2, 3] as a polynomial in u = a - 3/2, 22 terms
  far    K(w) = a g(a), w = 1/a^2, a in [3, 27.3], 18 terms (weight: error relative to a + g;
         fit_coeffs.py's discrete Remez)
  farerf K(w) for erf only, a in [3, 6], 7 terms (weight: absolute error of erf = 1 - erfc)
where erfc(a) = e^-a^2 (1/sqrt(pi)) / (a + g(a)).

Method: weighted least squares on Chebyshev nodes with Lawson reweighting towards the minimax
solution, in 50-digit arithmetic; then the coefficients are rounded to double one at a time
(lowest degree first) and the remaining ones refitted. Prints the max weighted error in units of
2^-53 on a dense grid and the coefficients as C++ hex-float literals.
"""

import pathlib
import sys

import mpmath as mp

mp.mp.dps = 50
SQPI = mp.sqrt(mp.pi)
U = mp.mpf(2) ** -53


def erfcx(a):
    return mp.erfc(a) * mp.exp(a * a)


def g(a):
    return 1 / (SQPI * erfcx(a)) - a


def lsfit(name, f, w, lo, hi, n, lawson=30):
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    npts = 6 * n
    X = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * (i + 0.5) / npts) for i in range(npts)]
    F = [f(x) for x in X]
    W = [w(x) for x in X]
    lw = [mp.mpf(1)] * npts

    def solve(fixed):
        k0 = len(fixed)
        A = mp.matrix(npts, n - k0)
        b = mp.matrix(npts, 1)
        for i, x in enumerate(X):
            s = mp.sqrt(lw[i]) * W[i]
            for j in range(k0, n):
                A[i, j - k0] = s * x**j
            b[i] = s * (F[i] - mp.fsum(fixed[j] * x**j for j in range(k0)))
        c, _ = mp.qr_solve(A, b)
        return [c[j] for j in range(n - k0)]

    for _ in range(lawson):
        c = solve([])
        e = [abs(W[i] * (F[i] - mp.fsum(c[j] * X[i] ** j for j in range(n)))) for i in range(npts)]
        tot = mp.fsum(lw[i] * e[i] for i in range(npts))
        lw = [lw[i] * e[i] / tot for i in range(npts)]
    chosen = []
    for _ in range(n):
        chosen.append(mp.mpf(float(solve(chosen)[0])))
    dense = [lo + (hi - lo) * i / 4000 for i in range(4001)]
    emax = max(abs(w(x) * (f(x) - mp.polyval(chosen[::-1], x))) for x in dense)
    print(f"// {name}: max weighted error {float(emax):.3e} = {float(emax / U):.4f} u")
    print("  " + ", ".join(float(c).hex() for c in chosen))


def main(mode):
    if mode == "y":
        c0 = 2 / SQPI - 1
        print("// c0 hi, lo:", float(c0).hex(), float(c0 - float(c0)).hex())
        fy = lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) - 1
        lsfit(
            "erf (Y(z) - c0)/z, z in [0, 9/16]",
            lambda z: (fy(z) - c0) / z,
            lambda z: z / (1 + fy(z)),
            mp.mpf("1e-20"),
            mp.mpf(9) / 16,
            11,
        )
    elif mode == "near":
        m = mp.mpf(1.5)
        lsfit(
            "g(3/2 + u), a in [1/2, 3]",
            lambda u: g(m + u),
            lambda u: 1 / (m + u + g(m + u)),
            mp.mpf(0.5) - m,
            3 - m,
            22,
        )
    elif mode in ("far", "farerf"):
        lo, hi, n = (3, mp.mpf("27.3"), 18) if mode == "far" else (3, mp.mpf("6.01"), 7)
        K = lambda w: g(1 / mp.sqrt(w)) / mp.sqrt(w)
        rel = lambda w: mp.sqrt(w) / (1 / mp.sqrt(w) + g(1 / mp.sqrt(w)))
        if (
            mode == "far"
        ):  # discrete Remez of fit_coeffs.py (what the header's coefficients came from)
            sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
            import fit_coeffs

            fit_coeffs.fit(
                f"K(w), a in [{lo}, {hi}]",
                K,
                [fit_coeffs.mono(k) for k in range(n)],
                1 / (hi * hi),
                mp.mpf(1) / (lo * lo),
                rel,
                "d",
                ngrid=300,
            )
        else:
            weight = lambda w: rel(w) * mp.erfc(1 / mp.sqrt(w))
            lsfit(f"K(w), a in [{lo}, {hi}]", K, weight, 1 / (hi * hi), mp.mpf(1) / (lo * lo), n)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
