#pragma once
// Intra-op parallelism. Work below `grain` elements runs inline so tiny ops pay nothing.
#include <cstdint>
#include <functional>

namespace tc {

constexpr int64_t kGrainSize = 32768;

int get_num_threads();
void set_num_threads(int n);
bool in_parallel_region();

// Calls fn(begin, end) on disjoint chunks covering [begin, end).
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tc
