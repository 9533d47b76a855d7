#pragma once
// Elementwise math for the CPU kernels that GCC auto-vectorizes.
//
// std::exp & co. are opaque libm calls, so `for (i) out[i] = std::exp(in[i])` runs one element
// at a time. The functions here are inline, branch-free straight-line code (selects are bitwise
// blends, no tables, no libm calls), so the same loop compiled with -O3 -march=x86-64-v3
// vectorizes 8 floats / 4 doubles wide. No -ffast-math is needed or assumed: NaN, infinities,
// signed zeros, overflow and underflow follow the C library (C99 Annex F).
//
// Method: Cody-Waite range reduction (the high constant has few enough bits that k*hi is exact,
// with or without FMA) followed by minimax polynomials derived by benchmarks/cpp/fit_coeffs.py
// (double erf/erfc: benchmarks/cpp/fit_erf_double.py).
// Several float functions are evaluated internally in double (4-wide) where that is the cheapest
// way to stay below one ulp: sin/cos/tan (exact reduction), sinh, cosh, erf, erfc, pow. Where a
// float result needs a few bits more than float gives (exp's 1 + r, tanh, sigmoid, atan, asin),
// the critical step is carried as an unevaluated float-float sum (Fast2Sum/TwoSum, FMA
// residuals) instead.
//
// Accuracy (max error vs the correctly rounded result; float measured exhaustively over all 2^32
// inputs against double libm, double measured on dense sweeps against long double libm) is
// documented per function below and in the table at the end of the file.
//
// Large arguments of sin/cos/tan: the branch-free reduction is exact for |x| <= 2^25 (float) and
// |x| <= 2^20 (double); sin_cos_fast_ok(x) says whether x is in that range. Beyond it the scalar
// functions return garbage (not NaN), so callers either check, or use sin_array()/cos_array()/
// tan_array(), which run the vectorized loop and patch the rare out-of-range elements with libm.
//
// Non-FMA builds (e.g. plain x86-64, which is what the test binary gets without TC_ARCH_FLAGS)
// are slower (no fma, and nothing vectorizes 8-wide) and up to ~0.7 ulp less accurate: mad()
// then rounds twice. The algorithms never rely on fusion for exactness, and contraction
// (-ffp-contract=fast, the default in gnu++ mode) does not change the results.
//
// Layout: vec_math_base.h (building blocks), vec_math_float.h, vec_math_double.h (the
// functions; each part sees only the parts before it, so the declaration order is the one
// of the former single file), vec_math_arrays.h (array helpers). Include this header only.
#include "tensorcore/kernels/cpu/vec_math_arrays.h"  // includes the other parts

// =============================================================================================
// Measured accuracy, max error in ulps of the correctly rounded result.
//   float: every one of the 2^32 inputs vs double libm (sin/cos/tan over |x| <= 2^25, the rest
//          via the *_array helpers is libm-exact); atan2/pow: 400k random pairs + special grid.
//   double: 2^25 inputs per function (golden-ratio walk over all bit patterns + dense
//          |x| in [2^-4, 2^6]) vs long double libm.
//   "no FMA" = float built for plain x86-64 (mad() rounds twice).
//
//   function  float  float(no FMA)  double      function  float  float(no FMA)  double
//   exp       0.84   0.78           0.75        tanh      0.79   1.02           0.75
//   exp2      0.88   1.08           0.90        sigmoid   2.30*  2.03*          2.37*
//   expm1     0.86   0.95           0.91        sinh      0.50   0.50           0.78
//   log       0.83   0.83           0.82        cosh      0.50   0.50           0.84
//   log2      0.91   1.28           0.88        erf       0.51   0.51           0.70 (0.81 no FMA)
//   log10     0.90   1.20           0.93        erfc      0.55   0.55           0.66 (0.65 no FMA)
//   log1p     0.83   0.83           0.82        atan      0.65   1.24           0.63
//   sin       0.50   0.50           0.78        asin      0.71   0.97           0.76
//   cos       0.50   0.50           0.78        acos      0.68   0.97           0.73
//   tan       0.50   0.50           0.93        atan2     0.58   1.43           1.42 (subnormal)
//   pow       0.50   0.50           -  (no double pow)        hypot     -      -              0.51
//   * one plain division, PyTorch's accuracy class (its vectorized sigmoid measured 2.37 ulp
//     float / 2.38 double on the same sweeps); dense sweeps, not exhaustive.
// =============================================================================================

#undef TC_VM_INLINE
