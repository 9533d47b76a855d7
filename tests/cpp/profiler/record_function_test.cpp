#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "tensorcore/profiler/profiler.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {

const profiler::Event* find(const profiler::Result& r, const std::string& name) {
  for (const auto& e : r.events)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(Profiler, RecordFunctionNestsAndTimes) {
  EXPECT_FALSE(profiler::enabled());
  {
    profiler::RecordFunction ignored("before");  // off: nothing recorded
  }
  profiler::start({});
  {
    profiler::RecordFunction outer("outer");
    EXPECT_TRUE(outer.active());
    {
      profiler::RecordFunction inner("inner");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  profiler::Result r = profiler::stop();
  EXPECT_FALSE(profiler::enabled());
  EXPECT_EQ(find(r, "before"), nullptr);
  const profiler::Event* outer = find(r, "outer");
  const profiler::Event* inner = find(r, "inner");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->parent_id, outer->id);
  EXPECT_GE(inner->end_ns - inner->start_ns, 2'000'000);
  EXPECT_LE(outer->start_ns, inner->start_ns);
  EXPECT_GE(outer->end_ns, inner->end_ns);
  EXPECT_EQ(outer->type, profiler::EventType::UserAnnotation);
}

TEST(Profiler, NestedSessionsAreRefused) {
  profiler::start({});
  EXPECT_THROW(profiler::start({}), Error);
  profiler::stop();
  EXPECT_THROW(profiler::stop(), Error);
}

TEST(Profiler, MemoryEventsAreAttributedToTheOpenSpan) {
  profiler::Config config;
  config.profile_memory = true;
  profiler::start(config);
  {
    profiler::RecordFunction scope("alloc");
    Tensor t = empty({256}, DType::Float32);  // 1024 bytes, freed at the end of the scope
  }
  profiler::Result r = profiler::stop();
  const profiler::Event* scope = find(r, "alloc");
  ASSERT_NE(scope, nullptr);
  int64_t allocated = 0, freed = 0;
  for (const auto& m : r.memory) {
    if (m.event_id != scope->id) continue;
    if (m.bytes > 0)
      allocated += m.bytes;
    else
      freed -= m.bytes;
  }
  EXPECT_EQ(allocated, 1024);
  EXPECT_EQ(freed, 1024);
}

TEST(Profiler, BackwardNodesCarryTheForwardSequenceNumber) {
  Tensor x = ones({3}).set_requires_grad(true);
  profiler::start({});
  {
    profiler::RecordFunction op("my_exp", {x});
    Tensor y = exp(x);
    profiler::RecordFunction reduce("my_sum", {y});
    sum(y).backward();
  }
  profiler::Result r = profiler::stop();
  const profiler::Event* op = find(r, "my_exp");
  const profiler::Event* exp_bw = find(r, "ExpBackward0");
  ASSERT_NE(op, nullptr);
  ASSERT_NE(exp_bw, nullptr);
  // The scope keeps the first node created inside it (ExpBackward0, not the leaf's
  // AccumulateGrad made when the node connected its input).
  EXPECT_EQ(op->sequence_nr, exp_bw->sequence_nr);
  EXPECT_EQ(exp_bw->type, profiler::EventType::Backward);
  const profiler::Event* sum_bw = nullptr;
  for (const auto& e : r.events)
    if (e.name.rfind("SumBackward", 0) == 0) sum_bw = &e;
  ASSERT_NE(sum_bw, nullptr);
  EXPECT_EQ(sum_bw->sequence_nr, find(r, "my_sum")->sequence_nr);
}

TEST(Profiler, ThreadsRecordIntoTheirOwnLanes) {
  profiler::start({});
  std::thread t([] { profiler::RecordFunction scope("worker"); });
  t.join();
  { profiler::RecordFunction scope("main"); }
  profiler::Result r = profiler::stop();
  ASSERT_NE(find(r, "worker"), nullptr);
  ASSERT_NE(find(r, "main"), nullptr);
  EXPECT_NE(find(r, "worker")->tid, find(r, "main")->tid);
}

}  // namespace
