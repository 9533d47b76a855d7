#include "tensorcore/core/size_check.h"

#include <sys/sysinfo.h>

#include "tensorcore/core/error.h"

namespace tc {

int64_t memory_capacity_bytes() {
  static const int64_t bytes = [] {
    struct sysinfo info {};
    if (sysinfo(&info) != 0) return INT64_MAX;
    const double total = (double(info.totalram) + double(info.totalswap)) * double(info.mem_unit);
    return total >= 9.2e18 ? INT64_MAX : int64_t(total);
  }();
  return bytes;
}

void check_output_fits_in_memory(const Shape& shape, DType dtype, const char* op) {
  int64_t bytes = int64_t(itemsize(dtype));
  for (int64_t s : shape)
    TC_CHECK(s >= 0 && !__builtin_mul_overflow(bytes, s, &bytes), op, ": output of shape ",
             shape_str(shape), " is too large (more than 2^63 bytes)");
  const int64_t cap = memory_capacity_bytes();
  TC_CHECK(bytes <= cap, op, ": output of shape ", shape_str(shape), " and dtype ",
           dtype_name(dtype), " needs ", double(bytes) / double(int64_t{1} << 30),
           " GiB, more than this machine's ", double(cap) / double(int64_t{1} << 30),
           " GiB of memory and swap");
}

}  // namespace tc
