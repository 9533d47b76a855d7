#pragma once
// tensorcore's own FFT engine: mixed-radix Stockham (radix 8/4/2/3/5 plus generic small odd
// primes) over split real/imaginary arrays; Rader for large primes p whose p-1 is smooth, a
// four-step split (smooth part x large part) or Bluestein for other lengths with a large prime
// factor, by estimated cost; and a real-input path through a half-length complex transform. Plans
// are immutable once built and cached per (length, kind, precision), so any number of threads may
// execute them at once.
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace tc::fft {

// One Stockham stage: radix r over sub-transforms of length r*m at stride s.
template <typename T>
struct Stage {
  int radix;
  int64_t m, stride;
  std::vector<T> tw_re, tw_im;  // w^(p*k), laid out [(k-1)*m + p]
};

// Forward complex DFT of length n (e^{-2 pi i jk/n}); the inverse swaps real and imaginary
// parts around the forward transform, so one plan serves both directions.
template <typename T>
class ComplexPlan {
 public:
  explicit ComplexPlan(int64_t n);
  int64_t size() const { return n_; }
  // Scratch (in units of T) execute() needs beyond the data arrays.
  int64_t scratch_size(int64_t lanes = 1) const;
  // In place on split arrays re[n*lanes], im[n*lanes] holding `lanes` interleaved sequences
  // (element j of sequence v at j*lanes + v, so SIMD runs across sequences even in the first
  // stages); scratch holds scratch_size(lanes) values.
  void execute(T* re, T* im, T* scratch, int64_t lanes = 1) const;

 private:
  void run_stages(T* re, T* im, T* scratch, int64_t lanes) const;
  void execute_bluestein(T* re, T* im, T* scratch, int64_t lanes) const;
  void execute_rader(T* re, T* im, T* scratch, int64_t lanes) const;
  void execute_four_step(T* re, T* im, T* scratch, int64_t lanes) const;
  void init_bluestein();
  void init_rader();
  void init_four_step();
  int64_t n_;
  enum class Algo { Stockham, Bluestein, Rader, FourStep } algo_ = Algo::Stockham;
  std::vector<Stage<T>> stages_;
  // Bluestein: chirp c_j = e^{-pi i j^2/n}, the FFT of the conjugate chirp filter (scaled by 1/M),
  // and the smooth-length plan used for the convolution.
  // Rader (n prime): the cyclic convolution of length n-1 with the filter w^{g^-q}, whose FFT
  // (scaled by 1/(n-1)) is in filt_*; in_index_[q] = g^q mod n, out_index_[q] = g^-q mod n.
  std::vector<T> chirp_re_, chirp_im_, filt_re_, filt_im_;
  // Four-step (n = a * b, a smooth, b with large prime factors): the length-a plan, the length-b
  // plan in conv_plan_, and the twiddles W_n^(j2 k1) in chirp_*.
  std::vector<int64_t> in_index_, out_index_;
  std::shared_ptr<const ComplexPlan<T>> conv_plan_, sub_plan_;
  int64_t four_a_ = 1;
};

// Real-input transforms of length n: forward gives n/2+1 bins, backward takes them back.
template <typename T>
class RealPlan {
 public:
  explicit RealPlan(int64_t n);
  int64_t size() const { return n_; }
  int64_t scratch_size(int64_t lanes = 1) const;
  // `lanes` rows at once: row v reads in + v*n and writes out + v*(n/2+1).
  void forward(const T* in, std::complex<T>* out, T scale, T* scratch, int64_t lanes = 1) const;
  // `in` holds n/2+1 bins per row; the imaginary parts of DC (and Nyquist, n even) are ignored.
  void backward(const std::complex<T>* in, T* out, T scale, T* scratch, int64_t lanes = 1) const;

 private:
  int64_t n_;
  std::shared_ptr<const ComplexPlan<T>> plan_;  // length n/2 (n even) or n (n odd)
  std::vector<T> w_re_, w_im_;                  // e^{-2 pi i k/n}, k = 0..n/2 (n even)
};

// Cached, thread-safe plan lookup.
template <typename T>
std::shared_ptr<const ComplexPlan<T>> complex_plan(int64_t n);
template <typename T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n);
// Number of cached plans, and clearing (tests, memory pressure).
int64_t plan_cache_size();
void clear_plan_cache();
// Smallest 2^a 3^b 5^c >= n.
int64_t next_fast_len(int64_t n);
// The convolution length Bluestein uses for a length-n transform: the 2^a 3^b 5^c 7^d >= 2n-1
// with the lowest estimated cost (not always the smallest). Exposed for tests and benchmarks.
int64_t bluestein_length(int64_t n);
// Which algorithm the plan for length n uses: "stockham", "rader", "fourstep" or "bluestein".
const char* plan_algorithm(int64_t n);

// Batched row transforms over contiguous rows, threaded over the batch with tc::parallel_for.
// c2c: rows of n complex -> n complex. r2c: n real -> n/2+1 (or n) complex. c2r: n/2+1 complex -> n
// real.
template <typename T>
void c2c(const std::complex<T>* in, std::complex<T>* out, int64_t n, int64_t batch, bool inverse,
         T scale);
// c2c along the middle dim of a contiguous [outer, n, inner] array without transposing it: blocks
// of columns are gathered as interleaved lanes (SIMD across columns) and transformed together.
template <typename T>
void c2c_strided(const std::complex<T>* in, std::complex<T>* out, int64_t outer, int64_t n,
                 int64_t inner, bool inverse, T scale);
// onesided = false writes all n bins per row, the upper ones by Hermitian symmetry.
template <typename T>
void r2c(const T* in, std::complex<T>* out, int64_t n, int64_t batch, T scale,
         bool onesided = true);
template <typename T>
void c2r(const std::complex<T>* in, T* out, int64_t n, int64_t batch, T scale);
// Windowed frames straight from a signal (stft without materialising frames): row b reads
// n samples at in + b*hop, multiplies them by window[0..n) and writes n/2+1 bins at out +
// b*(n/2+1).
template <typename T>
void r2c_frames(const T* in, int64_t hop, const T* window, std::complex<T>* out, int64_t n,
                int64_t frames, T scale);

}  // namespace tc::fft
