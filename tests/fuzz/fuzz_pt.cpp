// libFuzzer target for the torch.save reader. Build (see tests/fuzz/README.md):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//     tests/fuzz/fuzz_pt.cpp tensorcore/serialize/*.cpp -o fuzz_pt
// The first byte picks what the rest is fed to, because CRC checks would stop most mutations
// of a whole archive before they reach the unpickler:
//   0: read_pt() on the raw bytes (ZIP container + everything behind it)
//   1: the unpickler directly, with a fake storage loader
//   2: read_pt() on an archive built around the bytes as data.pkl, with storages "0" and "1"
// Every input must either succeed or throw FormatError, without leaks or sanitizer reports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tensorcore/serialize/pickle_reader.h"
#include "tensorcore/serialize/pt_format.h"
#include "tests/cpp/serialize/serialize_test_util.h"

namespace ts = tc::serialize;

namespace {

std::shared_ptr<const std::string> fake_storage(const std::string& key, const std::string& dtype,
                                                int64_t numel) {
  if (key.size() > 8 || numel > (1 << 16)) throw ts::FormatError("fuzz: storage too large");
  return std::make_shared<const std::string>(
      static_cast<std::size_t>(numel) * ts::dtype_itemsize(dtype), '\x3f');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    ts::PtValue v;
    switch (data[0] % 3) {
      case 0:
        v = ts::read_pt(rest);
        break;
      case 1:
        v = ts::detail::unpickle_torch(rest, fake_storage);
        break;
      default:
        v = ts::read_pt(ts::testing::make_pt(
            std::string(rest), {{"0", std::string(64, '\x01')}, {"1", std::string(64, '\x02')}}));
    }
    // Touch the result so its accessors run too.
    for (const auto& [path, t] : ts::collect_pt_tensors(v)) {
      if (t->is_contiguous() && t->numel() < 0) __builtin_trap();
    }
  } catch (const ts::FormatError&) {
  }
  return 0;
}
