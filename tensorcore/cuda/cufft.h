#pragma once
// cuFFT plan cache of each CUDA device (torch.backends.cuda.cufft_plan_cache). tc.fft on CUDA
// tensors runs through cuFFT with plans kept in a per-device LRU cache keyed by the transform
// (type, rank, sizes, batch). No CUDA types here; without cuFFT every call throws.
#include <cstdint>

namespace tc::cuda {

// Plans currently cached on `device` (-1: the current device).
int64_t cufft_plan_cache_size(int device = -1);
// Capacity of the cache (default 4096, as torch with CUDA >= 10); 0 disables caching.
int64_t cufft_plan_cache_max_size(int device = -1);
// Shrinking evicts the least recently used plans.
void set_cufft_plan_cache_max_size(int64_t max_size, int device = -1);
void clear_cufft_plan_cache(int device = -1);
// True when this build links cuFFT.
bool cufft_available();

}  // namespace tc::cuda
