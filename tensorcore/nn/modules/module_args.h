#pragma once
// Argument handling shared by the module families' constructors, reprs and clone()s.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tensorcore/nn/init.h"
#include "tensorcore/nn/module.h"

namespace tc::nn::detail {

using IntList = std::vector<int64_t>;

// torch's repr of a size: one number or a tuple.
inline std::string list_str(const IntList& v) {
  if (v.size() == 1) return std::to_string(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// One value per spatial dim (a single value is repeated).
inline IntList expand_list(const std::string& layer, const char* what, IntList v, int n) {
  if (v.size() == 1) v.assign(size_t(n), v[0]);
  TC_CHECK(int(v.size()) == n, layer, ": ", what, " needs 1 or ", n, " values, got ", v.size());
  return v;
}

// [C, *spatial] or [N, C, *spatial].
inline void check_rank(const std::string& layer, int spatial, const Tensor& x) {
  TC_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, layer, ": expected a ", spatial + 1,
           "-d or ", spatial + 2, "-d input ([C, *] or [N, C, *] with ", spatial,
           " spatial dims), but got input of size ", shape_str(x.sizes()));
}

// clone(): a fresh module built from the same options takes over src's state.
template <typename M>
ModulePtr with_state_of(std::shared_ptr<M> copy, const Module& src) {
  copy->copy_state_from(src);
  return copy;
}

}  // namespace tc::nn::detail
