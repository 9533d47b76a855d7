#include "tensorcore/ops/random.h"

#include <cmath>
#include <limits>

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc {

KernelTable<RandomFillKernel> random_fill_kernel("random_fill");
KernelTable<BernoulliTensorKernel> bernoulli_tensor_kernel("bernoulli");
KernelTable<RandpermKernel> randperm_kernel("randperm");
KernelTable<MultinomialKernel> multinomial_kernel("multinomial");

namespace {

Generator& gen_for(const GeneratorPtr& g, const Tensor& t, const char* op) {
  Generator& gen = get_generator(g, t.device());
  TC_CHECK(!g || gen.device().type == t.device().type, op, ": expected a '", t.device().str(),
           "' generator but found '", gen.device().str(), "'");
  return gen;
}

// Fills `self` (any layout) through a contiguous buffer.
Tensor& fill_random(Tensor& self, const RandomArgs& args, const GeneratorPtr& g, const char* op) {
  if (self.numel() == 0) return self;
  autograd::record_overwrite(self, op);  // drawn values do not depend on the old ones
  Generator& gen = gen_for(g, self, op);
  PhiloxState st = gen.next();
  autograd::GradModeGuard guard(false);
  if (self.is_contiguous()) {
    random_fill_kernel.get(self.device().type)(self, args, st);
  } else {
    Tensor tmp = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
    random_fill_kernel.get(self.device().type)(tmp, args, st);
    copy_(self, tmp);
  }
  self.bump_version();
  return self;
}

void check_float(const Tensor& t, const char* op) {
  TC_CHECK_TYPE(t.is_floating_point(), op, " expects a floating point tensor, but got ",
                dtype_name(t.dtype()));
}

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad_) t.requires_grad_(true);
  return t;
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "uniform_");
  TC_CHECK_TYPE(self.is_floating_point() || self.is_complex(),
                "uniform_: expects a floating point tensor, got ", dtype_name(self.dtype()));
  TC_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
           " > to=", to);
  if (self.is_complex()) {
    Tensor re = real(self), im = imag(self);
    uniform_(re, from, to, gen);
    uniform_(im, from, to, gen);
    return self;
  }
  RandomArgs a;
  a.dist = RandomDist::Uniform;
  a.a = from;
  a.b = to;
  return fill_random(self, a, gen, "uniform_");
}

Tensor& normal_(Tensor& self, double mean, double std, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "normal_");
  TC_CHECK_TYPE(self.is_floating_point() || self.is_complex(),
                "normal_: expects a floating point tensor, got ", dtype_name(self.dtype()));
  TC_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.is_complex()) {
    // torch: real and imaginary parts each have variance std^2 / 2.
    Tensor re = real(self), im = imag(self);
    normal_(re, mean, std / std::sqrt(2.0), gen);
    normal_(im, 0.0, std / std::sqrt(2.0), gen);
    return self;
  }
  RandomArgs a;
  a.dist = RandomDist::Normal;
  a.a = mean;
  a.b = std;
  return fill_random(self, a, gen, "normal_");
}

Tensor& exponential_(Tensor& self, double lambd, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "exponential_");
  check_float(self, "exponential_");
  TC_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  RandomArgs a;
  a.dist = RandomDist::Exponential;
  a.a = lambd;
  return fill_random(self, a, gen, "exponential_");
}

Tensor& bernoulli_(Tensor& self, double p, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "bernoulli_");
  TC_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  TC_CHECK_TYPE(!self.is_complex(), "bernoulli_: not implemented for dtype ",
                dtype_name(self.dtype()));
  RandomArgs a;
  a.dist = RandomDist::Bernoulli;
  a.a = p;
  return fill_random(self, a, gen, "bernoulli_");
}

Tensor& bernoulli_(Tensor& self, const Tensor& p, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "bernoulli_");
  TC_CHECK_TYPE(!self.is_complex() && !p.is_complex(),
                "bernoulli_: not implemented for complex tensors");
  if (self.numel() == 0) return self;
  Generator& g = gen_for(gen, self, "bernoulli_");
  autograd::GradModeGuard guard(false);
  Tensor pc = contiguous(to_dtype(broadcast_to(p.detach(), self.sizes()), DType::Float64));
  if (pc.is_cpu()) {  // the CUDA kernel treats out-of-range p as the nearest bound
    const double* pp = pc.data<double>();
    for (int64_t i = 0; i < pc.numel(); ++i)
      TC_CHECK(pp[i] >= 0 && pp[i] <= 1, "bernoulli: all elements of p must be in [0, 1], got ",
               pp[i]);
  }
  PhiloxState st = g.next();
  Tensor out = self.is_contiguous()
                   ? self
                   : empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  bernoulli_tensor_kernel.get(self.device().type)(out, pc, st);
  if (!out.is_same(self)) copy_(self, out);
  self.bump_version();
  return self;
}

Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, const GeneratorPtr& gen) {
  autograd::check_inplace(self, "random_");
  TC_CHECK_TYPE(!self.is_complex(), "random_: not implemented for dtype ",
                dtype_name(self.dtype()));
  RandomArgs a;
  a.dist = RandomDist::Integer;
  a.lo = from;
  if (to) {
    TC_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", *to);
    a.range = uint64_t(*to) - uint64_t(from);
  } else {
    // [from, max of dtype] (floats: 2^mantissa+1 as in torch)
    int64_t hi;
    switch (self.dtype()) {
      case DType::Bool:
        hi = 1;
        break;
      case DType::UInt8:
        hi = 255;
        break;
      case DType::Int8:
        hi = 127;
        break;
      case DType::Int16:
        hi = 32767;
        break;
      case DType::UInt16:
        hi = 65535;
        break;
      case DType::Int32:
        hi = std::numeric_limits<int32_t>::max();
        break;
      case DType::Float16:
        hi = int64_t(1) << 11;
        break;
      case DType::BFloat16:
        hi = int64_t(1) << 8;
        break;
      case DType::Float32:
        hi = int64_t(1) << 24;
        break;
      case DType::Float64:
        hi = int64_t(1) << 53;
        break;
      default:
        hi = std::numeric_limits<int64_t>::max();
        break;
    }
    TC_CHECK(from <= hi,
             "random_ expects 'from' to be less than or equal to the maximum of the dtype");
    a.range = uint64_t(hi) - uint64_t(from) + 1;  // 0 means the full 2^64 range
  }
  return fill_random(self, a, gen, "random_");
}

Tensor& random_(Tensor& self, const GeneratorPtr& gen) {
  return random_(self, 0, std::nullopt, gen);
}

Tensor rand(const Shape& size, const GeneratorPtr& gen, TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  uniform_(t, 0, 1, gen);
  return finish(t, opts);
}

Tensor randn(const Shape& size, const GeneratorPtr& gen, TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  normal_(t, 0, 1, gen);
  return finish(t, opts);
}

Tensor randint(int64_t low, int64_t high, const Shape& size, const GeneratorPtr& gen,
               TensorOptions opts) {
  TC_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low,
           " >= to=", high);
  Tensor t = empty(size, opts.requires_grad(false));
  random_(t, low, high, gen);
  return finish(t, opts);
}

Tensor randperm(int64_t n, const GeneratorPtr& gen, TensorOptions opts) {
  TC_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  Tensor idx = empty({n}, TensorOptions(DType::Int64).device(opts.device_));
  if (n > 0) {
    Generator& g = gen_for(gen, idx, "randperm");
    randperm_kernel.get(idx.device().type)(idx, g.next());
  }
  return finish(to_dtype(idx, opts.dtype_), opts);
}

static TensorOptions like_opts(const Tensor& t, const std::optional<TensorOptions>& o) {
  return o ? *o : TensorOptions(t.dtype()).device(t.device());
}

Tensor rand_like(const Tensor& t, const GeneratorPtr& gen, std::optional<TensorOptions> opts) {
  return rand(t.sizes(), gen, like_opts(t, opts));
}
Tensor randn_like(const Tensor& t, const GeneratorPtr& gen, std::optional<TensorOptions> opts) {
  return randn(t.sizes(), gen, like_opts(t, opts));
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const GeneratorPtr& gen,
                    std::optional<TensorOptions> opts) {
  return randint(low, high, t.sizes(), gen, like_opts(t, opts));
}

namespace {
// As torch: a negative (or NaN) standard deviation is an error, not a silently flipped sample.
void check_std_tensor(const Tensor& std) {
  if (std.numel() == 0) return;
  const double lo = amin(std.detach()).item<double>();
  TC_CHECK(lo >= 0.0, "normal expects all elements of std >= 0.0, but found ", lo);
}
}  // namespace

Tensor normal(const Tensor& mean, const Tensor& std, const GeneratorPtr& gen) {
  check_float(mean, "normal");
  check_float(std, "normal");
  check_std_tensor(std);
  autograd::GradModeGuard guard(false);
  Tensor eps = randn_like(add(zeros_like(mean), zeros_like(std)), gen);
  return add(mean, mul(eps, std));
}

Tensor normal(const Tensor& mean, double std, const GeneratorPtr& gen) {
  TC_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  check_float(mean, "normal");
  autograd::GradModeGuard guard(false);
  return add(mean, mul(randn_like(mean, gen), std));
}

Tensor normal(double mean, const Tensor& std, const GeneratorPtr& gen) {
  check_float(std, "normal");
  check_std_tensor(std);
  autograd::GradModeGuard guard(false);
  return add(mul(randn_like(std, gen), std), mean);
}

Tensor normal(double mean, double std, const Shape& size, const GeneratorPtr& gen,
              TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  normal_(t, mean, std, gen);
  return finish(t, opts);
}

Tensor bernoulli(const Tensor& p, const GeneratorPtr& gen) {
  check_float(p, "bernoulli");
  Tensor out = empty(p.sizes(), TensorOptions(p.dtype()).device(p.device()));
  return bernoulli_(out, p, gen);
}

Tensor bernoulli(const Tensor& input, double p, const GeneratorPtr& gen) {
  Tensor out = empty(input.sizes(), TensorOptions(input.dtype()).device(input.device()));
  return bernoulli_(out, p, gen);
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement,
                   const GeneratorPtr& gen) {
  TC_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got ",
           probs.dim());
  TC_CHECK_TYPE(probs.is_floating_point(),
                "multinomial only supports floating-point dtypes for input, got: ",
                dtype_name(probs.dtype()));
  TC_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  int64_t ncat = probs.size(-1);
  TC_CHECK(ncat > 0, "multinomial: number of categories cannot be zero");
  TC_CHECK(replacement || num_samples <= ncat,
           "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  autograd::GradModeGuard guard(false);
  Tensor p2 = contiguous(
      to_dtype(probs.dim() == 1 ? unsqueeze(probs.detach(), 0) : probs.detach(), DType::Float64));
  Tensor out = empty({p2.size(0), num_samples}, TensorOptions(DType::Int64).device(probs.device()));
  Generator& g = gen_for(gen, probs, "multinomial");
  multinomial_kernel.get(probs.device().type)(out, p2, replacement, g.next());
  return probs.dim() == 1 ? squeeze(out, 0) : out;
}

}  // namespace tc
