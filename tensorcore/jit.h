#pragma once
// Deployment of traced programs without Python:
//   auto m = tc::jit::load("model.tcj");
//   tc::jit::IValue out = m.forward({image_bytes});
// The ops of every tensorcore library the program links (and of those beside libtensorcore)
// are available; see docs/jit.md.
#include "tensorcore/jit/ivalue.h"
#include "tensorcore/jit/module.h"
#include "tensorcore/jit/op_registry.h"

namespace tc::jit {
inline Module load(const std::string& path, std::optional<Device> map_location = {}) {
  return Module::load(path, map_location);
}
}  // namespace tc::jit
