#include "tensorcore/ops/creation.h"

#include <cmath>

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {

namespace {
DType g_default_dtype = DType::Float32;

Tensor finish(Tensor t, const TensorOptions& opts) {
  if (opts.requires_grad_) t.requires_grad_(true);
  return t;
}
}  // namespace

DType get_default_dtype() { return g_default_dtype; }
void set_default_dtype(DType d) {
  TC_CHECK_TYPE(is_floating(d),
                "set_default_dtype: only floating point types are supported as "
                "the default type (got ",
                dtype_name(d), ")");
  g_default_dtype = d;
}

Tensor empty(const Shape& sizes, TensorOptions opts) {
  return finish(empty_strided_raw(sizes, contiguous_strides(sizes), opts.dtype_, opts.device_),
                opts);
}

Tensor empty_strided(const Shape& sizes, const Shape& strides, TensorOptions opts) {
  TC_CHECK(sizes.size() == strides.size(), "empty_strided: ", sizes.size(), " sizes but ",
           strides.size(), " strides");
  return finish(empty_strided_raw(sizes, strides, opts.dtype_, opts.device_), opts);
}

Tensor fill_(Tensor& t, const Scalar& value) {
  autograd::check_inplace(t, "fill_");
  fill_kernel.get(t.device().type)(t, value);
  t.bump_version();
  autograd::record_overwrite(t, "fill_");
  return t;
}

Tensor zero_(Tensor& t) { return fill_(t, 0); }

Tensor zeros(const Shape& sizes, TensorOptions opts) {
  Tensor t = empty(sizes, opts.requires_grad(false));
  fill_(t, 0);
  return finish(t, opts);
}

Tensor ones(const Shape& sizes, TensorOptions opts) {
  Tensor t = empty(sizes, opts.requires_grad(false));
  fill_(t, 1);
  return finish(t, opts);
}

Tensor full(const Shape& sizes, const Scalar& value, std::optional<TensorOptions> opts) {
  TensorOptions o = opts.value_or(
      TensorOptions(value.is_floating() ? get_default_dtype() : value.default_dtype()));
  Tensor t = empty(sizes, o.requires_grad(false));
  fill_(t, value);
  return finish(t, o);
}

static TensorOptions like_options(const Tensor& t, const std::optional<TensorOptions>& opts) {
  return opts.value_or(TensorOptions(t.dtype()).device(t.device()));
}

Tensor empty_like(const Tensor& t, std::optional<TensorOptions> opts) {
  TensorOptions o = like_options(t, opts);
  // Keep a dense non-contiguous layout (e.g. channels-last), as torch's preserve_format does.
  Shape strides = contiguous_strides(t.sizes());
  if (!t.is_contiguous()) {
    std::vector<int64_t> perm(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
    Shape st(t.dim());
    int64_t acc = 1;
    for (int64_t k = t.dim() - 1; k >= 0; --k) {
      st[perm[k]] = acc;
      acc *= std::max<int64_t>(t.sizes()[perm[k]], 1);
    }
    bool dense = true;
    for (int64_t d = 0; d < t.dim(); ++d)
      if (t.sizes()[d] > 1 && st[d] != t.strides()[d]) dense = false;
    if (dense) strides = st;
  }
  return finish(empty_strided_raw(t.sizes(), strides, o.dtype_, o.device_), o);
}

Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> opts) {
  TensorOptions o = like_options(t, opts);
  Tensor r = empty_like(t, o.requires_grad(false));
  fill_(r, 0);
  return finish(r, o);
}

Tensor ones_like(const Tensor& t, std::optional<TensorOptions> opts) {
  TensorOptions o = like_options(t, opts);
  Tensor r = empty_like(t, o.requires_grad(false));
  fill_(r, 1);
  return finish(r, o);
}

Tensor full_like(const Tensor& t, const Scalar& value, std::optional<TensorOptions> opts) {
  TensorOptions o = like_options(t, opts);
  Tensor r = empty_like(t, o.requires_grad(false));
  fill_(r, value);
  return finish(r, o);
}

Tensor scalar_tensor(const Scalar& value, std::optional<DType> dtype, Device device, bool wrapped) {
  DType dt = dtype.value_or(value.is_floating()
                                ? DType::Float64
                                : (value.is_complex() ? DType::Complex128 : value.default_dtype()));
  if (wrapped) {
    // Wrapped numbers keep full precision; promotion treats them as the default dtype.
    dt = value.is_floating()  ? DType::Float64
         : value.is_complex() ? DType::Complex128
                              : value.default_dtype();
  }
  Tensor t = empty({}, TensorOptions(dt).device(device));
  fill_(t, value);
  t.impl()->is_wrapped_number = wrapped;
  return t;
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              std::optional<TensorOptions> opts) {
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  TC_CHECK(st != 0, "arange: step must be nonzero");
  TC_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", s, " -> ", e);
  TC_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
           "arange: upper bound and larger bound "
           "inconsistent with step sign (start=",
           s, ", end=", e, ", step=", st, ")");
  bool all_int = start.is_integral() && end.is_integral() && step.is_integral();
  TensorOptions o = opts.value_or(TensorOptions(all_int ? DType::Int64 : get_default_dtype()));
  // Counted in long double (exact for 64-bit integer bounds): the int64 formula overflowed and
  // arange(0, 1e19) silently returned an empty tensor.
  const long double count =
      all_int ? std::ceil((static_cast<long double>(end.to_int()) - start.to_int()) / step.to_int())
              : std::ceil((static_cast<long double>(e) - s) / st);
  TC_CHECK(count < 9.2e18L, "arange: the range start=", s, ", end=", e, ", step=", st, " has ",
           double(count), " elements, too many for a tensor");
  int64_t n = std::max<int64_t>(int64_t(count), 0);
  Tensor host = empty({n}, TensorOptions(o.dtype_));
  dispatch_dtype<kIntegral | kFloating>(o.dtype_, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = host.data<T>();
    if (all_int) {
      int64_t s0 = start.to_int(), d = step.to_int();
      for (int64_t i = 0; i < n; ++i) p[i] = T(s0 + i * d);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = T(s + double(i) * st);
    }
  });
  return finish(to_device(host, o.device_), o);
}

Tensor arange(const Scalar& end, std::optional<TensorOptions> opts) {
  return arange(Scalar(int64_t(0)), end, Scalar(int64_t(1)), opts);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts) {
  TC_CHECK(steps >= 0, "linspace: number of steps must be non-negative (got ", steps, ")");
  Tensor host = empty({steps}, TensorOptions(opts.dtype_));
  double s = start.to_double(), e = end.to_double();
  double step = steps > 1 ? (e - s) / double(steps - 1) : 0.0;
  dispatch_dtype<kIntegral | kFloating | kComplex>(opts.dtype_, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = host.data<T>();
    // Symmetric evaluation from both ends, as torch does, so the last value is exactly `end`.
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      double v = i < half ? s + step * double(i) : e - step * double(steps - 1 - i);
      if constexpr (is_complex_v<T>)
        p[i] = T(typename T::value_type(v), 0);
      else
        p[i] = T(v);
    }
  });
  return finish(to_device(host, opts.device_), opts);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                TensorOptions opts) {
  Tensor lin = linspace(start, end, steps, TensorOptions(DType::Float64));
  double* p = lin.data<double>();
  for (int64_t i = 0; i < steps; ++i) p[i] = std::pow(base, p[i]);
  return finish(to(lin, opts.device_, opts.dtype_), opts);
}

Tensor eye(int64_t n, std::optional<int64_t> m_opt, TensorOptions opts) {
  int64_t m = m_opt.value_or(n);
  TC_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative (got ", n, ", ", m, ")");
  Tensor host = zeros({n, m}, TensorOptions(opts.dtype_));
  dispatch_dtype<kAllTypes>(opts.dtype_, "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = host.data<T>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
  return finish(to_device(host, opts.device_), opts);
}

}  // namespace tc
