// Tensor::str(): a compact torch-style rendering for C++ users (Python has its own printer).
#include <cmath>
#include <iomanip>
#include <sstream>

#include "tensorcore/core/convert.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/ops/copy.h"

namespace tc {

namespace {

void print_rec(std::ostringstream& os, const Tensor& t, const char* base, int64_t dim,
               int64_t offset, int indent) {
  if (t.dim() == 0 || dim == t.dim()) {
    dispatch_dtype<kAllTypes>(t.dtype(), "print", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v = *reinterpret_cast<const T*>(base + offset * int64_t(sizeof(T)));
      if constexpr (std::is_same_v<T, bool>)
        os << (v ? "True" : "False");
      else if constexpr (is_complex_v<T>)
        os << v.real() << (v.imag() < 0 ? "" : "+") << v.imag() << "j";
      else if constexpr (is_floating_v<T>)
        os << std::setprecision(4) << std::fixed << double(float(v));
      else
        os << int64_t(v);
    });
    return;
  }
  os << "[";
  int64_t n = t.sizes()[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (n > 6 && i == 3) {
      os << "..., ";
      i = n - 3;
    }
    print_rec(os, t, base, dim + 1, offset + i * t.strides()[dim], indent + 1);
    if (i + 1 < n) os << (dim + 1 == t.dim() ? ", " : ",\n" + std::string(size_t(indent + 1), ' '));
  }
  os << "]";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  Tensor host = is_cpu() ? *this : to_device(detach(), Device());
  std::ostringstream os;
  os << "tensor(";
  print_rec(os, host, static_cast<const char*>(host.data_ptr()), 0, 0, 7);
  if (dtype() != DType::Float32 && dtype() != DType::Int64 && dtype() != DType::Bool)
    os << ", dtype=" << dtype_name(dtype());
  if (!is_cpu()) os << ", device='" << device().str() << "'";
  os << ")";
  return os.str();
}

}  // namespace tc
