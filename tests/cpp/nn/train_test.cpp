// End to end: small models trained in C++ on generated data; state_dict interop with torch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tensorcore/nn/nn.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;
namespace optim = tc::optim;
namespace data = tc::data;

namespace {

double accuracy(const Tensor& logits, const Tensor& y) {
  return mean(to_dtype(eq(argmax(logits, 1), y), DType::Float32)).item<double>();
}

// Four Gaussian blobs in 2-d, one per class.
std::pair<Tensor, Tensor> blobs(int64_t n, const GeneratorPtr& g) {
  Tensor y = randint(0, 4, {n}, g);
  Tensor centers = from_vector<float>({2, 2, -2, 2, -2, -2, 2, -2}, {4, 2});
  Tensor x = add(index_select(centers, 0, y), mul(randn({n, 2}, g), 0.7));
  return {x, y};
}

// 1x8x8 images: a bright horizontal bar (class 0), vertical bar (1), diagonal (2) or blank
// (3) at a random place, plus noise.
std::pair<Tensor, Tensor> bars(int64_t n, const GeneratorPtr& g) {
  Tensor y = randint(0, 4, {n}, g);
  Tensor pos = randint(1, 7, {n}, g);
  Tensor img = mul(randn({n, 1, 8, 8}, g), 0.3);
  float* p = img.data<float>();
  const int64_t* yl = y.data<int64_t>();
  const int64_t* pl = pos.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < 8; ++k) {
      float* im = p + i * 64;
      if (yl[i] == 0)
        im[pl[i] * 8 + k] += 1.5f;
      else if (yl[i] == 1)
        im[k * 8 + pl[i]] += 1.5f;
      else if (yl[i] == 2)
        im[k * 8 + k] += 1.5f;
    }
  return {img, y};
}

struct CnnImpl : nn::Module {
  CnnImpl() : nn::Module("Cnn") {
    features = register_module(
        "features",
        nn::Sequential({nn::AnyModule(nn::Conv2d(1, 8, 3, 1, 1)), nn::AnyModule(nn::BatchNorm2d(8)),
                        nn::AnyModule(nn::ReLU()), nn::AnyModule(nn::MaxPool2d(2))}));
    classifier = register_module(
        "classifier",
        nn::Sequential({nn::AnyModule(nn::Flatten()), nn::AnyModule(nn::Linear(8 * 4 * 4, 4))}));
  }
  Tensor forward(const Tensor& x) { return classifier(features(x)); }
  nn::Sequential features{nullptr}, classifier{nullptr};
};
TC_MODULE(Cnn);

}  // namespace

TEST(NnCppTrain, MlpReachesAccuracy) {
  auto g = std::make_shared<Generator>();
  g->manual_seed(0);
  manual_seed(0);
  auto [x, y] = blobs(512, g);
  auto [xt, yt] = blobs(256, g);
  nn::Sequential mlp({nn::AnyModule(nn::Linear(2, 32)), nn::AnyModule(nn::ReLU()),
                      nn::AnyModule(nn::Linear(32, 4))});
  optim::SGD opt(mlp->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  auto ds = std::make_shared<data::TensorDataset>(TensorList{x, y});
  data::DataLoader<data::TensorDataset> loader(ds,
                                               {.batch_size = 32, .shuffle = true, .generator = g});
  nn::CrossEntropyLoss loss_fn;
  for (int epoch = 0; epoch < 5; ++epoch)
    for (auto& batch : loader) {
      opt.zero_grad();
      Tensor loss = loss_fn(mlp(batch[0]), batch[1]);
      loss.backward();
      opt.step();
    }
  autograd::NoGradGuard ng;
  EXPECT_GT(accuracy(mlp(xt), yt), 0.9);
}

TEST(NnCppTrain, CnnReachesAccuracyWithWorkers) {
  auto g = std::make_shared<Generator>();
  g->manual_seed(1);
  manual_seed(1);
  auto [x, y] = bars(512, g);
  auto [xt, yt] = bars(256, g);
  Cnn net;
  optim::Adam opt(net->parameters(), optim::AdamOpts(1e-2));
  optim::StepLR sched(opt, 3, 0.5);
  auto ds = std::make_shared<data::TensorDataset>(TensorList{x, y});
  data::DataLoader<data::TensorDataset> loader(
      ds, {.batch_size = 32, .shuffle = true, .num_workers = 2, .generator = g});
  for (int epoch = 0; epoch < 6; ++epoch) {
    net->train();
    for (auto& batch : loader) {
      opt.zero_grad();
      Tensor loss = nn::functional::cross_entropy(net(batch[0]), batch[1]);
      loss.backward();
      opt.step();
    }
    sched.step();
  }
  net->eval();
  autograd::NoGradGuard ng;
  EXPECT_GT(accuracy(net(xt), yt), 0.9);
}

// Interop with torch: driven by tests/python/nn/cpp/test_nncpp_interop.py, which writes torch's
// state_dict and a reference input/output into $NNCPP_INTEROP_DIR and checks what this writes.
namespace {
struct InteropNetImpl : nn::Module {
  InteropNetImpl() : nn::Module("InteropNet") {
    features = register_module(
        "features",
        nn::Sequential({nn::AnyModule(nn::Conv2d(3, 4, 3, 1, 1)), nn::AnyModule(nn::BatchNorm2d(4)),
                        nn::AnyModule(nn::ReLU()), nn::AnyModule(nn::MaxPool2d(2))}));
    classifier = register_module("classifier", nn::Linear(64, 5));
    rnn = register_module("rnn", nn::LSTM(5, 6, 2));
    ln = register_module("ln", nn::LayerNorm(nn::IntList{6}));
  }
  Tensor forward(const Tensor& x) {
    Tensor c = classifier(flatten(features(x), 1));
    Tensor seq = repeat(unsqueeze(c, 0), {3, 1, 1});
    Tensor out = std::get<0>(rnn(seq));
    return ln(select(out, 0, 2));
  }
  nn::Sequential features{nullptr};
  nn::Linear classifier{nullptr};
  nn::LSTM rnn{nullptr};
  nn::LayerNorm ln{nullptr};
};
TC_MODULE(InteropNet);

Tensor find(const serialize::NamedTensors& v, const std::string& key) {
  for (auto& [k, t] : v)
    if (k == key) return t;
  throw IndexError("missing " + key);
}
}  // namespace

TEST(NnCppInterop, TorchStateDictBothWays) {
  const char* dir_env = std::getenv("NNCPP_INTEROP_DIR");
  if (!dir_env) GTEST_SKIP() << "run by tests/python/nn/cpp/test_nncpp_interop.py";
  std::filesystem::path dir(dir_env);
  // torch -> C++
  InteropNet net;
  net->load(dir / "torch_sd.pt");
  net->eval();
  auto io = serialize::load(dir / "torch_io.pt");
  Tensor y = net(find(io, "x"));
  EXPECT_TRUE(allclose(y, find(io, "y"), 1e-4, 1e-5));
  // C++ -> torch
  manual_seed(5);
  InteropNet mine;
  mine->train();
  Tensor xb = randn({4, 3, 8, 8});
  mine(xb);  // moves BatchNorm's running stats
  mine->eval();
  Tensor x = randn({2, 3, 8, 8});
  mine->save(dir / "cpp_sd.pt");
  mine->save(dir / "cpp_sd.safetensors");
  serialize::save({{"x", x}, {"y", mine(x).detach()}}, dir / "cpp_io.pt");
}

namespace {
// Mirrors SeqNet in tests/python/nn/cpp/test_nncpp_interop.py (dropout 0, run in train mode so
// torch takes its regular, not its fused inference, path).
struct SeqNetImpl : nn::Module {
  SeqNetImpl() : nn::Module("SeqNet") {
    emb = register_module("emb", nn::Embedding(20, 8, 0));
    enc = register_module("enc", nn::TransformerEncoder(
                                     nn::TransformerEncoderLayerOptions{8, 2, 16, 0.0, "gelu", 1e-5,
                                                                        /*batch_first=*/true,
                                                                        /*norm_first=*/true},
                                     2, /*final_norm=*/true));
    gru = register_module("gru", nn::GRU(nn::RNNOptions{8, 5, 2, true, /*batch_first=*/true, 0.0,
                                                        /*bidirectional=*/true}));
    up = register_module("up", nn::ConvTranspose2d(1, 2, 3, 2, 1, 1));
    gn = register_module("gn", nn::GroupNorm(2, 2));
  }
  Tensor forward(const Tensor& tokens) {
    Tensor x = enc(emb(tokens), Tensor(), eq(tokens, scalar_tensor(int64_t(0), DType::Int64)));
    Tensor out = std::get<0>(gru(x));  // [N, T, 10]
    return gn(up(unsqueeze(out, 1)));  // [N, 2, 2T, 20]
  }
  nn::Embedding emb{nullptr};
  nn::TransformerEncoder enc{nullptr};
  nn::GRU gru{nullptr};
  nn::ConvTranspose2d up{nullptr};
  nn::GroupNorm gn{nullptr};
};
TC_MODULE(SeqNet);
}  // namespace

TEST(NnCppInterop, TorchSequenceModelMatches) {
  const char* dir_env = std::getenv("NNCPP_INTEROP_DIR");
  if (!dir_env) GTEST_SKIP() << "run by tests/python/nn/cpp/test_nncpp_interop.py";
  std::filesystem::path dir(dir_env);
  SeqNet net;
  net->load(dir / "torch_seq_sd.pt");
  auto io = serialize::load(dir / "torch_seq_io.pt");
  Tensor y = net(find(io, "tokens"));
  Tensor ref = find(io, "y");
  ASSERT_EQ(y.sizes(), ref.sizes());
  EXPECT_TRUE(allclose(y, ref, 1e-4, 1e-5)) << "max diff " << amax(abs(sub(y, ref))).item<double>();
}
