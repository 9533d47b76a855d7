#include "tensorcore/profiler/device_timing.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace tc::profiler {

namespace {
std::atomic<DeviceTimer*> g_timer{nullptr};
}  // namespace

void register_device_timer(DeviceTimer* timer) { g_timer.store(timer); }
DeviceTimer* device_timer() { return g_timer.load(std::memory_order_acquire); }

int64_t device_ms_to_cpu_ns(int64_t ref_cpu_ns, double ms_after_ref) {
  return ref_cpu_ns + std::llround(ms_after_ref * 1e6);
}

std::vector<DeviceEvent> assemble_device_events(const std::vector<PendingKernel>& pending,
                                                const std::vector<ResolvedMark>& marks) {
  std::vector<DeviceEvent> out;
  out.reserve(pending.size());
  for (const PendingKernel& p : pending) {
    if (p.mark < 0 || mark_index(p.mark) >= marks.size()) continue;
    const ResolvedMark& m = marks[mark_index(p.mark)];
    if (!m.ok) continue;
    DeviceEvent& e = out.emplace_back();
    e.name = p.name ? *p.name : std::string("kernel");
    e.device = m.device;
    e.stream = m.stream;
    e.start_ns = device_ms_to_cpu_ns(m.ref_cpu_ns, m.start_ms);
    // Event timestamps have ~0.5 us resolution: never let an interval run backwards.
    e.end_ns = std::max(e.start_ns, device_ms_to_cpu_ns(m.ref_cpu_ns, m.end_ms));
    e.correlation = p.correlation;
    e.op_id = p.op_id;
    e.tid = p.tid;
    e.launch_start_ns = p.launch_start_ns;
    e.launch_end_ns = std::max(p.launch_start_ns, p.launch_end_ns);
  }
  std::stable_sort(out.begin(), out.end(), [](const DeviceEvent& a, const DeviceEvent& b) {
    return a.start_ns < b.start_ns;
  });
  return out;
}

}  // namespace tc::profiler
