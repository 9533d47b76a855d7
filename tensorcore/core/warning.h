#pragma once
// Warnings raised by C++ ops (torch's TORCH_WARN): printed to stderr by default; the Python
// extension installs a handler that turns them into Python UserWarnings, so warning filters,
// pytest.warns and -W error apply to them as to torch's.
#include <functional>
#include <string>

#include "tensorcore/core/error.h"

namespace tc {

using WarningHandler = std::function<void(const std::string& message)>;

// Replaces the process-wide handler; an empty handler restores the stderr default.
void set_warning_handler(WarningHandler handler);
// Calls the handler (which may throw, e.g. when Python turns warnings into errors).
void warn(const std::string& message);

}  // namespace tc

#define TC_WARN(...) ::tc::warn(::tc::detail::concat(__VA_ARGS__))
