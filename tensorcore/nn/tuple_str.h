#pragma once
// Python's repr of a tuple of sizes, as torch prints them in its messages: (2, 3, 4) and (5,).
#include <string>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

inline std::string tuple_str(const Shape& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace tc::nn
