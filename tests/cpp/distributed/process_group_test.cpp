// tc::distributed from C++: stores, Gloo collectives and the DDP reducer, with the ranks as
// threads of one process (each with its own store client and process group).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <thread>

#include "tensorcore/distributed/process_group.h"
#include "tensorcore/distributed/reducer.h"
#include "tensorcore/nn/modules/normalization.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
using namespace tc::distributed;

namespace {

// Runs fn(rank, pg) on `world` threads joined in one Gloo group; rethrows the first failure.
void run_ranks(int world, const std::function<void(int, std::shared_ptr<ProcessGroup>)>& fn) {
  auto master = std::make_shared<TCPStore>("127.0.0.1", 0, true, Milliseconds(20000));
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        auto store =
            std::make_shared<TCPStore>("127.0.0.1", master->port(), false, Milliseconds(20000));
        GlooOptions o;
        o.hostname = "127.0.0.1";
        o.timeout = Milliseconds(20000);
        auto pg = make_process_group_gloo(std::make_shared<PrefixStore>("pg", store), r, world, o);
        fn(r, pg);
      } catch (...) {
        errors[size_t(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

TEST(DistributedStore, TcpAndFileStores) {
  TCPStore master("127.0.0.1", 0, true, Milliseconds(5000));
  TCPStore client("127.0.0.1", master.port(), false, Milliseconds(5000));
  master.set("k", std::string("v"));
  EXPECT_EQ(client.get_string("k"), "v");
  EXPECT_EQ(client.add("n", 3), 3);
  EXPECT_EQ(master.add("n", 4), 7);
  EXPECT_THROW(client.wait({"missing"}, Milliseconds(100)), Error);
  auto path = std::filesystem::temp_directory_path() / "tc_cpp_filestore_test";
  std::filesystem::remove(path);
  {
    FileStore a(path.string(), 2), b(path.string(), 2);
    a.set("x", std::string("1"));
    EXPECT_EQ(b.get_string("x"), "1");
    EXPECT_EQ(b.compare_set("x", Bytes{'1'}, Bytes{'2'}), (Bytes{'2'}));
    EXPECT_EQ(a.get_string("x"), "2");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DistributedGloo, CollectivesOnThreeRanks) {
  if (!is_gloo_available()) GTEST_SKIP() << "built without Gloo";
  run_ranks(3, [](int rank, std::shared_ptr<ProcessGroup> pg) {
    Tensor t = full({4}, Scalar(double(rank + 1)));
    pg->allreduce({t}, ReduceOp::SUM)->wait();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(t.data<float>()[i], 6.0f);
    Tensor m = full({2}, Scalar(int64_t(rank)), TensorOptions(DType::Int64));
    pg->allreduce({m}, ReduceOp::MAX)->wait();
    EXPECT_EQ(m.data<int64_t>()[0], 2);
    TensorList outs = {zeros({1}), zeros({1}), zeros({1})};
    pg->allgather(outs, full({1}, Scalar(double(rank * 10))))->wait();
    for (int r = 0; r < 3; ++r) EXPECT_EQ(outs[size_t(r)].data<float>()[0], float(r * 10));
    pg->barrier()->wait();
  });
}

TEST(DistributedReducer, AveragesGradientsDuringBackward) {
  if (!is_gloo_available()) GTEST_SKIP() << "built without Gloo";
  run_ranks(2, [](int rank, std::shared_ptr<ProcessGroup> pg) {
    Tensor w = full({3}, Scalar(1.0));
    w.requires_grad_(true);
    Tensor b = full({2}, Scalar(1.0));
    b.requires_grad_(true);
    ReducerOptions o;
    o.bucket_cap_mb = 1e-5;  // one parameter per bucket
    Reducer reducer({w, b}, {"w", "b"}, pg, o);
    EXPECT_EQ(reducer.bucket_indices().size(), 2u);
    Tensor x = full({3}, Scalar(double(rank + 1)));  // rank 0: 1, rank 1: 2
    Tensor loss = add(sum(mul(w, x)), sum(mul(b, full({2}, Scalar(double(10 * (rank + 1)))))));
    reducer.prepare_for_backward({loss});
    loss.backward();
    for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(w.grad().data<float>()[i], 1.5f);
    for (int i = 0; i < 2; ++i) EXPECT_FLOAT_EQ(b.grad().data<float>()[i], 15.0f);
  });
}

TEST(DistributedSyncBatchNorm, MatchesBatchNormOverTheWholeBatch) {
  if (!is_gloo_available()) GTEST_SKIP() << "built without Gloo";
  run_ranks(2, [](int rank, std::shared_ptr<ProcessGroup> pg) {
    auto gen = std::make_shared<Generator>(Device(), 7);
    Tensor whole = add(mul(randn({4, 3, 2, 2}, gen), Scalar(2.0)), Scalar(1.0));
    Tensor weights = randn({4, 3, 2, 2}, gen);  // loss = sum(out * weights)
    nn::SyncBatchNorm sbn(3);
    sbn->process_group = pg;
    nn::BatchNorm2d ref(3);
    Tensor local = clone(narrow(whole, 0, rank * 2, 2));
    local.requires_grad_(true);
    Tensor whole_in = clone(whole);
    whole_in.requires_grad_(true);
    Tensor out = sbn(local);
    Tensor ref_out = ref(whole_in);
    Tensor diff = abs(sub(out, narrow(ref_out, 0, rank * 2, 2)));
    EXPECT_LT(max(diff).item<float>(), 1e-4f);
    sum(mul(out, narrow(weights, 0, rank * 2, 2))).backward();
    sum(mul(ref_out, weights)).backward();
    Tensor gdiff = abs(sub(local.grad(), narrow(whole_in.grad(), 0, rank * 2, 2)));
    EXPECT_LT(max(gdiff).item<float>(), 1e-4f);
    Tensor rdiff = abs(sub(sbn->running_var, ref->running_var));
    EXPECT_LT(max(rdiff).item<float>(), 1e-5f);
  });
}
