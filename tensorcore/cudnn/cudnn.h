#pragma once
// cuDNN settings (torch.backends.cudnn) and availability. The header has no cuDNN types, so any
// translation unit may use it; in a build without cuDNN the settings still exist (they change
// nothing) and is_compiled()/is_available() are false.
#include <cstdint>

namespace tc::cudnn {

bool is_compiled();   // built against cuDNN headers and libraries
bool is_available();  // compiled, and a CUDA device is present
int version();        // CUDNN_VERSION of the loaded library (e.g. 91900), 0 when not compiled

// enabled: when false, ops that need cuDNN on CUDA raise instead of running.
void set_enabled(bool on);
bool enabled();
// benchmark: time every applicable algorithm once per convolution geometry and cache the winner
// (otherwise cuDNN's heuristic picks one).
void set_benchmark(bool on);
bool benchmark();
// deterministic: only algorithms that give bitwise-reproducible results. Also implied by
// tc::use_deterministic_algorithms(true).
void set_deterministic(bool on);
bool deterministic();
bool deterministic_requested();  // deterministic() || tc::deterministic_algorithms_enabled()
// allow_tf32: float32 convolutions may use TF32 tensor cores (default true, as in PyTorch).
void set_allow_tf32(bool on);
bool allow_tf32();

// Drops the cached algorithm choices (e.g. after changing a setting in a benchmark).
void clear_algorithm_cache();
// Number of cached algorithm choices (for tests).
int64_t algorithm_cache_size();

}  // namespace tc::cudnn
