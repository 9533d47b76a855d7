// CTC loss (Graves et al. 2006) by log-space alpha/beta recursions over the blank-extended
// target, one sample per task. The gradient is the exact derivative with respect to log_probs:
//   d nll / d lp[t, c] = -exp(logsumexp_{s: l'(s) = c}(alpha[t, s] + beta[t, s]) + nll - lp[t, c])
// (PyTorch's kernel adds exp(lp) to this, a term that cancels once the gradient passes through
// log_softmax; ours is the true derivative, so gradcheck holds for any input.)
// CUDA log_probs run the same recursions in nn/kernels_cuda.cu (one block per sample); targets
// and lengths are validated on host copies and uploaded.
#include <cmath>
#include <limits>
#include <vector>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

template <typename T>
inline T log_add(T a, T b) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  if (a == ninf) return b;
  if (b == ninf) return a;
  T m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// log(exp(a) + exp(b) + exp(c)) with one log; -inf terms drop out.
template <typename T>
inline T log_add3(T a, T b, T c) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  T m = std::max(a, std::max(b, c));
  if (m == ninf) return ninf;
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

struct CtcProblem {
  int64_t T, N, C, blank;
  const int64_t* targets;       // flattened targets
  std::vector<int64_t> offset;  // start of sample n's targets
  const int64_t* in_len;
  const int64_t* tgt_len;
  int64_t max_ext;  // max 2*S+1 over the batch
};

template <typename T>
void ctc_forward(const T* lp, const CtcProblem& p, T* nll, T* alpha) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  parallel_for(0, p.N, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const int64_t Tn = p.in_len[n], S = p.tgt_len[n], E = 2 * S + 1;
      const int64_t* tg = p.targets + p.offset[size_t(n)];
      T* a = alpha + n * p.T * p.max_ext;
      auto label = [&](int64_t s) { return (s & 1) ? tg[s >> 1] : p.blank; };
      auto lpt = [&](int64_t t, int64_t c) { return lp[(t * p.N + n) * p.C + c]; };
      std::fill(a, a + p.T * p.max_ext, ninf);
      if (Tn == 0) {
        nll[n] = S == 0 ? T(0) : std::numeric_limits<T>::infinity();
        continue;
      }
      a[0] = lpt(0, p.blank);
      if (E > 1) a[1] = lpt(0, label(1));
      for (int64_t t = 1; t < Tn; ++t) {
        const T* prev = a + (t - 1) * p.max_ext;
        T* cur = a + t * p.max_ext;
        // Positions that cannot reach the end in the remaining steps stay -inf.
        int64_t s_lo = std::max<int64_t>(0, E - 2 * (Tn - t));
        int64_t s_hi = std::min<int64_t>(E, 2 * (t + 1));
        for (int64_t s = s_lo; s < s_hi; ++s) {
          int64_t l = label(s);
          T b = s > 0 ? prev[s - 1] : ninf;
          T c = (s > 1 && l != p.blank && l != label(s - 2)) ? prev[s - 2] : ninf;
          T v = log_add3(prev[s], b, c);
          cur[s] = v == ninf ? ninf : v + lpt(t, l);
        }
      }
      const T* last = a + (Tn - 1) * p.max_ext;
      T ll = last[E - 1];
      if (E > 1) ll = log_add(ll, last[E - 2]);
      nll[n] = -ll;
    }
  });
}

template <typename T>
void ctc_backward(const T* lp, const CtcProblem& p, const T* nll, const T* alpha, const T* gout,
                  bool zero_infinity, T* grad) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  parallel_for(0, p.N, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> beta_cur(size_t(p.max_ext)), beta_next(size_t(p.max_ext)), lcab(size_t(p.C));
    for (int64_t n = n0; n < n1; ++n) {
      const int64_t Tn = p.in_len[n], S = p.tgt_len[n], E = 2 * S + 1;
      const int64_t* tg = p.targets + p.offset[size_t(n)];
      const T* a = alpha + n * p.T * p.max_ext;
      auto label = [&](int64_t s) { return (s & 1) ? tg[s >> 1] : p.blank; };
      auto gat = [&](int64_t t, int64_t c) -> T& { return grad[(t * p.N + n) * p.C + c]; };
      for (int64_t t = 0; t < p.T; ++t)
        for (int64_t c = 0; c < p.C; ++c) gat(t, c) = T(0);
      T loss = nll[n];
      if (Tn == 0 || std::isinf(loss) || std::isnan(loss)) {
        // Infeasible alignment: zero_infinity zeroes the gradient; otherwise it is undefined
        // (torch returns nan there too for the affected entries).
        if (!zero_infinity && Tn > 0)
          for (int64_t t = 0; t < Tn; ++t)
            for (int64_t c = 0; c < p.C; ++c) gat(t, c) = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
      T go = gout[n];
      for (int64_t t = Tn - 1; t >= 0; --t) {
        std::fill(beta_cur.begin(), beta_cur.begin() + E, ninf);
        if (t == Tn - 1) {
          beta_cur[size_t(E - 1)] = lp[(t * p.N + n) * p.C + p.blank];
          if (E > 1) beta_cur[size_t(E - 2)] = lp[(t * p.N + n) * p.C + label(E - 2)];
        } else {
          int64_t s_hi = std::min<int64_t>(E, 2 * (t + 1));
          int64_t s_lo = std::max<int64_t>(0, E - 2 * (Tn - t));
          for (int64_t s = s_lo; s < s_hi; ++s) {
            int64_t l = label(s);
            T b = s + 1 < E ? beta_next[size_t(s + 1)] : ninf;
            T c =
                (s + 2 < E && l != p.blank && l != label(s + 2)) ? beta_next[size_t(s + 2)] : ninf;
            T v = log_add3(beta_next[size_t(s)], b, c);
            beta_cur[size_t(s)] = v == ninf ? ninf : v + lp[(t * p.N + n) * p.C + l];
          }
        }
        std::fill(lcab.begin(), lcab.end(), ninf);
        const T* at = a + t * p.max_ext;
        for (int64_t s = 0; s < E; ++s) {
          T ab = at[s] + beta_cur[size_t(s)];
          int64_t l = label(s);
          lcab[size_t(l)] = log_add(lcab[size_t(l)], ab);
        }
        for (int64_t c = 0; c < p.C; ++c) {
          T lc = lcab[size_t(c)];
          if (lc == ninf) continue;
          gat(t, c) = -std::exp(lc + loss - lp[(t * p.N + n) * p.C + c]) * go;
        }
        std::swap(beta_cur, beta_next);
      }
    }
  });
}

// The CPU kernels of the ctc tables (device_kernels.h): the same arguments as the CUDA kernels.
CtcProblem problem_of(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                      const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext) {
  const int64_t N = lp.size(1);
  CtcProblem p{lp.size(0),
               N,
               lp.size(2),
               blank,
               targets.data<int64_t>(),
               {},
               in_len.data<int64_t>(),
               tg_len.data<int64_t>(),
               max_ext};
  const int64_t* o = offsets.data<int64_t>();
  p.offset.assign(o, o + N);
  return p;
}

void ctc_forward_cpu(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                     const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                     const Tensor& nll, const Tensor& alpha) {
  const CtcProblem p = problem_of(lp, targets, offsets, in_len, tg_len, blank, max_ext);
  dispatch_dtype<kF32F64>(lp.dtype(), "ctc_loss", [&](auto tag) {
    using U = typename decltype(tag)::type;
    ctc_forward<U>(lp.data<U>(), p, nll.data<U>(), alpha.data<U>());
  });
}

void ctc_backward_cpu(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                      const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                      const Tensor& nll, const Tensor& alpha, const Tensor& gout,
                      bool zero_infinity, const Tensor& grad) {
  const CtcProblem p = problem_of(lp, targets, offsets, in_len, tg_len, blank, max_ext);
  dispatch_dtype<kF32F64>(lp.dtype(), "ctc_loss backward", [&](auto tag) {
    using U = typename decltype(tag)::type;
    ctc_backward<U>(lp.data<U>(), p, nll.data<U>(), alpha.data<U>(), gout.data<U>(), zero_infinity,
                    grad.data<U>());
  });
}

TC_REGISTER_KERNEL(ctc_forward_kernel, CPU, ctc_forward_cpu);
TC_REGISTER_KERNEL(ctc_backward_kernel, CPU, ctc_backward_cpu);

// Targets and lengths are validated on the host.
Tensor host_copy(const Tensor& t) { return to_device(t, Device(DeviceType::CPU)); }

Tensor lengths_tensor(const Tensor& t, const char* op, const char* what, int64_t N) {
  TC_CHECK(t.defined(), op, ": ", what, " must be given");
  TC_CHECK_TYPE(!t.is_floating_point() && !t.is_complex() && t.dtype() != DType::Bool, op, ": ",
                what, " must be integers, got ", dtype_name(t.dtype()));
  Tensor r = contiguous(to_dtype(host_copy(t.detach()), DType::Int64));
  TC_CHECK(r.dim() <= 1 && r.numel() == N, op, ": expected ", what, " to have ", N,
           " entries (one per batch element), got shape ", shape_str(t.sizes()));
  return r;
}

}  // namespace

namespace functional {

Tensor ctc_loss(const Tensor& log_probs_in, const Tensor& targets_in,
                const Tensor& input_lengths_in, const Tensor& target_lengths_in, int64_t blank,
                const std::string& reduction, bool zero_infinity) {
  TC_AUTOCAST("ctc_loss", ctc_loss, log_probs_in, targets_in, input_lengths_in, target_lengths_in,
              blank, reduction, zero_infinity);
  const char* op = "ctc_loss";
  TC_CHECK(log_probs_in.defined() && targets_in.defined(), op,
           ": log_probs and targets must be tensors");
  // Targets and lengths may be on the CPU (as torch allows) or on log_probs' device.
  for (const Tensor* t : {&targets_in, &input_lengths_in, &target_lengths_in})
    TC_CHECK(!t->defined() || t->is_cpu() || t->device() == log_probs_in.device(), op,
             ": expected targets and lengths on the CPU or on log_probs' device (",
             log_probs_in.device().str(), "), got ", t->device().str());
  TC_CHECK_TYPE(log_probs_in.dtype() == DType::Float32 || log_probs_in.dtype() == DType::Float64,
                op, ": expected float32 or float64 log_probs, got ",
                dtype_name(log_probs_in.dtype()));
  TC_CHECK(log_probs_in.dim() == 3 || log_probs_in.dim() == 2, op,
           ": expected log_probs of shape (T, N, C) or (T, C), got ",
           shape_str(log_probs_in.sizes()));
  TC_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", op,
           ": reduction must be 'none', 'mean' or 'sum', got '", reduction, "'");
  bool unbatched = log_probs_in.dim() == 2;
  Tensor lp_user = unbatched ? unsqueeze(log_probs_in, 1) : log_probs_in;
  const int64_t T = lp_user.size(0), N = lp_user.size(1), C = lp_user.size(2);
  TC_CHECK(blank >= 0 && blank < C, op, ": blank (", blank, ") must be in [0, ", C, ")");
  TC_CHECK_TYPE(!targets_in.is_floating_point() && !targets_in.is_complex(), op,
                ": targets must be integers, got ", dtype_name(targets_in.dtype()));
  Tensor in_len = lengths_tensor(input_lengths_in, op, "input_lengths", N);
  Tensor tg_len = lengths_tensor(target_lengths_in, op, "target_lengths", N);
  Tensor targets = contiguous(to_dtype(host_copy(targets_in.detach()), DType::Int64));
  if (unbatched && targets.dim() == 1 && targets_in.dim() == 1 && tg_len.numel() == 1 &&
      targets.numel() != tg_len.data<int64_t>()[0])
    targets = unsqueeze(targets, 0);  // unbatched padded target (S,)

  CtcProblem p{
      T, N, C, blank, targets.data<int64_t>(), {}, in_len.data<int64_t>(), tg_len.data<int64_t>(),
      1};
  p.offset.resize(size_t(N));
  const bool padded = targets.dim() == 2;
  TC_CHECK(padded || targets.dim() == 1, op,
           ": expected targets of shape (N, S) or (sum(target_lengths),), got ",
           shape_str(targets_in.sizes()));
  if (padded)
    TC_CHECK(targets.size(0) == N, op, ": padded targets ", shape_str(targets.sizes()),
             " must have one row per batch element (", N, ")");
  int64_t pos = 0, total = 0;
  for (int64_t n = 0; n < N; ++n) {
    int64_t il = p.in_len[n], tl = p.tgt_len[n];
    TC_CHECK(il >= 0 && il <= T, op, ": input_lengths[", n, "] = ", il, " must be in [0, ", T, "]");
    TC_CHECK(tl >= 0, op, ": target_lengths[", n, "] = ", tl, " must be non-negative");
    if (padded) {
      TC_CHECK(tl <= targets.size(1), op, ": target_lengths[", n, "] = ", tl,
               " exceeds the padded target length ", targets.size(1));
      p.offset[size_t(n)] = n * targets.size(1);
    } else {
      p.offset[size_t(n)] = pos;
      pos += tl;
    }
    for (int64_t s = 0; s < tl; ++s) {
      int64_t lab = p.targets[p.offset[size_t(n)] + s];
      TC_CHECK_INDEX(lab >= 0 && lab < C && lab != blank, op, ": target ", lab, " of sample ", n,
                     " must be a class in [0, ", C, ") other than blank (", blank, ")");
    }
    p.max_ext = std::max(p.max_ext, 2 * tl + 1);
    total += tl;
  }
  if (!padded)
    TC_CHECK(targets.numel() >= total, op, ": concatenated targets have ", targets.numel(),
             " entries but target_lengths sum to ", total);

  Tensor lp = contiguous(lp_user);
  const Device dev = lp.device();
  const TensorOptions opts = TensorOptions(lp.dtype()).device(dev);
  Tensor nll = empty({N}, opts);
  Tensor alpha = empty({N, T, p.max_ext}, opts);
  // The validated host tables on log_probs' device (on the CPU, the same tensors).
  const TensorOptions i64 = TensorOptions(DType::Int64).device(dev);
  Tensor d_targets = to_device(reshape(targets, {-1}), dev), d_in = to_device(in_len, dev);
  Tensor d_tg = to_device(tg_len, dev), d_off = from_vector(p.offset, {N}, i64);
  ctc_forward_kernel.get(dev.type)(lp, d_targets, d_off, d_in, d_tg, blank, p.max_ext, nll, alpha);
  if (autograd::needs_grad({log_probs_in})) {
    Shape lp_shape = log_probs_in.sizes();
    const int64_t max_ext = p.max_ext;
    autograd::record(
        "CtcLossBackward0", {log_probs_in}, {nll},
        {lp_user, nll, alpha, d_targets, d_off, d_in, d_tg},
        [blank, max_ext, zero_infinity, lp_shape](const TensorList& s,
                                                  const TensorList& gr) -> TensorList {
          Tensor lps = contiguous(s[0]).detach();
          Tensor go = contiguous(gr[0]).detach();
          Tensor grad = empty(lps.sizes(), TensorOptions(lps.dtype()).device(lps.device()));
          ctc_backward_kernel.get(lps.device().type)(lps, s[3], s[4], s[5], s[6], blank, max_ext,
                                                     s[1], s[2], go, zero_infinity, grad);
          return {reshape(grad, lp_shape)};
        });
  }
  Tensor loss = nll;
  if (zero_infinity) {
    Tensor inf_mask = isinf(loss);
    loss = where(inf_mask, zeros_like(loss), loss);
  }
  if (reduction == "none") return unbatched ? squeeze(loss, 0) : loss;
  if (reduction == "sum") return sum(loss);
  Tensor denom =
      clamp(to_dtype(to_device(tg_len, loss.device()), loss.dtype()), Scalar(1), std::nullopt);
  return mean(div(loss, denom));
}

}  // namespace functional
}  // namespace tc::nn
