#pragma once
// tc.jit.trace's hook in the binding layer: while a trace runs on this thread, arg_guard.cpp's
// guarded_impl sends each bound call through jit_traced_call, which records the outermost call
// (its binding name, arguments and result) as a graph node (jit.cpp).
#include "bind.h"

namespace tc::python {

struct JitTrace;
extern thread_local JitTrace* tl_jit_trace;

using BoundImpl = py::handle (*)(py::detail::function_call&);
py::handle jit_traced_call(BoundImpl impl, py::detail::function_call& call);

}  // namespace tc::python
