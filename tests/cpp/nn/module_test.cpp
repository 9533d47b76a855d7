// tc::nn::Module: registration, names, modes, conversion, state_dict round trips and errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {

struct NetImpl : nn::Module {
  NetImpl() : nn::Module("Net") {
    fc1 = register_module("fc1", nn::Linear(4, 8));
    bn = register_module("bn", nn::BatchNorm1d(8));
    head = register_module("head", nn::Sequential({{"act", nn::AnyModule(nn::ReLU())},
                                                   {"out", nn::AnyModule(nn::Linear(8, 3))}}));
    scale = register_parameter("scale", ones({1}));
    register_buffer("scratch", zeros({2}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) { return mul(head(bn(fc1(x))), scale); }
  nn::Linear fc1{nullptr};
  nn::BatchNorm1d bn{nullptr};
  nn::Sequential head{nullptr};
  Tensor scale;
};
TC_MODULE(Net);

std::vector<std::string> keys(const nn::NamedTensors& v) {
  std::vector<std::string> out;
  for (auto& e : v) out.push_back(e.first);
  return out;
}

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("nncpp_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(NnCppModule, NamesFollowTorchOrder) {
  Net net;
  EXPECT_EQ(keys(net->named_parameters()),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                      "head.out.weight", "head.out.bias"}));
  EXPECT_EQ(keys(net->named_buffers()),
            (std::vector<std::string>{"scratch", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked"}));
  // state_dict: per module params then persistent buffers, pre-order; non-persistent skipped.
  EXPECT_EQ(keys(net->state_dict()),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                      "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                      "head.out.weight", "head.out.bias"}));
  std::vector<std::string> mods;
  for (auto& [n, m] : net->named_modules()) mods.push_back(n);
  EXPECT_EQ(mods, (std::vector<std::string>{"", "fc1", "bn", "head", "head.act", "head.out"}));
  EXPECT_EQ(net->children().size(), 3u);
  EXPECT_EQ(net->parameters().size(), 7u);
  EXPECT_TRUE(net->fc1->weight.requires_grad());
}

TEST(NnCppModule, TrainEvalZeroGradApply) {
  Net net;
  net->eval();
  for (auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->train();
  EXPECT_TRUE(net->bn->is_training());
  Tensor y = net(randn({5, 4}));
  sum(y).backward();
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(sum(abs(net->fc1->weight.grad())).item<double>(), 0.0);
  net->zero_grad();
  EXPECT_FALSE(net->fc1->weight.grad().defined());
  int count = 0;
  std::vector<std::string> order;
  net->apply([&](nn::Module& m) {
    ++count;
    order.push_back(m.name());
  });
  EXPECT_EQ(count, 6);
  EXPECT_EQ(order.back(), "Net");  // children first, like torch
}

TEST(NnCppModule, ToDtypeKeepsMemberHandles) {
  Net net;
  Tensor w = net->fc1->weight;
  net->to(DType::Float64);
  EXPECT_EQ(w.dtype(), DType::Float64);
  EXPECT_EQ(net->fc1->weight.dtype(), DType::Float64);
  EXPECT_EQ(net->bn->num_batches_tracked.dtype(), DType::Int64);  // integers stay
  EXPECT_TRUE(w.requires_grad());
  Tensor y = net(randn({3, 4}, {}, DType::Float64));
  EXPECT_EQ(y.dtype(), DType::Float64);
  sum(y).backward();
  EXPECT_EQ(w.grad().dtype(), DType::Float64);
}

TEST(NnCppModule, StateDictRoundTripPtAndSafetensors) {
  for (std::string ext : {".pt", ".safetensors"}) {
    Net a, b;
    a->train();
    a(randn({6, 4}));  // moves the running stats away from their init
    std::string path = tmp_path("rt" + ext);
    a->save(path);
    b->load(path);
    std::filesystem::remove(path);
    auto sa = a->state_dict(), sb = b->state_dict();
    ASSERT_EQ(keys(sa), keys(sb));
    for (size_t i = 0; i < sa.size(); ++i)
      EXPECT_TRUE(equal(sa[i].second, sb[i].second)) << sa[i].first << ext;
    a->eval();
    b->eval();
    Tensor x = randn({2, 4});
    EXPECT_TRUE(allclose(a(x), b(x)));
    EXPECT_EQ(b->bn->num_batches_tracked.item<int64_t>(), 1);
  }
}

TEST(NnCppModule, LoadStateDictErrorsListKeys) {
  Net net;
  auto sd = net->state_dict();
  nn::NamedTensors bad;
  for (auto& [k, t] : sd) {
    if (k == "fc1.bias") continue;  // missing
    if (k == "fc1.weight")
      bad.emplace_back(k, zeros({8, 5}));  // mis-shaped
    else
      bad.emplace_back(k, t);
  }
  bad.emplace_back("fc2.weight", zeros({1}));  // unexpected
  try {
    net->load_state_dict(bad);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Error(s) in loading state_dict for Net"), std::string::npos) << m;
    EXPECT_NE(m.find("missing keys: fc1.bias"), std::string::npos) << m;
    EXPECT_NE(m.find("unexpected keys: fc2.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("fc1.weight (expected [8, 4], got [8, 5])"), std::string::npos) << m;
  }
  // Non-strict: missing/unexpected tolerated, the rest copied.
  nn::NamedTensors partial = {{"fc1.bias", full({8}, 2.0)}, {"nope", zeros({1})}};
  net->load_state_dict(partial, /*strict=*/false);
  EXPECT_TRUE(equal(net->fc1->bias, full({8}, 2.0)));
  EXPECT_FALSE(net->fc1->bias.grad_fn());
  EXPECT_THROW(net->load("/nonexistent/dir/file.pt"), std::exception);
}

TEST(NnCppModule, ContainersAndPrint) {
  nn::Sequential seq({nn::AnyModule(nn::Linear(2, 3)), nn::AnyModule(nn::ReLU()),
                      nn::AnyModule([](const Tensor& x) { return mul(x, 2.0); })});
  EXPECT_EQ(seq->size(), 3u);
  Tensor x = randn({4, 2});
  auto lin = seq->ptr<nn::LinearImpl>(0);
  ASSERT_TRUE(lin);
  EXPECT_TRUE(allclose(seq(x), mul(relu(lin->forward(x)), 2.0)));
  EXPECT_THROW(seq->push_back("0", nn::AnyModule(nn::ReLU())), ValueError);
  EXPECT_THROW((*seq)[7], IndexError);
  EXPECT_EQ(seq->str(),
            "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=true)\n  (1): ReLU()\n "
            " (2): Functional()\n)");

  nn::ModuleList list;
  list->push_back(nn::Linear(2, 2));
  list->push_back(nn::Conv2d(1, 2, 3));
  EXPECT_EQ(keys(list->state_dict()),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  EXPECT_TRUE(list->ptr<nn::Conv2dImpl>(1));
  EXPECT_FALSE(list->ptr<nn::LinearImpl>(1));

  nn::ModuleDict dict;
  dict->insert("enc", nn::Linear(2, 2));
  dict->insert("dec", nn::Linear(2, 2, false));
  EXPECT_TRUE(dict->contains("dec"));
  EXPECT_EQ(keys(dict->state_dict()),
            (std::vector<std::string>{"enc.weight", "enc.bias", "dec.weight"}));
  EXPECT_THROW((*dict)["missing"], IndexError);

  nn::Linear empty{nullptr};
  EXPECT_THROW(empty->forward(x), ValueError);
  EXPECT_THROW(nn::Module().register_parameter("a.b", zeros({1})), ValueError);
}

TEST(NnCppModule, ParameterList) {
  nn::ParameterList pl(TensorList{zeros({2}), ones({3, 1})});
  pl->append(full({1}, 5.0));
  EXPECT_EQ(pl->size(), 3u);
  EXPECT_EQ(keys(pl->named_parameters()), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_TRUE((*pl)[2].requires_grad());
  EXPECT_EQ(pl->str(), "ParameterList((0): [2], (1): [3, 1], (2): [1])");
  EXPECT_THROW((*pl)[3], IndexError);
  Net net;
  nn::ModuleDict holder;
  holder->insert("net", net);
  holder->insert("extra", pl);
  EXPECT_EQ(holder->state_dict().size(), net->state_dict().size() + 3);
}
