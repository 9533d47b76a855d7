// libFuzzer target for the safetensors reader. Build (see tests/fuzz/README.md):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//     tests/fuzz/fuzz_safetensors.cpp tensorcore/serialize/*.cpp -o fuzz_safetensors
// Any input must either parse or throw FormatError; whatever parses must survive a
// write/read round trip unchanged (so the writer and reader agree on every accepted file).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tensorcore/serialize/safetensors_format.h"

namespace ts = tc::serialize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  ts::SafetensorsFile parsed;
  try {
    parsed = ts::read_safetensors(input);
  } catch (const ts::FormatError&) {
    return 0;
  }
  const std::string rewritten = ts::write_safetensors(parsed.tensors, parsed.metadata);
  const ts::SafetensorsFile again = ts::read_safetensors(std::string_view(rewritten));
  if (again.metadata != parsed.metadata || again.tensors.size() != parsed.tensors.size()) {
    __builtin_trap();
  }
  for (std::size_t i = 0; i < parsed.tensors.size(); ++i) {
    const auto& [name_a, a] = parsed.tensors[i];
    const auto& [name_b, b] = again.tensors[i];
    if (name_a != name_b || a.dtype != b.dtype || a.shape != b.shape || a.bytes != b.bytes) {
      __builtin_trap();
    }
  }
  return 0;
}
