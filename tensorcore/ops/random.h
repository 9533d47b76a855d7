#pragma once
// Random sampling (torch names). Every op takes an optional generator; none = the default CPU
// generator (tc::default_generator()).
#include <optional>
#include <string>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/options.h"

namespace tc {

Tensor rand(const Shape& size, const GeneratorPtr& gen = {}, TensorOptions opts = {});
Tensor randn(const Shape& size, const GeneratorPtr& gen = {}, TensorOptions opts = {});
Tensor randint(int64_t low, int64_t high, const Shape& size, const GeneratorPtr& gen = {},
               TensorOptions opts = TensorOptions(DType::Int64));
Tensor randperm(int64_t n, const GeneratorPtr& gen = {},
                TensorOptions opts = TensorOptions(DType::Int64));
Tensor rand_like(const Tensor& t, const GeneratorPtr& gen = {},
                 std::optional<TensorOptions> opts = {});
Tensor randn_like(const Tensor& t, const GeneratorPtr& gen = {},
                  std::optional<TensorOptions> opts = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const GeneratorPtr& gen = {},
                    std::optional<TensorOptions> opts = {});
Tensor normal(const Tensor& mean, const Tensor& std, const GeneratorPtr& gen = {});
Tensor normal(const Tensor& mean, double std = 1.0, const GeneratorPtr& gen = {});
Tensor normal(double mean, const Tensor& std, const GeneratorPtr& gen = {});
Tensor normal(double mean, double std, const Shape& size, const GeneratorPtr& gen = {},
              TensorOptions opts = {});
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, const GeneratorPtr& gen = {});
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, const GeneratorPtr& gen = {});
Tensor& exponential_(Tensor& self, double lambd = 1, const GeneratorPtr& gen = {});
Tensor& bernoulli_(Tensor& self, double p = 0.5, const GeneratorPtr& gen = {});
Tensor& bernoulli_(Tensor& self, const Tensor& p, const GeneratorPtr& gen = {});
// Integers in [from, to); without `to`, [from, max] (torch.Tensor.random_(from, to)).
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to,
                const GeneratorPtr& gen = {});
// [0, 2^mantissa] for floating dtypes, [0, max] for integers.
Tensor& random_(Tensor& self, const GeneratorPtr& gen = {});
Tensor bernoulli(const Tensor& p, const GeneratorPtr& gen = {});
Tensor bernoulli(const Tensor& input, double p, const GeneratorPtr& gen = {});
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   const GeneratorPtr& gen = {});

// Test hook: the fills' own math elementwise on a float32/float64 CPU tensor, "log" (of u in
// (0, 1]), "sin" / "cos" (of 2 pi v, v in [0, 1)); checked against NumPy by the tests.
Tensor random_math_probe(const std::string& fn, const Tensor& x);

enum class RandomDist : int8_t { Uniform, Normal, Exponential, Bernoulli, Integer };
struct RandomArgs {
  RandomDist dist = RandomDist::Uniform;
  double a = 0,
         b = 1;  // uniform [a, b), normal (mean a, std b), exponential (lambda a), bernoulli (p a)
  int64_t lo = 0;  // integer: lo + [0, range)
  uint64_t range = 0;
};
// out: contiguous. p (bernoulli_tensor): contiguous float64 with out's shape.
using RandomFillKernel = void (*)(const Tensor& out, const RandomArgs& args, PhiloxState st);
using BernoulliTensorKernel = void (*)(const Tensor& out, const Tensor& p, PhiloxState st);
using RandpermKernel = void (*)(const Tensor& out, PhiloxState st);
// probs: contiguous float64 [rows, n]; out: contiguous int64 [rows, num_samples].
using MultinomialKernel = void (*)(const Tensor& out, const Tensor& probs, bool replacement,
                                   PhiloxState st);
extern KernelTable<RandomFillKernel> random_fill_kernel;
extern KernelTable<BernoulliTensorKernel> bernoulli_tensor_kernel;
extern KernelTable<RandpermKernel> randperm_kernel;
extern KernelTable<MultinomialKernel> multinomial_kernel;

}  // namespace tc
