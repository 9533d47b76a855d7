#pragma once
// Counter-based random number generator (Philox4x32-10). Each random op reserves a fresh
// "offset" (a subsequence); element i of its output is a pure function of (seed, offset, i),
// so results do not depend on the number of threads.
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "tensorcore/core/device.h"
#include "tensorcore/core/tensor.h"

namespace tc {

// Philox4x32 with 10 rounds: 128-bit counter, 64-bit key -> 4 x uint32.
inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> ctr,
                                          std::array<uint32_t, 2> key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(kM0) * ctr[0], p1 = uint64_t(kM1) * ctr[2];
    ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ ctr[3] ^ key[1],
           uint32_t(p0)};
    key[0] += kW0;
    key[1] += kW1;
  }
  return ctr;
}

// What a kernel needs: key and the subsequence reserved for this op.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
  // Four random words for element/block `i`.
  std::array<uint32_t, 4> block(uint64_t i) const {
    return philox4x32({uint32_t(i), uint32_t(i >> 32), uint32_t(offset), uint32_t(offset >> 32)},
                      {uint32_t(seed), uint32_t(seed >> 32)});
  }
};

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // torch's default seed
  explicit Generator(Device device = Device(), uint64_t seed = kDefaultSeed)
      : device_(device), seed_(seed) {}

  Device device() const { return device_; }
  Generator& manual_seed(uint64_t seed);
  uint64_t seed();  // seeds from a nondeterministic source and returns the seed
  uint64_t initial_seed() const;
  // 16 bytes as a uint8 tensor: seed then offset (little endian).
  Tensor get_state() const;
  void set_state(const Tensor& state);
  // Reserves `n` subsequences and returns the state for the first.
  PhiloxState next(uint64_t n = 1);
  std::mutex& mutex() { return mu_; }

 private:
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  mutable std::mutex mu_;
};

using GeneratorPtr = std::shared_ptr<Generator>;

// The default CPU generator (torch.default_generator).
const GeneratorPtr& default_generator();
Generator& get_generator(const GeneratorPtr& g);  // g or the default
// g, or the default generator of `device` (a backend registers its per-device defaults).
Generator& get_generator(const GeneratorPtr& g, Device device);
using DeviceGeneratorFn = const GeneratorPtr& (*)(int device_index);
void register_default_generator(DeviceType type, DeviceGeneratorFn fn);
void manual_seed(uint64_t seed);
uint64_t seed();
uint64_t initial_seed();

}  // namespace tc
