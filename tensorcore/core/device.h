#pragma once
#include <cstdint>
#include <string>

namespace tc {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current device of that type
  Device() = default;
  Device(DeviceType t, int i = -1) : type(t), index(int8_t(i)) {}
  // Parses "cpu", "cuda", "cuda:1".
  explicit Device(const std::string& spec);
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const {
    return type == o.type && (index == o.index || type == DeviceType::CPU);
  }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline const char* device_type_name(DeviceType t) { return t == DeviceType::CPU ? "cpu" : "cuda"; }
// True when this build has the CUDA backend compiled in.
bool cuda_compiled();

}  // namespace tc
