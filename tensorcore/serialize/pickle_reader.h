#pragma once
// A restricted unpickler for the pickles torch.save writes (protocol 2, plus the protocol 3-5
// opcodes that carry the same kinds of data). Nothing is ever imported or executed: GLOBAL
// only resolves names from a fixed whitelist (OrderedDict, torch's tensor rebuild helpers and
// storage classes), and any other name is a FormatError.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "tensorcore/serialize/pt_format.h"

namespace tc::serialize::detail {

// Resolves a persistent id ('storage', <storage class>, key, location, numel) to the storage's
// bytes. `dtype` comes from the storage class ("F32" for torch.FloatStorage); implementations
// must check that the bytes hold at least numel * itemsize(dtype) bytes.
using StorageLoader = std::function<std::shared_ptr<const std::string>(
    const std::string& key, const std::string& dtype, int64_t numel)>;

// Limits that keep hostile input from exhausting the stack or memory.
struct UnpickleLimits {
  std::size_t max_depth = 1000;  // nesting of containers in the result
  // Bytes of PtValue nodes the result may occupy (excluding storage bytes, which are shared):
  // max_output_bytes + output_bytes_per_input_byte * data.size(). Memo references can make
  // a small pickle expand into a huge tree; this caps that while scaling with honest input.
  uint64_t max_output_bytes = 256ull << 20;
  uint64_t output_bytes_per_input_byte = 256;
};

// Runs the pickle program in `data` and converts the resulting object into a PtValue.
// Throws FormatError on any malformed, truncated or unsupported input.
PtValue unpickle_torch(std::string_view data, const StorageLoader& load_storage,
                       const UnpickleLimits& limits = {});

}  // namespace tc::serialize::detail
