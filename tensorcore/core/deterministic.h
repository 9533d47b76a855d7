#pragma once
// tc::use_deterministic_algorithms: ops whose implementation is nondeterministic (e.g. CUDA
// atomics in scatter_add/index_add) call alert_not_deterministic, which raises when it is on.

namespace tc {

void use_deterministic_algorithms(bool enabled, bool warn_only = false);
bool deterministic_algorithms_enabled();
bool deterministic_algorithms_warn_only();
// Throws tc::Error naming `op` when deterministic mode is on (prints a warning in warn_only mode).
void alert_not_deterministic(const char* op);

}  // namespace tc
