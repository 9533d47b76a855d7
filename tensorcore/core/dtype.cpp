#include "tensorcore/core/dtype.h"

#include "tensorcore/core/error.h"

namespace tc {

size_t itemsize(DType dt) {
  switch (dt) {
#define TC_SIZE(E, T, N, S) \
  case DType::E:            \
    return sizeof(T);
    TC_FORALL_DTYPES(TC_SIZE)
#undef TC_SIZE
  }
  return 0;
}

const char* dtype_name(DType dt) {
  switch (dt) {
#define TC_NAME(E, T, N, S) \
  case DType::E:            \
    return N;
    TC_FORALL_DTYPES(TC_NAME)
#undef TC_NAME
  }
  return "?";
}

DType dtype_from_name(std::string_view name) {
  if (name.substr(0, 11) == "tensorcore.") name.remove_prefix(11);
  if (name.substr(0, 6) == "torch.") name.remove_prefix(6);
#define TC_PARSE(E, T, N, S) \
  if (name == N) return DType::E;
  TC_FORALL_DTYPES(TC_PARSE)
#undef TC_PARSE
  static const std::pair<const char*, DType> aliases[] = {
      {"float", DType::Float32},    {"double", DType::Float64},     {"half", DType::Float16},
      {"long", DType::Int64},       {"int", DType::Int32},          {"short", DType::Int16},
      {"cfloat", DType::Complex64}, {"cdouble", DType::Complex128}, {"uint", DType::UInt8}};
  for (auto& [alias, dt] : aliases)
    if (name == alias) return dt;
  throw TypeError(detail::concat("unknown dtype '", name, "'"));
}

static int int_bits(DType d) { return int(itemsize(d)) * 8; }

static DType signed_int_of_bits(int bits) {
  switch (bits) {
    case 8:
      return DType::Int8;
    case 16:
      return DType::Int16;
    case 32:
      return DType::Int32;
    default:
      return DType::Int64;
  }
}

DType to_real(DType d) {
  if (d == DType::Complex64) return DType::Float32;
  if (d == DType::Complex128) return DType::Float64;
  return d;
}

DType to_complex(DType d) {
  switch (d) {
    case DType::Float64:
    case DType::Complex128:
      return DType::Complex128;
    default:
      return DType::Complex64;
  }
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    DType real = promote_types(to_real(a), to_real(b));
    return real == DType::Float64 ? DType::Complex128 : DType::Complex64;
  }
  if (is_floating(a) && is_floating(b)) {
    if ((a == DType::Float16 && b == DType::BFloat16) ||
        (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (is_floating(a)) return a;
  if (is_floating(b)) return b;
  // Both integral.
  bool sa = is_signed(a), sb = is_signed(b);
  if (sa == sb) return itemsize(a) >= itemsize(b) ? a : b;
  DType u = sa ? b : a, s = sa ? a : b;
  if (int_bits(s) > int_bits(u)) return s;
  return signed_int_of_bits(std::min(64, 2 * int_bits(u)));
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

}  // namespace tc
