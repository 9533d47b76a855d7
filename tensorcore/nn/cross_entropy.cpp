// Fused cross-entropy for class-index targets: one kernel computes each row's log-sum-exp and
// its (label-smoothed, weighted) loss, and the backward writes softmax - one-hot scaled in one
// pass, instead of log_softmax + gather + reductions as separate ops. Rows are [M, C] (any
// spatial dims are moved behind the class dim first). Under create_graph the backward is the same
// formula in differentiable tensor ops.
#include <cmath>
#include <limits>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nnfused/activation.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {
namespace {

namespace vm = tc::vec_math;

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TC_CE_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define TC_CE_CLONES
#endif

// Per-row kernels with 8 independent accumulators (the reductions vectorize without
// -ffast-math). `w` is the class-weight vector or null.
#define TC_CE_ROWS(T)                                                                          \
  TC_CE_CLONES T ce_row_lse(const T* __restrict x, int64_t C) {                                \
    T m[8];                                                                                    \
    for (int k = 0; k < 8; ++k) m[k] = -std::numeric_limits<T>::infinity();                    \
    int64_t c = 0;                                                                             \
    for (; c + 8 <= C; c += 8)                                                                 \
      for (int k = 0; k < 8; ++k) m[k] = x[c + k] > m[k] ? x[c + k] : m[k];                    \
    T mx = m[0];                                                                               \
    for (int k = 1; k < 8; ++k) mx = m[k] > mx ? m[k] : mx;                                    \
    for (; c < C; ++c) mx = x[c] > mx ? x[c] : mx;                                             \
    if (std::isinf(mx)) return mx; /* all -inf (or a +inf): torch gives the same inf/nan */    \
    T s[8] = {};                                                                               \
    c = 0;                                                                                     \
    for (; c + 8 <= C; c += 8)                                                                 \
      for (int k = 0; k < 8; ++k) s[k] += vm::exp(x[c + k] - mx);                              \
    T total = 0;                                                                               \
    for (int k = 0; k < 8; ++k) total += s[k];                                                 \
    for (; c < C; ++c) total += vm::exp(x[c] - mx);                                            \
    return mx + std::log(total);                                                               \
  }                                                                                            \
  TC_CE_CLONES T ce_row_dot(const T* __restrict x, const T* __restrict w, int64_t C) {         \
    T s[8] = {};                                                                               \
    int64_t c = 0;                                                                             \
    if (w) {                                                                                   \
      for (; c + 8 <= C; c += 8)                                                               \
        for (int k = 0; k < 8; ++k) s[k] += w[c + k] * x[c + k];                               \
    } else {                                                                                   \
      for (; c + 8 <= C; c += 8)                                                               \
        for (int k = 0; k < 8; ++k) s[k] += x[c + k];                                          \
    }                                                                                          \
    T total = 0;                                                                               \
    for (int k = 0; k < 8; ++k) total += s[k];                                                 \
    for (; c < C; ++c) total += w ? w[c] * x[c] : x[c];                                        \
    return total;                                                                              \
  }                                                                                            \
  /* g[c] = p_c * a_all - b * w_c, p_c = exp(x_c - lse) */                                     \
  TC_CE_CLONES void ce_row_grad(const T* __restrict x, const T* __restrict w, T* __restrict g, \
                                int64_t C, T lse, T a_all, T b) {                              \
    if (w)                                                                                     \
      for (int64_t c = 0; c < C; ++c) g[c] = vm::exp(x[c] - lse) * a_all - b * w[c];           \
    else                                                                                       \
      for (int64_t c = 0; c < C; ++c) g[c] = vm::exp(x[c] - lse) * a_all - b;                  \
  }
TC_CE_ROWS(float)
TC_CE_ROWS(double)
#undef TC_CE_ROWS

// The dtypes these kernels run in (callers check them first).
constexpr uint32_t kF32F64 = kFloating & ~kReducedFloat;

int64_t grain_rows(int64_t C) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(C, 1)); }

// What the backward needs besides the logits.
struct Saved {
  Tensor lse, row_weight, target;  // [M] (value dtype), [M] (value dtype), [M] int64
  Tensor weight;                   // [C] or undefined
  double denom = 1;                // mean: sum of row weights
  double label_smoothing = 0;
  std::string reduction;
};

// Gradient wrt the [M, C] logits for the output gradient `g` (shape [M] for "none", scalar
// otherwise), with the fused kernel.
Tensor grad_kernel(const Tensor& x, const Tensor& g_in, const Saved& s) {
  const int64_t M = x.size(0), C = x.size(1);
  Tensor gx = empty_like(x);
  Tensor g = contiguous(to_dtype(g_in.detach(), x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), "cross_entropy backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    const T* gd = g.data<T>();
    const T* lse = s.lse.data<T>();
    const T* rw = s.row_weight.data<T>();
    const int64_t* tg = s.target.data<int64_t>();
    Tensor wc = s.weight.defined() ? contiguous(to_dtype(s.weight, x.dtype())) : Tensor();
    const T* w = wc.defined() ? wc.data<T>() : nullptr;
    T W = T(C);
    if (w) {
      W = 0;
      for (int64_t c = 0; c < C; ++c) W += w[c];
    }
    const bool per_row = s.reduction == "none";
    const T scale = s.reduction == "mean" ? T(1.0 / s.denom) : T(1);
    const T ls = T(s.label_smoothing);
    T* out = gx.data<T>();
    parallel_for(0, M, grain_rows(C), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        T* gr = out + r * C;
        if (tg[r] < 0) {  // ignored row
          std::fill(gr, gr + C, T(0));
          continue;
        }
        const T sr = (per_row ? gd[r] : gd[0]) * scale;
        const T a = sr * (T(1) - ls) * rw[r];
        const T bb = sr * ls / T(C);
        ce_row_grad(xd + r * C, w, gr, C, lse[r], a + bb * W, bb);
        gr[tg[r]] -= a;
      }
    });
  });
  return gx;
}

// The same gradient in differentiable tensor ops (for create_graph).
Tensor grad_ops(const Tensor& x, const Tensor& g, const Saved& s) {
  const int64_t M = x.size(0), C = x.size(1);
  Tensor p = nnfused::softmax(x, 1);
  Tensor valid = to_dtype(ge(s.target, scalar_tensor(int64_t(0), DType::Int64)), x.dtype());
  Tensor safe = clamp(s.target, Scalar(int64_t(0)), std::nullopt);
  Tensor onehot = to_dtype(eq(unsqueeze(arange(C), 0), unsqueeze(safe, 1)), x.dtype());
  Tensor gr = s.reduction == "none" ? g : mul(ones({M}, x.dtype()), g);  // broadcast the scalar
  if (s.reduction == "mean") gr = div(gr, s.denom);
  Tensor a = mul(mul(gr, s.row_weight), 1 - s.label_smoothing);  // [M]
  Tensor b = mul(mul(gr, valid), s.label_smoothing / double(C));
  Tensor wv = s.weight.defined() ? to_dtype(s.weight, x.dtype()) : ones({C}, x.dtype());
  Tensor W = sum(wv);
  Tensor out = mul(p, unsqueeze(add(a, mul(b, W)), 1));
  out = sub(out, mul(unsqueeze(b, 1), unsqueeze(wv, 0)));
  return sub(out, mul(unsqueeze(a, 1), onehot));
}

}  // namespace

Tensor cross_entropy_fused(const Tensor& input, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, const std::string& reduction,
                           double label_smoothing) {
  const char* op = "cross_entropy";
  TC_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", op, ": ", reduction,
           " is not a valid value for reduction");
  TC_CHECK(label_smoothing >= 0 && label_smoothing <= 1, op,
           ": label_smoothing must be in [0, 1], got ", label_smoothing);
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": the fused kernel takes float32 or float64 input, got ",
                dtype_name(input.dtype()));
  TC_CHECK(input.is_cpu(), op, ": the fused kernel runs on the CPU");
  TC_CHECK(input.dim() >= 1, op, ": input must have a class dim, got a 0-d tensor");
  TC_CHECK_TYPE(target.dtype() == DType::Int64, op,
                ": expected int64 class indices as target, got ", dtype_name(target.dtype()));
  // [M, C] rows and [M] targets.
  const bool unbatched = input.dim() == 1;
  const int64_t C = unbatched ? input.size(0) : input.size(1);
  Shape target_shape = input.sizes();
  if (unbatched) {
    target_shape.clear();
  } else {
    target_shape.erase(target_shape.begin() + 1);
  }
  TC_CHECK(target.sizes() == target_shape, op, ": expected target of shape ",
           shape_str(target_shape), " for input of shape ", shape_str(input.sizes()), ", but got ",
           shape_str(target.sizes()));
  if (weight.defined())
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, op,
             ": weight tensor should be defined either for all ", C,
             " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
  auto to_rows = [C](const Tensor& t) {
    if (t.dim() <= 2) return contiguous(reshape(t, {-1, C}));
    return contiguous(reshape(movedim(t, {1}, {-1}), {-1, C}));
  };
  Tensor x = to_rows(input.detach());
  const int64_t M = x.size(0);
  Saved s;
  s.target = contiguous(reshape(target, {M}));
  s.reduction = reduction;
  s.label_smoothing = label_smoothing;
  s.weight = weight.defined() ? contiguous(to_dtype(weight.detach(), x.dtype())) : Tensor();
  // Validate the targets serially (errors cannot leave the parallel region), marking ignored
  // rows with -1.
  Tensor tg = clone(s.target);
  {
    int64_t* t = tg.data<int64_t>();
    for (int64_t r = 0; r < M; ++r) {
      if (t[r] == ignore_index) {
        t[r] = -1;
        continue;
      }
      TC_CHECK_INDEX(t[r] >= 0 && t[r] < C, op, ": Target ", t[r],
                     " is out of bounds (number of classes: ", C, ").");
    }
  }
  s.target = tg;
  s.lse = empty({M}, x.dtype());
  s.row_weight = empty({M}, x.dtype());
  Tensor loss_rows = empty({M}, x.dtype()), reduced;
  dispatch_dtype<kF32F64>(x.dtype(), "cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    const int64_t* t = tg.data<int64_t>();
    const T* w = s.weight.defined() ? s.weight.data<T>() : nullptr;
    T W = T(C);
    if (w) {
      W = 0;
      for (int64_t c = 0; c < C; ++c) W += w[c];
    }
    T* lse = s.lse.data<T>();
    T* rw = s.row_weight.data<T>();
    T* lr = loss_rows.data<T>();
    const T ls = T(label_smoothing);
    parallel_for(0, M, grain_rows(C), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* xr = xd + r * C;
        lse[r] = ce_row_lse(xr, C);
        if (t[r] < 0) {
          rw[r] = 0;
          lr[r] = 0;
          continue;
        }
        rw[r] = w ? w[t[r]] : T(1);
        T loss = rw[r] * (lse[r] - xr[t[r]]);
        if (ls > 0) loss = (T(1) - ls) * loss + ls / T(C) * (lse[r] * W - ce_row_dot(xr, w, C));
        lr[r] = loss;
      }
    });
    if (reduction == "none") return;
    // The reduction is one serial double pass over M values (the rows cost C each), rounded
    // once: no further tensor ops, which dominated small calls.
    double total = 0, weight_sum = 0;
    for (int64_t r = 0; r < M; ++r) {
      total += double(lr[r]);
      weight_sum += double(rw[r]);
    }
    if (reduction == "mean") {
      s.denom = weight_sum;
      total /= weight_sum;
    }
    reduced = empty({}, x.dtype());
    *reduced.data<T>() = T(total);
  });
  Tensor out = reduction == "none" ? reshape(loss_rows, target_shape) : reduced;
  if (autograd::needs_grad({input})) {
    const Shape in_shape = input.sizes();
    autograd::record(
        "CrossEntropyBackward0", {input}, {out}, {input},
        [s, in_shape, C, to_rows](const TensorList& saved, const TensorList& g) -> TensorList {
          const bool graph = autograd::grad_enabled() && autograd::needs_grad({saved[0], g[0]});
          Tensor g_rows = s.reduction == "none" ? reshape(g[0], {-1}) : g[0];
          Tensor gx = graph ? grad_ops(to_rows(saved[0]), g_rows, s)
                            : grad_kernel(to_rows(saved[0].detach()), g_rows, s);
          if (in_shape.size() <= 2) return {reshape(gx, in_shape)};
          Shape moved = in_shape;  // [N, d..., C]
          moved.erase(moved.begin() + 1);
          moved.push_back(C);
          return {movedim(reshape(gx, moved), {-1}, {1})};
        });
  }
  return out;
}

}  // namespace tc::nn::functional
