// torch.backends.cudnn flags. Plain atomics: read on every convolution, set rarely.
#include <atomic>

#include "tensorcore/core/deterministic.h"
#include "tensorcore/cudnn/cudnn.h"

namespace tc::cudnn {
namespace {
std::atomic<bool> g_enabled{true};
std::atomic<bool> g_benchmark{false};
std::atomic<bool> g_deterministic{false};
std::atomic<bool> g_allow_tf32{true};
}  // namespace

void set_enabled(bool on) { g_enabled = on; }
bool enabled() { return g_enabled; }
void set_benchmark(bool on) { g_benchmark = on; }
bool benchmark() { return g_benchmark; }
void set_deterministic(bool on) { g_deterministic = on; }
bool deterministic() { return g_deterministic; }
bool deterministic_requested() { return g_deterministic || deterministic_algorithms_enabled(); }
void set_allow_tf32(bool on) { g_allow_tf32 = on; }
bool allow_tf32() { return g_allow_tf32; }

}  // namespace tc::cudnn
