#pragma once
// Vectorized folds of one contiguous run, used by cpu_reduce when an op provides
// `fold_contiguous(const T*, int64_t) -> Acc`. The loops keep many independent float lanes so
// GCC emits packed AVX2 code without -ffast-math.
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace tc {
namespace reduce_fast {

// Sum of a float run. Cascade: 32 float lanes over blocks of 2048 elements (64 adds per lane,
// error ~64 ulp bound, typically a few), lanes merged pairwise, block sums added in double. The
// accuracy is at least that of PyTorch's float cascade; the speed is that of a float add stream.
inline double sum_f32(const float* p, int64_t n) {
  constexpr int kLanes = 32;
  constexpr int64_t kBlock = 2048;
  double total = 0;
  int64_t j = 0;
  for (; j + kBlock <= n; j += kBlock) {
    float lanes[kLanes] = {};
    for (int64_t i = 0; i < kBlock; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lanes[k] += p[j + i + k];
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    total += double(lanes[0]);
  }
  if (j < n) {
    float lanes[kLanes] = {};
    int64_t m = n - j, i = 0;
    for (; i + kLanes <= m; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lanes[k] += p[j + i + k];
    float tail = 0;
    for (; i < m; ++i) tail += p[j + i];
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    total += double(lanes[0]) + double(tail);
  }
  return total;
}

#if defined(__GNUC__) && !defined(__clang__)
// float/double max/min with GCC vector types: the scalar-lane form below is not SLP-vectorized
// for double (scalar vmaxsd, 2.5x PyTorch's time for float64 amax). NaNs: a second set of lanes
// sums x itself (one add per vector, on other ports than the max): the sum is NaN whenever a NaN
// was seen (and, harmlessly, when +inf and -inf occur or huge values overflow both ways); only
// then is the run rescanned for NaNs.
template <typename T, bool Max>
inline T minmax_vec(const T* p, int64_t n, T init) {
  constexpr int kW = 32 / int(sizeof(T));  // one AVX2 register
  typedef T vec __attribute__((vector_size(32)));
  // Eight max chains hide the compare latency; four NaN-check chains keep all in 12 registers.
  constexpr int kRegs = 8, kFin = 4;
  vec lanes[kRegs], fin[kFin];
  for (auto& l : lanes) l = vec{} + init;
  for (auto& f : fin) f = vec{};
  int64_t i = 0;
  for (; i + kW * kRegs <= n; i += kW * kRegs) {
    for (int r = 0; r < kRegs; ++r) {
      vec x;
      std::memcpy(&x, p + i + kW * r, sizeof(x));
      if constexpr (Max)
        lanes[r] = x > lanes[r] ? x : lanes[r];
      else
        lanes[r] = x < lanes[r] ? x : lanes[r];
      fin[r % kFin] += x;
    }
  }
  T acc = init, fin_acc = 0;
  for (int r = 0; r < kRegs; ++r)
    for (int k = 0; k < kW; ++k) {
      if constexpr (Max)
        acc = lanes[r][k] > acc ? lanes[r][k] : acc;
      else
        acc = lanes[r][k] < acc ? lanes[r][k] : acc;
    }
  for (int r = 0; r < kFin; ++r)
    for (int k = 0; k < kW; ++k) fin_acc += fin[r][k];
  for (; i < n; ++i) {
    if constexpr (Max)
      acc = p[i] > acc ? p[i] : acc;
    else
      acc = p[i] < acc ? p[i] : acc;
    fin_acc += p[i];
  }
  if (fin_acc != fin_acc) {
    for (int64_t j = 0; j < n; ++j)
      if (p[j] != p[j]) return std::numeric_limits<T>::quiet_NaN();
  }
  return acc;
}
#endif

#if defined(__GNUC__) && !defined(__clang__)
// Product of a float or double run in double. Eight independent 4-double accumulators: the
// generic 16-lane fold has only four vector multiply chains, which leaves float32 prod bound by
// the multiply latency rather than by the float->double conversion and the loads.
// Runs larger than L2 are streamed from L3 or memory, where the hardware prefetcher left the
// loop waiting on loads (1M floats: 44 us, the same as an empty loop over the data); a software
// prefetch 2 KB ahead, one per cache line, brings that to 37 us. In cache it costs ~10%, so
// short runs skip it.
typedef double prod_v4d __attribute__((vector_size(32)));

template <typename T>
inline prod_v4d prod_load4(const T* p) {
  prod_v4d x;
  if constexpr (std::is_same_v<T, float>) {
#if defined(__AVX__)
    // GCC lowers __builtin_convertvector(v4f -> v4d) through the stack; the intrinsic is one
    // vcvtps2pd.
    x = (prod_v4d)_mm256_cvtps_pd(_mm_loadu_ps(p));
#else
    float f[4];
    std::memcpy(f, p, sizeof(f));
    x = prod_v4d{f[0], f[1], f[2], f[3]};
#endif
  } else {
    std::memcpy(&x, p, sizeof(x));
  }
  return x;
}

// The eight accumulators are named variables: as an array GCC kept them in memory and stored
// all eight every iteration.
template <typename T, bool Prefetch>
inline double prod_d_impl(const T* p, int64_t n) {
  constexpr int64_t kAhead = 2048 / int64_t(sizeof(T));  // prefetch distance
  constexpr int64_t kLine = 64 / int64_t(sizeof(T));     // elements per cache line
  const prod_v4d one = prod_v4d{} + 1.0;
  prod_v4d a0 = one, a1 = one, a2 = one, a3 = one, a4 = one, a5 = one, a6 = one, a7 = one;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    if constexpr (Prefetch)
      for (int64_t l = 0; l < 32; l += kLine) __builtin_prefetch(p + i + kAhead + l);
    a0 *= prod_load4(p + i);
    a1 *= prod_load4(p + i + 4);
    a2 *= prod_load4(p + i + 8);
    a3 *= prod_load4(p + i + 12);
    a4 *= prod_load4(p + i + 16);
    a5 *= prod_load4(p + i + 20);
    a6 *= prod_load4(p + i + 24);
    a7 *= prod_load4(p + i + 28);
  }
  a0 *= a4;
  a1 *= a5;
  a2 *= a6;
  a3 *= a7;
  a0 *= a2;
  a1 *= a3;
  a0 *= a1;
  double total = (a0[0] * a0[1]) * (a0[2] * a0[3]);
  for (; i < n; ++i) total *= double(p[i]);
  return total;
}

template <typename T>
inline double prod_d(const T* p, int64_t n) {
  constexpr int64_t kPrefetchBytes = int64_t{1} << 19;  // above ~L2 size
  return n * int64_t(sizeof(T)) >= kPrefetchBytes ? prod_d_impl<T, true>(p, n)
                                                  : prod_d_impl<T, false>(p, n);
}
#endif

// NaN-propagating max (Max) / min of a float or double run; -inf/+inf for an empty run.
template <typename T, bool Max>
inline T minmax(const T* p, int64_t n, T init) {
#if defined(__GNUC__) && !defined(__clang__)
  return minmax_vec<T, Max>(p, n, init);
#else
  constexpr int kLanes = 32 / int(sizeof(T)) * 4;  // four AVX2 registers
  T lanes[kLanes];
  for (auto& l : lanes) l = init;
  // NaNs are counted apart (x != x) so the compare stays a plain max/min instruction.
  int nan = 0;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    int nan_block = 0;
    for (int k = 0; k < kLanes; ++k) {
      T x = p[i + k];
      if constexpr (Max)
        lanes[k] = x > lanes[k] ? x : lanes[k];
      else
        lanes[k] = x < lanes[k] ? x : lanes[k];
      nan_block |= int(x != x);
    }
    nan |= nan_block;
  }
  T acc = init;
  for (; i < n; ++i) {
    T x = p[i];
    nan |= int(x != x);
    if constexpr (Max)
      acc = x > acc ? x : acc;
    else
      acc = x < acc ? x : acc;
  }
  if (nan) return std::numeric_limits<T>::quiet_NaN();
  for (T l : lanes) {
    if constexpr (Max)
      acc = l > acc ? l : acc;
    else
      acc = l < acc ? l : acc;
  }
  return acc;
#endif
}

// Sum of f(p[i]) in double over a run, 16 double lanes (f returns double; it must be inlinable
// for the loop to vectorize).
template <typename T, typename F>
inline double sum_lanes_d(const T* p, int64_t n, F f) {
  constexpr int kLanes = 16;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lanes[k] += f(p[i + k]);
  double tail = 0;
  for (; i < n; ++i) tail += f(p[i]);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) lanes[k] += lanes[k + w];
  return lanes[0] + tail;
}

}  // namespace reduce_fast
}  // namespace tc
