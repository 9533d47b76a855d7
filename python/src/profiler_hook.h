#pragma once
// The op hook of tc.profiler in the binding layer (profiler.cpp): arg_guard.cpp's guarded_impl,
// through which every bound function runs, opens an OpSpan around the call.
#include <string>

#include "bind.h"
#include "tensorcore/profiler/profiler.h"

namespace tc::python {

// The name a binding is recorded under ("aten::add"), or null for queries/settings and
// bindings outside the op namespaces. Computed once per binding.
const std::string* profiled_op_name(const pybind11::detail::function_record& rec);

class OpSpan {
 public:
  OpSpan(const std::string* name, const pybind11::detail::function_call& call)
      : token_(name && profiler::enabled() ? begin_op(*name, call) : 0) {}
  ~OpSpan() {
    if (token_) profiler::end(token_);
  }
  // The overload did not match the arguments: pybind11 tries the next one, no op ran.
  void cancel() {
    if (token_) profiler::cancel(token_);
    token_ = 0;
  }
  OpSpan(const OpSpan&) = delete;
  OpSpan& operator=(const OpSpan&) = delete;

 private:
  static uint64_t begin_op(const std::string& name, const pybind11::detail::function_call& call);
  uint64_t token_;
};

}  // namespace tc::python
