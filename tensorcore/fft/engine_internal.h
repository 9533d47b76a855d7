#pragma once
// Internals shared by the FFT engine's translation units (engine.cpp: Stockham plans, real plans,
// cache and batching; large_lengths.cpp: Rader, four-step and Bluestein). Not a public header.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tc::fft::detail {

constexpr int kMaxRadix = 31;  // largest prime with a butterfly; larger ones: see LargeAlgo
// Power-of-two lengths put the radix streams of the re/im/scratch arrays a multiple of 4 KiB
// apart: same cache sets and false store-to-load aliasing. Padding each array by a different
// odd number of cache lines spreads them out (measured 2-4x at n >= 2^15 on Zen 4).
constexpr int64_t kArrayPad = 272;  // floats or doubles; 1 KiB + 64 B for float
constexpr double kTwoPi = 6.283185307179586476925286766559;

// e^{-2 pi i num/den}, reduced exactly in integers first so large tables stay accurate.
inline void unit_root(int64_t num, int64_t den, double& re, double& im) {
  num %= den;
  if (num < 0) num += den;
  double a = kTwoPi * double(num) / double(den);
  re = std::cos(a);
  im = -std::sin(a);
}

inline std::vector<int> factorize(int64_t n, bool& large_factor) {
  std::vector<int> f;
  large_factor = false;
  // Powers of two as radix 8 (fewest passes over memory), finishing with 4s rather than a 2.
  int twos = 0;
  while (n % 2 == 0) {
    ++twos;
    n /= 2;
  }
  if (twos == 1) {
    f.push_back(2);
  } else if (twos > 1) {
    int eights = twos / 3, rest = twos % 3;
    if (rest == 1) {
      eights -= 1;
      rest = 4;
    }  // 2^4 as 4*4
    for (int i = 0; i < eights; ++i) f.push_back(8);
    if (rest == 2) f.push_back(4);
    if (rest == 4) {
      f.push_back(4);
      f.push_back(4);
    }
  }
  std::vector<int> small, large;
  for (int p = 3; p <= kMaxRadix && n > 1; p += 2)
    while (n % p == 0) {
      (p >= 17 ? large : small).push_back(p);
      n /= p;
    }
  // Radices >= 17 go first, at stride 1, where their p-vectorized stage pays for its gathers;
  // the others run at wide strides with contiguous vectors (faster for them, measured at 44100).
  std::reverse(large.begin(), large.end());
  f.insert(f.begin(), large.begin(), large.end());
  f.insert(f.end(), small.begin(), small.end());
  if (n > 1) large_factor = true;
  return f;
}

// Plans for a length with a prime factor > kMaxRadix, by estimated cost:
// - Rader when n is prime with a smooth n-1 (two length n-1 FFTs plus permuted gathers);
// - four-step when n = a * b with a smooth a > 1 and b made of large primes (length-a FFTs over
//   b lanes, a twiddle/transpose pass, then a lanes of the length-b plan, itself Rader or
//   Bluestein);
// - Bluestein otherwise (two FFTs of length >= 2n-1 plus chirp passes).
enum class LargeAlgo { Bluestein, Rader, FourStep };
LargeAlgo large_algorithm(int64_t n, double* cost_out = nullptr);

}  // namespace tc::fft::detail
