#include "tensorcore/core/warning.h"

#include <cstdio>
#include <memory>
#include <mutex>

namespace tc {
namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<const WarningHandler>& handler_slot() {
  static std::shared_ptr<const WarningHandler> h;
  return h;
}

}  // namespace

void set_warning_handler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(handler_mutex());
  handler_slot() = handler ? std::make_shared<const WarningHandler>(std::move(handler)) : nullptr;
}

void warn(const std::string& message) {
  std::shared_ptr<const WarningHandler> h;
  {
    std::lock_guard<std::mutex> lock(handler_mutex());
    h = handler_slot();
  }
  // Called outside the lock: a handler may warn again or replace itself.
  if (h) {
    (*h)(message);
    return;
  }
  std::fprintf(stderr, "tensorcore warning: %s\n", message.c_str());
}

}  // namespace tc
