#include "tensorcore/core/deterministic.h"

#include <atomic>
#include <cstdio>

#include "tensorcore/core/error.h"

namespace tc {

namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_warn_only{false};
}  // namespace

void use_deterministic_algorithms(bool enabled, bool warn_only) {
  g_enabled = enabled;
  g_warn_only = warn_only;
}
bool deterministic_algorithms_enabled() { return g_enabled; }
bool deterministic_algorithms_warn_only() { return g_warn_only; }

void alert_not_deterministic(const char* op) {
  if (!g_enabled) return;
  std::string msg = detail::concat(
      op,
      " does not have a deterministic implementation, but you set "
      "'use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, "
      "or you can use the 'warn_only=True' option, if that's acceptable for your application.");
  if (g_warn_only) {
    std::fprintf(stderr, "UserWarning: %s\n", msg.c_str());
    return;
  }
  throw Error(msg);
}

}  // namespace tc
