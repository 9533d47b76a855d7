// Trains a small CNN on MNIST-like synthetic data from plain C++ (no Python): tc::nn modules,
// tc::data::DataLoader with worker threads, tc::optim::Adam with OneCycleLR, checkpointing.
//   cmake -B build -DTC_EXAMPLES=ON && cmake --build build --target cpp_train_mnist_like
//   build/cpp_train_mnist_like [epochs] [checkpoint.safetensors|.pt]
#include <cstdio>
#include <string>

#include <tensorcore/nn/nn.h>
#include <tensorcore/tensorcore.h>

namespace nn = tc::nn;

// Ten 28x28 "digits": a fixed random stroke template per class, randomly shifted by up to 3
// pixels, scaled and with noise, so the task needs translation-tolerant features.
class SyntheticDigits : public tc::data::Dataset<tc::TensorList> {
 public:
  SyntheticDigits(size_t n, uint64_t seed) : n_(n), seed_(seed) {
    auto g = std::make_shared<tc::Generator>();
    g->manual_seed(1234);  // the same templates for train and test
    templates_ = tc::gt(tc::rand({10, 22, 22}, g), tc::scalar_tensor(0.8));
    templates_ = tc::to_dtype(templates_, tc::DType::Float32);
  }
  tc::TensorList get(size_t i) override {
    // Per-example generator: deterministic and safe to call from several worker threads.
    auto g = std::make_shared<tc::Generator>();
    g->manual_seed(seed_ * 1000003 + i);
    int64_t label = int64_t(i % 10);
    tc::Tensor shift = tc::randint(0, 7, {2}, g);
    int64_t dy = shift.data<int64_t>()[0], dx = shift.data<int64_t>()[1];
    tc::Tensor img = tc::mul(tc::randn({1, 28, 28}, g), 0.3);
    tc::Tensor window = tc::narrow(tc::narrow(img, 1, dy, 22), 2, dx, 22);
    tc::Tensor tmpl = tc::unsqueeze(tc::select(templates_, 0, label), 0);
    tc::add_(window, tc::mul(tmpl, 1.0 + 0.5 * tc::rand({1}, g).item<double>()));
    return {img, tc::scalar_tensor(label, tc::DType::Int64)};
  }
  size_t size() const override { return n_; }

 private:
  size_t n_;
  uint64_t seed_;
  tc::Tensor templates_;
};

struct NetImpl : nn::Module {
  NetImpl() : nn::Module("Net") {
    features = register_module("features", nn::Sequential({
                                               {"conv1", nn::AnyModule(nn::Conv2d(1, 16, 5))},
                                               {"bn1", nn::AnyModule(nn::BatchNorm2d(16))},
                                               {"relu1", nn::AnyModule(nn::ReLU())},
                                               {"pool1", nn::AnyModule(nn::MaxPool2d(2))},
                                               {"conv2", nn::AnyModule(nn::Conv2d(16, 32, 5))},
                                               {"relu2", nn::AnyModule(nn::ReLU())},
                                               {"pool2", nn::AnyModule(nn::MaxPool2d(2))},
                                           }));
    fc = register_module("fc", nn::Linear(32 * 4 * 4, 10));
    dropout = register_module("dropout", nn::Dropout(0.2));
  }
  tc::Tensor forward(const tc::Tensor& x) { return fc(dropout(tc::flatten(features(x), 1))); }
  nn::Sequential features{nullptr};
  nn::Linear fc{nullptr};
  nn::Dropout dropout{nullptr};
};
TC_MODULE(Net);

static double evaluate(Net& net, tc::data::DataLoader<SyntheticDigits>& loader) {
  tc::autograd::NoGradGuard no_grad;
  net->eval();
  double correct = 0, total = 0;
  for (auto& batch : loader) {
    tc::Tensor pred = tc::argmax(net(batch[0]), 1);
    correct += tc::sum(tc::eq(pred, batch[1])).item<double>();
    total += double(batch[1].numel());
  }
  return correct / total;
}

int main(int argc, char** argv) {
  int epochs = argc > 1 ? std::stoi(argv[1]) : 3;
  std::string checkpoint = argc > 2 ? argv[2] : "cpp_train_mnist_like.safetensors";
  tc::manual_seed(0);
  auto train_set = std::make_shared<SyntheticDigits>(6000, 1);
  auto test_set = std::make_shared<SyntheticDigits>(1000, 2);
  tc::data::DataLoader<SyntheticDigits> train(
      train_set, {.batch_size = 64, .shuffle = true, .num_workers = 2});
  tc::data::DataLoader<SyntheticDigits> test(test_set, {.batch_size = 256, .num_workers = 2});

  Net net;
  std::printf("%s\n", net->str().c_str());
  tc::optim::Adam opt(net->parameters(), tc::optim::AdamOpts(1e-3));
  tc::optim::OneCycleLR sched(opt, 5e-3, int64_t(epochs * train.size()));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    net->train();
    double loss_sum = 0;
    size_t steps = 0;
    for (auto& batch : train) {
      opt.zero_grad();
      tc::Tensor loss = nn::functional::cross_entropy(net(batch[0]), batch[1]);
      loss.backward();
      opt.step();
      sched.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    std::printf("epoch %d  loss %.4f  test accuracy %.3f\n", epoch + 1, loss_sum / double(steps),
                evaluate(net, test));
  }
  net->save(checkpoint);
  Net restored;
  restored->load(checkpoint);
  std::printf("restored from %s: test accuracy %.3f\n", checkpoint.c_str(),
              evaluate(restored, test));
  return 0;
}
