// Op spans for C++ callers (core/dispatch.h's kernel hook) and the device-timing parts that do
// not need a GPU; the CudaProfiler tests need one and skip without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../cuda/gpu_test_util.h"
#include "tensorcore/profiler/device_timing.h"
#include "tensorcore/profiler/profiler.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {

std::vector<const profiler::Event*> named(const profiler::Result& r, const std::string& name) {
  std::vector<const profiler::Event*> out;
  for (const auto& e : r.events)
    if (e.name == name) out.push_back(&e);
  return out;
}

const profiler::Event* by_id(const profiler::Result& r, int64_t id) {
  for (const auto& e : r.events)
    if (e.id == id) return &e;
  return nullptr;
}

TEST(ProfilerKernelSpans, CppCallsBecomeOpSpansInsideTheirScope) {
  Tensor a = ones({2, 3}), b = ones({2, 3});
  Tensor warm = add(a, b);  // nothing recorded: the profiler is off
  profiler::start({.record_shapes = true});
  {
    profiler::RecordFunction scope("block");
    Tensor c = add(a, b);
    Tensor d = exp(c);
    Tensor s = sum(d);
  }
  profiler::Result r = profiler::stop();
  auto block = named(r, "block");
  ASSERT_EQ(block.size(), 1u);
  for (const char* op : {"aten::add", "aten::exp", "aten::sum"}) {
    auto spans = named(r, op);
    ASSERT_EQ(spans.size(), 1u) << op << ": one call, one span";
    const profiler::Event* e = spans[0];
    EXPECT_EQ(e->type, profiler::EventType::Op) << op;
    EXPECT_EQ(e->parent_id, block[0]->id) << op << " nests in the user scope";
    EXPECT_GE(e->start_ns, block[0]->start_ns);
    EXPECT_LE(e->end_ns, block[0]->end_ns);
    EXPECT_GE(e->end_ns, e->start_ns);
  }
  // Shapes of the inputs (the TensorIter's operands for elementwise kernels).
  const profiler::Event* add_span = named(r, "aten::add")[0];
  ASSERT_EQ(add_span->shapes.size(), 2u);
  EXPECT_EQ(add_span->shapes[0], (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(add_span->dtypes[0], "float32");
  // add, exp and sum ran in this order.
  EXPECT_LT(add_span->start_ns, named(r, "aten::exp")[0]->start_ns);
  EXPECT_LT(named(r, "aten::exp")[0]->start_ns, named(r, "aten::sum")[0]->start_ns);
  EXPECT_TRUE(r.device_events.empty());
}

TEST(ProfilerKernelSpans, InsideAnOpSpanOnlyTheOutermostIsRecorded) {
  // An op called through the Python binding opens an Op span first (python/src/profiler.cpp);
  // the kernels it dispatches add none.
  Tensor a = ones({4});
  profiler::start({});
  {
    profiler::RecordFunction op("aten::my_composite", profiler::EventType::Op);
    Tensor b = mul(add(a, a), a);
  }
  { Tensor c = add(a, a); }
  profiler::Result r = profiler::stop();
  ASSERT_EQ(named(r, "aten::my_composite").size(), 1u);
  EXPECT_TRUE(named(r, "aten::mul").empty());
  auto adds = named(r, "aten::add");
  ASSERT_EQ(adds.size(), 1u) << "only the add outside the op span";
  EXPECT_EQ(adds[0]->parent_id, -1);
}

TEST(ProfilerKernelSpans, BackwardNodesHoldTheOpsTheyRun) {
  Tensor x = ones({3}).set_requires_grad(true);
  Tensor y = sum(exp(x));
  profiler::start({});
  y.backward();
  profiler::Result r = profiler::stop();
  auto node = named(r, "ExpBackward0");
  ASSERT_EQ(node.size(), 1u);
  int inside = 0;
  for (const auto& e : r.events) {
    if (e.type != profiler::EventType::Op) continue;
    const profiler::Event* p = by_id(r, e.parent_id);
    if (p && p->id == node[0]->id) ++inside;
  }
  EXPECT_GE(inside, 1) << "ExpBackward0 multiplies the gradient by exp(x): an op span inside";
}

TEST(ProfilerKernelSpans, CudaActivityWithoutDeviceWorkRecordsNoDeviceEvents) {
  Tensor a = ones({4});
  profiler::start({.cuda = true});
  Tensor b = add(a, a);
  profiler::Result r = profiler::stop();
  EXPECT_EQ(named(r, "aten::add").size(), 1u);
  EXPECT_TRUE(r.device_events.empty()) << "CPU kernels are not timed on a device";
}

TEST(ProfilerDeviceTiming, PoolReusesHandlesInTheSteadyState) {
  int next = 0;
  std::set<int> destroyed;
  {
    profiler::HandlePool<int> pool([&] { return ++next; }, [&](int h) { destroyed.insert(h); });
    // One "step": 3 kernels in flight, 2 events each.
    for (int step = 0; step < 50; ++step) {
      std::vector<int> held;
      for (int k = 0; k < 6; ++k) held.push_back(pool.acquire());
      EXPECT_EQ(std::set<int>(held.begin(), held.end()).size(), held.size()) << "no handle twice";
      for (int h : held) pool.release(h);
    }
    EXPECT_EQ(pool.created(), 6) << "after the first step every handle comes from the pool";
    EXPECT_EQ(pool.in_use(), 0);
    EXPECT_EQ(pool.cached(), 6u);
  }
  EXPECT_EQ(destroyed, (std::set<int>{1, 2, 3, 4, 5, 6}));
}

TEST(ProfilerDeviceTiming, DeviceTimesMapOntoTheCpuClock) {
  EXPECT_EQ(profiler::device_ms_to_cpu_ns(1'000'000, 0.0), 1'000'000);
  EXPECT_EQ(profiler::device_ms_to_cpu_ns(1'000'000, 0.5), 1'500'000);
  EXPECT_EQ(profiler::device_ms_to_cpu_ns(5'000, 1.25), 1'255'000);
  EXPECT_EQ(profiler::device_ms_to_cpu_ns(0, 0.0015), 1'500);  // sub-microsecond kept
}

TEST(ProfilerDeviceTiming, AssemblyPairsKernelsWithTheirMarks) {
  const std::string add_k = "add_kernel", mm_k = "bmm_kernel";
  const int64_t session = int64_t(3) << profiler::kMarkSessionShift;
  std::vector<profiler::PendingKernel> pending(4);
  pending[0] = {session | 1, &mm_k, 11, 101, 7, 2'000, 2'100};
  pending[1] = {session | 0, &add_k, 10, 100, 7, 1'000, 1'050};
  pending[2] = {session | 2, &add_k, 12, 102, 7, 3'000, 3'010};  // its mark failed to read
  pending[3] = {session | 9, &add_k, 13, 103, 7, 4'000, 4'010};  // no such mark
  std::vector<profiler::ResolvedMark> marks(3);
  // ref completed at t = 1'000'000 ns on the CPU clock; times in ms after it.
  marks[0] = {0, 0, 1'000'000, 0.010, 0.030, true};
  marks[1] = {1, 0xabc, 2'000'000, 0.100, 0.0999, true};  // end before start by rounding
  marks[2] = {0, 0, 1'000'000, 0.2, 0.3, false};
  auto ev = profiler::assemble_device_events(pending, marks);
  ASSERT_EQ(ev.size(), 2u) << "unreadable and unknown marks are dropped";
  EXPECT_EQ(ev[0].name, "add_kernel");  // sorted by device start: 1'010'000 < 2'100'000
  EXPECT_EQ(ev[0].start_ns, 1'010'000);
  EXPECT_EQ(ev[0].end_ns, 1'030'000);
  EXPECT_EQ(ev[0].op_id, 10);
  EXPECT_EQ(ev[0].correlation, 100);
  EXPECT_EQ(ev[0].launch_start_ns, 1'000);
  EXPECT_EQ(ev[0].launch_end_ns, 1'050);
  EXPECT_EQ(ev[1].name, "bmm_kernel");
  EXPECT_EQ(ev[1].device, 1);
  EXPECT_EQ(ev[1].stream, 0xabcu);
  EXPECT_EQ(ev[1].start_ns, 2'100'000);
  EXPECT_EQ(ev[1].end_ns, 2'100'000) << "an interval never runs backwards";
}

// ---- on a GPU ----

TEST(CudaProfiler, KernelsAreTimedWithEventsAndLinkedToTheirOp) {
  SKIP_WITHOUT_GPU();
  using gpu_test::kCuda;
  Tensor a = to_device(ones({1024, 1024}), kCuda);
  Tensor b = add(a, a);  // warm up (kernel load, allocator)
  cuda::synchronize();
  profiler::start({.cuda = true});
  Tensor c;
  {
    profiler::RecordFunction scope("block");
    c = add(a, a);
    for (int i = 0; i < 4; ++i) c = mul(c, a);
  }
  profiler::Result r = profiler::stop();
  ASSERT_EQ(named(r, "aten::add").size(), 1u);
  ASSERT_EQ(named(r, "aten::mul").size(), 4u);
  ASSERT_EQ(r.device_events.size(), 5u) << "one event pair per CUDA kernel call";
  std::set<int64_t> correlations;
  for (const auto& d : r.device_events) {
    const profiler::Event* op = by_id(r, d.op_id);
    ASSERT_NE(op, nullptr);
    EXPECT_TRUE(op->name == "aten::add" || op->name == "aten::mul") << op->name;
    EXPECT_EQ(d.device, 0);
    EXPECT_GT(d.end_ns, d.start_ns) << "a 1M-element kernel takes measurable time";
    // The device runs the kernel after the CPU launched it and before the session stopped.
    EXPECT_GE(d.start_ns, d.launch_start_ns - 50'000) << "within the clock anchoring error";
    EXPECT_LE(d.end_ns, r.end_ns + 50'000);
    correlations.insert(d.correlation);
  }
  EXPECT_EQ(correlations.size(), 5u);
  // In stream order.
  for (size_t i = 1; i < r.device_events.size(); ++i)
    EXPECT_GE(r.device_events[i].start_ns, r.device_events[i - 1].end_ns - 1'000);
}

TEST(CudaProfiler, PoolDoesNotGrowAcrossSessions) {
  SKIP_WITHOUT_GPU();
  using gpu_test::kCuda;
  Tensor a = to_device(ones({256}), kCuda);
  for (int s = 0; s < 3; ++s) {
    profiler::start({.cuda = true});
    for (int i = 0; i < 3000; ++i) a = add(a, 1.0);  // more than one read batch
    profiler::Result r = profiler::stop();
    EXPECT_EQ(r.device_events.size(), 3000u);
  }
}

TEST(CudaProfiler, CachingAllocatorReportsCudaMemory) {
  SKIP_WITHOUT_GPU();
  using gpu_test::kCuda;
  cuda::synchronize();
  profiler::start({.profile_memory = true});
  {
    profiler::RecordFunction scope("alloc");
    Tensor t = empty({1 << 18}, TensorOptions(DType::Float32).device(kCuda));  // 1 MiB
  }
  profiler::Result r = profiler::stop();
  const profiler::Event* scope = named(r, "alloc").at(0);
  int64_t allocated = 0, freed = 0;
  for (const auto& m : r.memory) {
    if (m.device_type != int8_t(DeviceType::CUDA)) continue;
    EXPECT_EQ(m.device_index, 0);
    EXPECT_GE(m.total_reserved, m.total_allocated);
    if (m.event_id == scope->id) (m.bytes > 0 ? allocated : freed) += m.bytes;
  }
  EXPECT_EQ(allocated, int64_t(1) << 20);
  EXPECT_EQ(freed, -(int64_t(1) << 20));
}

}  // namespace
