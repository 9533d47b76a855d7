#!/usr/bin/env python3
"""Derives the minimax polynomial coefficients used by tensorcore/kernels/cpu/vec_math.h.

Usage: /usr/bin/python3 benchmarks/cpp/fit_coeffs.py [name ...]   (needs mpmath)
(The double erf/erfc coefficients come from fit_erf_double.py.)

Each fit minimises max |w(x) * (f(x) - sum_i c_i * basis_i(x))| over an interval with a
discrete Remez exchange in 60-digit arithmetic. Coefficients are then rounded to the target
precision one at a time (most significant first) and the remaining ones refitted, so the
rounding of early coefficients is compensated by the later ones. The script prints each
coefficient set as C++ hex-float literals plus the achieved max weighted error in units of the
target's unit roundoff (2^-24 for float, 2^-53 for double); the header's comments quote these.
"""

import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def round_to(x, prec):
    if prec == "d":
        return mp.mpf(float(x))
    if prec == "f":
        return mp.mpf(struct.unpack("f", struct.pack("f", float(x)))[0])
    raise ValueError(prec)


def make_grid(a, b, n):
    # Chebyshev-clustered grid: minimax extrema crowd towards the ends.
    pts = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (n - 1)) for i in range(n)]
    return pts


def remez_core(F, W, B, nb, iters=60):
    """Discrete Remez on precomputed grid values. Returns (coeffs, max_err)."""
    N = len(F)
    n1 = nb + 1
    ref = [int(round((N - 1) * (1 - mp.cos(mp.pi * k / (n1 - 1))) / 2)) for k in range(n1)]
    ref = sorted(set(ref))
    best = None
    for _ in range(iters):
        if len(ref) != n1:
            break
        A = mp.matrix(n1, n1)
        rhs = mp.matrix(n1, 1)
        for r, j in enumerate(ref):
            for i in range(nb):
                A[r, i] = B[j][i]
            A[r, nb] = (-1) ** r / W[j]
            rhs[r] = F[j]
        sol = mp.lu_solve(A, rhs)
        c = [sol[i] for i in range(nb)]
        E = abs(sol[nb])
        err = [W[j] * (F[j] - mp.fsum(c[i] * B[j][i] for i in range(nb))) for j in range(N)]
        emax = max(abs(e) for e in err)
        if best is None or emax < best[1]:
            best = (c, emax)
        if emax <= E * (1 + mp.mpf("1e-5")):
            break
        # New reference: one extremum per run of equal sign, then trim to n1 points.
        runs = []
        for j in range(N):
            s = err[j] >= 0
            if runs and runs[-1][0] == s:
                if abs(err[j]) > abs(err[runs[-1][1]]):
                    runs[-1][1] = j
            else:
                runs.append([s, j])
        idx = [r[1] for r in runs]
        while len(idx) > n1:
            if abs(err[idx[0]]) < abs(err[idx[-1]]):
                idx.pop(0)
            else:
                idx.pop()
        if len(idx) < n1:
            break
        ref = idx
    return best


def fit(name, f, basis, a, b, w, prec, ngrid=1200, refit=True):
    """Fit, then round the coefficients (refit=True: one at a time, refitting the rest)."""
    X = make_grid(mp.mpf(a), mp.mpf(b), ngrid)
    X = [x for x in X if x != 0]
    Fv = [f(x) for x in X]
    Wv = [w(x) for x in X]
    Bv = [[bf(x) for bf in basis] for x in X]
    n = len(basis)
    chosen = {}
    if not refit:
        c, _ = remez_core(Fv, Wv, Bv, n)
        chosen = {i: round_to(c[i], prec) for i in range(n)}
    for k in range(n if refit else 0):
        free = [i for i in range(n) if i not in chosen]
        F2 = [Fv[j] - mp.fsum(chosen[i] * Bv[j][i] for i in chosen) for j in range(len(X))]
        B2 = [[Bv[j][i] for i in free] for j in range(len(X))]
        c, _ = remez_core(F2, Wv, B2, len(free))
        chosen[free[0]] = round_to(c[0], prec)
    coeffs = [chosen[i] for i in range(n)]
    # Verify on a denser grid with the rounded coefficients.
    Xd = [x for x in make_grid(mp.mpf(a), mp.mpf(b), 4 * ngrid) if x != 0]
    emax = max(abs(w(x) * (f(x) - mp.fsum(coeffs[i] * basis[i](x) for i in range(n)))) for x in Xd)
    unit = mp.mpf(2) ** (-24 if prec == "f" else -53)
    print(f"// {name}: max weighted error {float(emax):.3e} = {float(emax / unit):.4f} u")
    suffix = "f" if prec == "f" else ""
    print("  " + ", ".join(float(cf).hex() + suffix for cf in coeffs))
    sys.stdout.flush()
    return coeffs


def mono(k):
    return lambda x: x**k


LN2 = mp.log(2)
EPS = mp.mpf("0.0005")


def fits(sel):
    R_EXP = LN2 / 2 + EPS
    # ---- exp: e^r = 1 + r + r^2 P(r); weight makes the error relative to e^r.
    f_exp = lambda r: (mp.exp(r) - 1 - r) / r**2
    w_exp = lambda r: r**2 / mp.exp(r)
    if "exp" in sel:
        fit("expf P(r), c2..c6", f_exp, [mono(k) for k in range(5)], -R_EXP, R_EXP, w_exp, "f")
        fit(
            "exp_d (in double, for float callers) c2..c8",
            f_exp,
            [mono(k) for k in range(7)],
            -R_EXP,
            R_EXP,
            w_exp,
            "d",
        )
        fit(
            "exp double c2..c11",
            f_exp,
            [mono(k) for k in range(10)],
            -R_EXP,
            R_EXP,
            w_exp,
            "d",
            ngrid=800,
        )
    # ---- exp2: 2^r = 1 + r Q(r) on [-1/2, 1/2].
    f_e2 = lambda r: (mp.power(2, r) - 1) / r
    w_e2 = lambda r: r / mp.power(2, r)
    if "exp2" in sel:
        fit("exp2f Q(r)", f_e2, [mono(k) for k in range(6)], -0.5 - EPS, 0.5 + EPS, w_e2, "f")
        fit(
            "exp2 double Q(r)",
            f_e2,
            [mono(k) for k in range(11)],
            -0.5 - EPS,
            0.5 + EPS,
            w_e2,
            "d",
            ngrid=800,
        )
    # ---- expm1: r + r^2/2 + r^3 P(r).
    f_em = lambda r: (mp.expm1(r) - r - r**2 / 2) / r**3
    w_em = lambda r: r**3 / mp.expm1(r)
    if "expm1" in sel:
        fit("expm1f P(r)", f_em, [mono(k) for k in range(5)], -R_EXP, R_EXP, w_em, "f")
        fit(
            "expm1 double P(r)",
            f_em,
            [mono(k) for k in range(10)],
            -R_EXP,
            R_EXP,
            w_em,
            "d",
            ngrid=800,
        )
    # ---- log family (float): log_b(1+t) = t*B + t^2 P(t), t in [sqrt(1/2)-1, sqrt(2)-1].
    ta, tb = mp.sqrt(0.5) - 1 - EPS, mp.sqrt(2) - 1 + EPS
    if "log" in sel:
        for nm, scale in (("logf", 1), ("log2f", 1 / LN2), ("log10f", 1 / mp.log(10))):
            fl = lambda t, s=scale: (mp.log1p(t) * s - t * s) / t**2
            wl = lambda t, s=scale: t**2 / (mp.log1p(t) * s)
            fit(nm + " P(t)", fl, [mono(k) for k in range(8)], ta, tb, wl, "f")
        # double: log1p(f) = f - hfsq + s*(hfsq + R(z)), R(z) = sum c_k z^k, z = s^2,
        # s = f/(2+f), |s| <= 3-2*sqrt(2).
        smax = 3 - 2 * mp.sqrt(2) + EPS
        fR = lambda z: (2 * mp.atanh(mp.sqrt(z)) - 2 * mp.sqrt(z)) / mp.sqrt(z)
        wR = lambda z: mp.sqrt(z) / (2 * mp.atanh(mp.sqrt(z)))
        fit(
            "logf R(z) z^1..z^3", fR, [mono(k) for k in range(1, 4)], 0, smax**2, wR, "f", ngrid=400
        )
        fit(
            "log double R(z) z^1..z^7",
            fR,
            [mono(k) for k in range(1, 8)],
            0,
            smax**2,
            wR,
            "d",
            ngrid=600,
        )
    # ---- sin on |r| <= pi/2: r + r^3 P(r^2) (reduction mod pi; cos uses odd multiples of pi/2).
    fs = lambda z: (mp.sin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3
    ws = lambda z: mp.sqrt(z) ** 3 / mp.sin(mp.sqrt(z))
    h = mp.pi / 2 + mp.mpf("1e-4")
    if "sin" in sel:
        fit(
            "sin (double eval, float result) P(z), |r|<=pi/2",
            fs,
            [mono(k) for k in range(5)],
            0,
            h**2,
            ws,
            "d",
            ngrid=600,
        )
        fit(
            "sin double P(z), |r|<=pi/2",
            fs,
            [mono(k) for k in range(10)],
            0,
            h**2,
            ws,
            "d",
            ngrid=600,
        )
    # ---- tan via sin/cos on |r| <= pi/4.
    q = mp.pi / 4 + mp.mpf("1e-4")
    fc = lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z**2
    wc = lambda z: z**2 / mp.cos(mp.sqrt(z))
    if "tan" in sel:
        fit(
            "tan: sin P(z) |r|<=pi/4 (float)",
            fs,
            [mono(k) for k in range(4)],
            0,
            q**2,
            ws,
            "d",
            ngrid=400,
        )
        fit(
            "tan: cos P(z) |r|<=pi/4 (float)",
            fc,
            [mono(k) for k in range(4)],
            0,
            q**2,
            wc,
            "d",
            ngrid=400,
        )
        fit(
            "tan: sin P(z) |r|<=pi/4 (double)",
            fs,
            [mono(k) for k in range(7)],
            0,
            q**2,
            ws,
            "d",
            ngrid=400,
        )
        fit(
            "tan: cos P(z) |r|<=pi/4 (double)",
            fc,
            [mono(k) for k in range(7)],
            0,
            q**2,
            wc,
            "d",
            ngrid=400,
        )
    # ---- atan on [0,1]: x + x^3 P(x^2).
    fa = lambda z: (mp.atan(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3
    wa = lambda z: mp.sqrt(z) ** 3 / mp.atan(mp.sqrt(z))
    if "atan" in sel:
        fit("atanf P(z) on [0,1]", fa, [mono(k) for k in range(9)], 0, 1, wa, "f", ngrid=600)
        t8 = mp.sqrt(2) - 1 + mp.mpf("1e-4")
        fit(
            "atan double P(z) on [0, tan(pi/8)]",
            fa,
            [mono(k) for k in range(12)],
            0,
            t8**2,
            wa,
            "d",
            ngrid=600,
        )
    # ---- asin on [0, 1/2]: x + x^3 P(x^2).
    fas = lambda z: (mp.asin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3
    was = lambda z: mp.sqrt(z) ** 3 / mp.asin(mp.sqrt(z))
    if "asin" in sel:
        fit("asinf P(z) on [0,1/4]", fas, [mono(k) for k in range(5)], 0, 0.25, was, "f", ngrid=600)
        fit(
            "asin double P(z) on [0,1/4]",
            fas,
            [mono(k) for k in range(12)],
            0,
            0.25,
            was,
            "d",
            ngrid=600,
        )

    # ---- erf/erfc for float (evaluated in double): erf(x) = x P(x^2) for |x| < 3/4;
    # erfc(x) = t exp(-x^2 + G(t)), t = 2/(2+x), for x in [0, 10.1] (absolute error in G).
    if "erf" in sel:
        fe = lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z)
        fit(
            "erf (float via double) P(z) on [0, 0.5625]",
            fe,
            [mono(k) for k in range(8)],
            0,
            mp.mpf(0.75) ** 2,
            lambda z: 1 / fe(z),
            "d",
            ngrid=400,
        )
        xt = lambda t: 2 / t - 2
        fG = lambda t: mp.log(mp.erfc(xt(t)) / t) + xt(t) ** 2
        for deg in (11, 13, 15):
            fit(
                f"erfc (float via double) G(t) deg {deg}",
                fG,
                [mono(k) for k in range(deg + 1)],
                2 / (2 + mp.mpf(10.1)),
                1,
                lambda t: 1,
                "d",
                ngrid=500,
            )

    # ---- tanh (float) on |x| <= 0.625: x + x^3 P(x^2).
    if "tanh" in sel:
        ft = lambda z: (mp.tanh(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3
        wt = lambda z: mp.sqrt(z) ** 3 / mp.tanh(mp.sqrt(z))
        for n in (6, 7):
            fit(
                f"tanhf P(z) on |x| <= 0.625, {n} coeffs",
                ft,
                [mono(k) for k in range(n)],
                0,
                mp.mpf(0.625) ** 2,
                wt,
                "f",
                ngrid=400,
            )


if __name__ == "__main__":
    sel = set(sys.argv[1:]) or {
        "exp",
        "exp2",
        "expm1",
        "log",
        "sin",
        "tan",
        "atan",
        "asin",
        "erf",
        "tanh",
    }
    fits(sel)
