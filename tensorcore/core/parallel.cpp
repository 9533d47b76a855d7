#include "tensorcore/core/parallel.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <exception>

namespace tc {

namespace {
int g_num_threads = 0;  // 0: not yet initialised from the environment

// libgomp's thread pool does not survive fork(): a child that enters a parallel region after the
// parent used one hangs. Forked children (DataLoader workers) therefore run parallel_for inline,
// as PyTorch does.
bool g_forked_child = false;
void mark_forked_child() { g_forked_child = true; }
const bool g_atfork_registered = [] {
  return pthread_atfork(nullptr, nullptr, mark_forked_child) == 0;
}();
}  // namespace

int get_num_threads() {
  if (g_num_threads == 0) g_num_threads = std::max(1, omp_get_max_threads());
  return g_num_threads;
}

void set_num_threads(int n) {
  g_num_threads = std::max(1, n);
  omp_set_num_threads(g_num_threads);
}

bool in_parallel_region() { return omp_in_parallel(); }

void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int threads = get_num_threads();
  if (threads <= 1 || n <= grain || g_forked_child || in_parallel_region()) {
    fn(begin, end);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  std::exception_ptr error;
#pragma omp parallel num_threads(int(chunks))
  {
    int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t per = (n + nt - 1) / nt;
    int64_t b = begin + tid * per, e = std::min(end, b + per);
    if (b < e) {
      try {
        fn(b, e);
      } catch (...) {
#pragma omp critical
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tc
