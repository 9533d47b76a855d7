#include "tensorcore/core/tensor_iter.h"

#include <algorithm>
#include <numeric>

#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"

namespace tc {

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TC_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", shape_str(a), " and ", shape_str(b),
             " cannot be broadcast together (dimension ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
// Combines a higher-priority result with a lower-priority one (PyTorch's combine_categories).
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_complex(*lower)) return is_floating(*higher) ? to_complex(*higher) : *lower;
  if (is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}
}  // namespace

DType result_type(const TensorList& tensors) {
  // Three priority levels: dimensioned tensors, 0-dim tensors, Python numbers.
  std::optional<DType> level[3];
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    int l = t.impl()->is_wrapped_number ? 2 : (t.dim() == 0 ? 1 : 0);
    DType d = t.dtype();
    if (l == 2) {  // a Python float/complex takes the default dtype, not float64
      if (is_floating(d))
        d = DType::Float32;
      else if (is_complex(d))
        d = DType::Complex64;
    }
    level[l] = level[l] ? promote_types(*level[l], d) : d;
  }
  return combine_categories(level[0], combine_categories(level[1], level[2]))
      .value_or(DType::Float32);
}

namespace {
thread_local Tensor t_output_hint;  // see OutputHintGuard
}  // namespace

OutputHintGuard::OutputHintGuard(const Tensor& out) : prev_(std::move(t_output_hint)) {
  t_output_hint = out;
}
OutputHintGuard::~OutputHintGuard() { t_output_hint = std::move(prev_); }

TensorIter::TensorIter(Tensor out, const TensorList& inputs, const TensorIterConfig& config)
    : op_name_(config.op_name ? config.op_name : "") {
  TC_CHECK(int(inputs.size()) + 1 <= kMaxOperands, config.op_name, ": too many operands");
  // Broadcast shape of the inputs.
  Shape shape = inputs.empty() ? Shape{} : inputs[0].sizes();
  for (size_t i = 1; i < inputs.size(); ++i)
    shape = broadcast_shapes(shape, inputs[i].sizes(), config.op_name);
  if (out.defined() && inputs.empty()) shape = out.sizes();
  if (out.defined()) {
    TC_CHECK(out.sizes() == shape, config.op_name, ": output with shape ", shape_str(out.sizes()),
             " doesn't match the broadcast shape ", shape_str(shape));
  }
  full_shape_ = shape;

  // The op runs on the device of its first real tensor: CPU 0-dim tensors (Python numbers)
  // may join tensors of any device.
  auto is_cpu_scalar = [](const Tensor& t) {
    return t.is_cpu() && (t.impl()->is_wrapped_number || t.dim() == 0);
  };
  Device device = inputs.empty() ? out.device() : inputs[0].device();
  for (const Tensor& t : inputs) {
    if (!is_cpu_scalar(t)) {
      device = t.device();
      break;
    }
  }
  if (out.defined() && !inputs.empty() && device.is_cpu() && !out.is_cpu()) {
    bool all_scalars = true;
    for (const Tensor& t : inputs) all_scalars = all_scalars && is_cpu_scalar(t);
    if (all_scalars) device = out.device();
  }
  if (out.defined()) {
    TC_CHECK(out.device() == device, config.op_name,
             ": expected all tensors to be on the same "
             "device, but found ",
             device.str(), " (inputs) and ", out.device().str(), " (output)");
  }
  for (const Tensor& t : inputs) {
    if (t.device() != device) {
      // A Python number (CPU 0-dim) may join a tensor on any device.
      TC_CHECK(t.impl()->is_wrapped_number || (t.dim() == 0 && t.is_cpu()), config.op_name,
               ": expected all tensors to be on the same device, but found ", device.str(), " and ",
               t.device().str());
    }
  }

  if (config.compute_dtype) {
    common_dtype_ = *config.compute_dtype;
  } else {
    common_dtype_ = inputs.empty() ? out.dtype() : result_type(inputs);
    if (config.promote_int_to_float && !is_floating(common_dtype_) && !is_complex(common_dtype_))
      common_dtype_ = DType::Float32;
  }
  DType out_dtype = config.output_dtype.value_or(common_dtype_);

  operands_.reserve(inputs.size() + 1);
  operands_.push_back(Tensor());
  for (const Tensor& t : inputs) {
    Tensor op =
        config.promote_inputs && t.dtype() != common_dtype_ ? to_dtype(t, common_dtype_) : t;
    // CPU scalars stay on the host: device loops pass their value as a kernel argument
    // instead of paying a synchronous host-to-device copy.
    if (op.device() != device && !(device.is_cuda() && is_cpu_scalar(op)))
      op = to_device(op, device);
    operands_.push_back(op);
  }

  if (out.defined()) {
    if (out.dtype() != out_dtype) {
      TC_CHECK_AS(TypeError, can_cast(out_dtype, out.dtype()), config.op_name, ": result type ",
                  dtype_name(out_dtype), " can't be cast to the desired output type ",
                  dtype_name(out.dtype()));
      user_out_ = out;
      operands_[0] = empty_strided_raw(shape, contiguous_strides(shape), out_dtype, device);
    } else {
      operands_[0] = out;
    }
  } else if (t_output_hint.defined() && t_output_hint.sizes() == shape &&
             t_output_hint.dtype() == out_dtype && t_output_hint.device() == device &&
             t_output_hint.is_contiguous() &&
             std::none_of(operands_.begin() + 1, operands_.end(), [](const Tensor& t) {
               return t.storage().get() == t_output_hint.storage().get();
             })) {
    operands_[0] = std::move(t_output_hint);
    t_output_hint = Tensor();
  } else {
    // Keep the memory layout of a full-size, dense input (e.g. channels-last or transposed).
    Shape strides = contiguous_strides(shape);
    for (size_t i = 1; i < operands_.size(); ++i) {
      const Tensor& t = operands_[i];
      if (t.sizes() == shape && !t.is_contiguous() && t.numel() > 1) {
        Shape perm(shape.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::stable_sort(perm.begin(), perm.end(),
                         [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
        Shape st(shape.size());
        int64_t acc = 1;
        for (int64_t k = int64_t(perm.size()) - 1; k >= 0; --k) {
          st[perm[k]] = acc;
          acc *= std::max<int64_t>(shape[perm[k]], 1);
        }
        // Only adopt it when the input is dense in that order (no gaps).
        bool dense = true;
        for (size_t d = 0; d < shape.size(); ++d)
          if (shape[d] > 1 && st[d] != t.strides()[d]) dense = false;
        if (dense) strides = st;
        break;
      }
    }
    operands_[0] = empty_strided_raw(shape, strides, out_dtype, device);
  }
  numel_ = shape_numel(shape);
  compute_strides();
  coalesce();
}

void TensorIter::compute_strides() {
  int nd = int(full_shape_.size());
  int nt = int(operands_.size());
  shape_.resize(nd);
  strides_.assign(nd, {});
  // Innermost dimension first.
  for (int d = 0; d < nd; ++d) {
    int src = nd - 1 - d;
    shape_[d] = full_shape_[src];
    for (int k = 0; k < nt; ++k) {
      const Tensor& t = operands_[k];
      int off = nd - int(t.dim());
      int td = src - off;
      int64_t st = 0;
      if (td >= 0 && t.sizes()[td] != 1) st = t.strides()[td] * int64_t(t.itemsize());
      strides_[d][k] = st;
    }
  }
  // Order dims by the output's strides (smallest first) so loops walk memory forward.
  if (nd > 1) {
    std::vector<int> perm(nd);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) {
      for (int k = 0; k < nt; ++k) {
        int64_t sa = strides_[a][k], sb = strides_[b][k];
        if (sa == 0 || sb == 0) continue;
        if (sa != sb) return sa < sb;
      }
      return false;
    });
    Shape s2(nd);
    std::vector<std::array<int64_t, kMaxOperands>> st2(nd);
    for (int d = 0; d < nd; ++d) {
      s2[d] = shape_[perm[d]];
      st2[d] = strides_[perm[d]];
    }
    shape_ = std::move(s2);
    strides_ = std::move(st2);
  }
}

void TensorIter::coalesce() {
  int nt = int(operands_.size());
  if (shape_.empty()) return;
  int prev = 0;
  for (int d = 1; d < int(shape_.size()); ++d) {
    bool can = true;
    for (int k = 0; k < nt; ++k)
      if (shape_[prev] != 1 && shape_[d] != 1 && strides_[prev][k] * shape_[prev] != strides_[d][k])
        can = false;  // size-1 dims always merge
    if (can) {
      if (shape_[prev] == 1) strides_[prev] = strides_[d];
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        shape_[prev] = shape_[d];
        strides_[prev] = strides_[d];
      }
    }
  }
  shape_.resize(prev + 1);
  strides_.resize(prev + 1);
}

bool TensorIter::is_contiguous() const {
  if (shape_.size() > 1) return false;
  if (shape_.empty()) return true;
  for (int k = 0; k < ntensors(); ++k)
    if (strides_[0][k] != int64_t(operands_[k].itemsize())) return false;
  return true;
}

void TensorIter::serial_for_each(const Loop& loop, int64_t begin, int64_t end) {
  int nt = ntensors();
  char* base[kMaxOperands];
  for (int k = 0; k < nt; ++k) base[k] = static_cast<char*>(operands_[k].data_ptr());
  if (shape_.empty()) {  // 0-dim: one element
    if (begin < end) {
      int64_t zeros[kMaxOperands] = {};
      loop(base, zeros, 1);
    }
    return;
  }
  int nd = ndim();
  int64_t inner = shape_[0];
  int64_t inner_strides[kMaxOperands];
  for (int k = 0; k < nt; ++k) inner_strides[k] = strides_[0][k];
  // Multi-index of `begin` over the outer dims.
  Shape idx(nd, 0);
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape_[d];
    rem /= shape_[d];
  }
  int64_t pos = begin;
  char* ptrs[kMaxOperands];
  while (pos < end) {
    for (int k = 0; k < nt; ++k) {
      int64_t off = 0;
      for (int d = 0; d < nd; ++d) off += idx[d] * strides_[d][k];
      ptrs[k] = base[k] + off;
    }
    int64_t n = std::min(inner - idx[0], end - pos);
    loop(ptrs, inner_strides, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d < nd - 1 && idx[d] >= shape_[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

void TensorIter::for_each(const Loop& loop, int64_t grain) {
  if (numel_ == 0) return;
  parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
}

Tensor TensorIter::finish() {
  if (user_out_.defined()) {
    copy_(user_out_, operands_[0]);
    return user_out_;
  }
  return operands_[0];
}

}  // namespace tc
