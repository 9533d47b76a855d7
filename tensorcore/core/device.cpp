#include "tensorcore/core/device.h"

#include "tensorcore/core/error.h"

namespace tc {

Device::Device(const std::string& spec) {
  std::string kind = spec, idx;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    kind = spec.substr(0, colon);
    idx = spec.substr(colon + 1);
  }
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else {
    throw ValueError("unknown device '" + spec + "' (expected 'cpu', 'cuda' or 'cuda:N')");
  }
  if (!idx.empty()) {
    TC_CHECK(idx.find_first_not_of("0123456789") == std::string::npos && idx.size() < 4,
             "invalid device index in '", spec, "'");
    index = int8_t(std::stoi(idx));
  }
}

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (index >= 0 && type != DeviceType::CPU) s += ":" + std::to_string(index);
  return s;
}

bool cuda_compiled() {
#ifdef TC_WITH_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace tc
