#include "tensorcore/core/generator.h"

#include <chrono>
#include <cstring>
#include <random>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"

namespace tc {

Generator& Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = 0;
  return *this;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd() ^
               uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  s &= (1ull << 63) - 1;  // torch seeds are non-negative int64
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

Tensor Generator::get_state() const {
  Tensor t = empty({16}, TensorOptions(DType::UInt8));
  std::lock_guard<std::mutex> lock(mu_);
  uint8_t* p = t.data<uint8_t>();
  std::memcpy(p, &seed_, 8);
  std::memcpy(p + 8, &offset_, 8);
  return t;
}

void Generator::set_state(const Tensor& state) {
  TC_CHECK_TYPE(state.dtype() == DType::UInt8,
                "Generator.set_state: expected a torch.ByteTensor (uint8), got ",
                dtype_name(state.dtype()));
  TC_CHECK(state.numel() == 16,
           "Generator.set_state: RNG state is wrong size: expected 16 bytes, got ", state.numel());
  Tensor c = contiguous(to_device(state, Device()));
  const uint8_t* p = c.data<uint8_t>();
  std::lock_guard<std::mutex> lock(mu_);
  std::memcpy(&seed_, p, 8);
  std::memcpy(&offset_, p + 8, 8);
}

PhiloxState Generator::next(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  PhiloxState s{seed_, offset_};
  offset_ += n;
  return s;
}

const GeneratorPtr& default_generator() {
  static GeneratorPtr g = std::make_shared<Generator>();
  return g;
}

Generator& get_generator(const GeneratorPtr& g) { return g ? *g : *default_generator(); }

namespace {
DeviceGeneratorFn g_device_generators[kNumDeviceTypes] = {};
}  // namespace

void register_default_generator(DeviceType type, DeviceGeneratorFn fn) {
  g_device_generators[int(type)] = fn;
}

Generator& get_generator(const GeneratorPtr& g, Device device) {
  if (g || device.is_cpu() || !g_device_generators[int(device.type)]) return get_generator(g);
  return *g_device_generators[int(device.type)](device.index);
}

void manual_seed(uint64_t s) { default_generator()->manual_seed(s); }
uint64_t seed() { return default_generator()->seed(); }
uint64_t initial_seed() { return default_generator()->initial_seed(); }

}  // namespace tc
