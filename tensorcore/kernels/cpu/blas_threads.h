#pragma once
// Holding OpenBLAS to one thread while our own threads each run a BLAS call: two levels of
// threading on the same cores contend (OpenBLAS's workers against spinning OpenMP workers).

// Weak: another BLAS (reference, MKL) lacks them and then keeps its own threading policy.
extern "C" {
void openblas_set_num_threads(int) __attribute__((weak));
int openblas_get_num_threads() __attribute__((weak));
}

namespace tc {

struct BlasSingleThread {
  int saved = 0;
  BlasSingleThread() {
    if (openblas_get_num_threads && openblas_set_num_threads) {
      saved = openblas_get_num_threads();
      openblas_set_num_threads(1);
    }
  }
  ~BlasSingleThread() {
    if (saved > 0) openblas_set_num_threads(saved);
  }
  BlasSingleThread(const BlasSingleThread&) = delete;
  BlasSingleThread& operator=(const BlasSingleThread&) = delete;
};

}  // namespace tc
