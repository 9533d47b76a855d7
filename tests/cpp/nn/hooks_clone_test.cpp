// Forward pre/post hooks and Module::clone (deep copies) in the C++ frontend.
#include <gtest/gtest.h>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && allclose(a, b, 0, 0);
}

struct TwoLayerImpl : nn::Cloneable<TwoLayerImpl> {
  explicit TwoLayerImpl(int64_t hidden) : Cloneable("TwoLayer"), hidden(hidden) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", nn::Linear(3, hidden));
    bn = register_module("bn", nn::BatchNorm1d(hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, 2));
    scale = register_parameter("scale", ones({1}));
    register_buffer("calls", zeros({1}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) { return mul(fc2(relu(bn(fc1(x)))), scale); }
  int64_t hidden;
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::BatchNorm1d bn{nullptr};
  Tensor scale;
};
TC_MODULE(TwoLayer);

struct PlainImpl : nn::Module {
  PlainImpl() : nn::Module("Plain") { register_module("fc", nn::Linear(2, 2)); }
  Tensor forward(const Tensor& x) { return x; }
};
TC_MODULE(Plain);

}  // namespace

TEST(NnCppHooks, PreAndPostHooksModifyAndRemove) {
  nn::Linear lin(3, 2);
  Tensor x = randn({4, 3});
  Tensor base = lin(x);
  std::vector<std::string> order;
  auto pre = lin->register_forward_pre_hook([&](nn::Module& m, TensorList& in) {
    order.push_back("pre:" + m.name());
    ASSERT_EQ(in.size(), 1u);
    in[0] = mul(in[0], 2.0);  // replaces the input
  });
  auto post = lin->register_forward_hook([&](nn::Module&, const TensorList& in, TensorList& out) {
    order.push_back("post");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(same(in[0], mul(x, 2.0)));  // the hook sees the replaced input
    out[0] = add(out[0], 1.0);
  });
  Tensor y = lin(x);
  // lin(2x) + 1 = 2 (xW^T) + b + 1
  Tensor expect = add(add(mul(sub(base, lin->bias), 2.0), lin->bias), 1.0);
  EXPECT_TRUE(allclose(y, expect, 1e-5, 1e-6));
  EXPECT_EQ(order, (std::vector<std::string>{"pre:Linear", "post"}));
  // Direct forward bypasses hooks, as torch's Module.forward does.
  EXPECT_TRUE(same(lin->forward(x), base));
  pre.remove();
  post.remove();
  post.remove();  // removing twice is a no-op
  EXPECT_FALSE(lin->has_forward_hooks());
  EXPECT_TRUE(same(lin(x), base));
  // Gradients flow through what a hook substituted.
  Tensor w = lin->weight;
  auto h = lin->register_forward_hook(
      [](nn::Module&, const TensorList&, TensorList& out) { out[0] = mul(out[0], 3.0); });
  sum(lin(x)).backward();
  Tensor gw = w.grad();
  lin->zero_grad();
  h.remove();
  sum(mul(lin(x), 3.0)).backward();
  EXPECT_TRUE(allclose(gw, w.grad(), 1e-6, 1e-6));
}

TEST(NnCppHooks, SequentialChildrenTuplesAndErrors) {
  nn::Sequential seq({nn::AnyModule(nn::Linear(3, 4)), nn::AnyModule(nn::ReLU()),
                      nn::AnyModule(nn::Linear(4, 2))});
  int relu_calls = 0;
  Tensor seen;
  auto h = seq->operator[](1)->register_forward_hook(
      [&](nn::Module& m, const TensorList&, TensorList& out) {
        EXPECT_EQ(m.name(), "ReLU");
        ++relu_calls;
        seen = out[0];
      });
  Tensor x = randn({5, 3});
  seq(x);
  EXPECT_EQ(relu_calls, 1);
  EXPECT_TRUE(same(seen, relu(seq->ptr<nn::LinearImpl>(0)->forward(x))));
  h.remove();

  // A tuple-returning module: outputs are flattened (out, h_n, c_n).
  nn::LSTM lstm(3, 4);
  std::vector<Shape> shapes;
  lstm->register_forward_hook([&](nn::Module&, const TensorList& in, TensorList& out) {
    EXPECT_EQ(in.size(), 1u);  // h0/c0 defaulted: only the given argument
    for (auto& t : out) shapes.push_back(t.sizes());
    out[1] = zeros_like(out[1]);  // replace h_n
  });
  auto [out, state] = lstm(randn({6, 2, 3}));
  EXPECT_EQ(shapes, (std::vector<Shape>{{6, 2, 4}, {1, 2, 4}, {1, 2, 4}}));
  EXPECT_EQ(sum(abs(std::get<0>(state))).item<double>(), 0.0);

  nn::Linear lin(2, 2);
  lin->register_forward_hook(
      [](nn::Module&, const TensorList&, TensorList& out) { out.push_back(out[0]); });
  EXPECT_THROW(lin(randn({1, 2})), ValueError);
}

TEST(NnCppClone, LayersAreDeepCopies) {
  nn::Linear lin(4, 3);
  sum(lin(randn({2, 4}))).backward();
  nn::Linear copy = lin.clone();
  ASSERT_NE(copy.ptr(), lin.ptr());
  EXPECT_NE(copy->weight.impl(), lin->weight.impl());
  EXPECT_TRUE(same(copy->weight, lin->weight));
  EXPECT_TRUE(same(copy->weight.grad(), lin->weight.grad()));
  EXPECT_TRUE(copy->weight.requires_grad());
  // Independent storage: changing the copy leaves the original alone.
  {
    autograd::NoGradGuard g;
    fill_(copy->weight, 0.5);
  }
  EXPECT_FALSE(same(copy->weight, lin->weight));
  EXPECT_EQ(copy->parameters()[0].impl(), copy->weight.impl());  // members and registry agree

  // Buffers, eval mode and dtype conversions carry over.
  nn::BatchNorm2d bn(3);
  bn(randn({4, 3, 5, 5}));
  bn->eval();
  bn->to(DType::Float64);
  nn::BatchNorm2d bn2 = bn.clone();
  EXPECT_FALSE(bn2->is_training());
  EXPECT_EQ(bn2->running_mean.dtype(), DType::Float64);
  EXPECT_TRUE(same(bn2->running_var, bn->running_var));
  EXPECT_EQ(bn2->num_batches_tracked.item<int64_t>(), 1);
  Tensor xb = randn({2, 3, 5, 5}, {}, DType::Float64);
  EXPECT_TRUE(same(bn2(xb), bn(xb)));

  nn::LSTM lstm(nn::RNNOptions{3, 5, 2, true, true, 0.0, true});
  nn::LSTM lstm2 = lstm.clone();
  Tensor xs = randn({2, 4, 3});
  EXPECT_TRUE(same(std::get<0>(lstm2(xs)), std::get<0>(lstm(xs))));
  EXPECT_EQ(lstm2->state_dict().size(), lstm->state_dict().size());
}

TEST(NnCppClone, ContainersTransformerAndUserModules) {
  nn::Sequential seq({{"fc", nn::AnyModule(nn::Linear(3, 4))},
                      {"act", nn::AnyModule([](const Tensor& t) { return mul(t, 2.0); })},
                      {"out", nn::AnyModule(nn::Linear(4, 2))}});
  nn::Sequential seq2 = seq.clone();
  Tensor x = randn({5, 3});
  EXPECT_TRUE(same(seq2(x), seq(x)));
  auto sd1 = seq->state_dict(), sd2 = seq2->state_dict();
  ASSERT_EQ(sd1.size(), sd2.size());
  for (size_t i = 0; i < sd1.size(); ++i) {
    EXPECT_EQ(sd1[i].first, sd2[i].first);
    EXPECT_NE(sd1[i].second.impl(), sd2[i].second.impl());
  }
  EXPECT_NE(seq2->ptr<nn::LinearImpl>(0).get(), seq->ptr<nn::LinearImpl>(0).get());

  nn::TransformerEncoderLayerOptions o{8, 2, 16, 0.0};
  nn::TransformerEncoder enc(o, 2, true);
  nn::TransformerEncoder enc2 = enc.clone();
  Tensor src = randn({4, 3, 8});
  EXPECT_TRUE(same(enc2(src), enc(src)));

  TwoLayer net(6);
  net(randn({8, 3}));  // running stats
  net->eval();
  TwoLayer net2 = net.clone();
  EXPECT_EQ(net2->hidden, 6);
  EXPECT_NE(net2->fc1.ptr(), net->fc1.ptr());
  EXPECT_NE(net2->scale.impl(), net->scale.impl());
  Tensor xi = randn({4, 3});
  EXPECT_TRUE(same(net2(xi), net(xi)));
  EXPECT_FALSE(net2->bn->is_training());
  EXPECT_EQ(net2->named_buffers().size(),
            net->named_buffers().size());  // the non-persistent one too

  Plain plain;
  EXPECT_THROW(plain->clone(), NotImplementedError);
}
