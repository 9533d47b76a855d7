// GradScaler primitives: argument checks, the device dispatch and the CPU kernels.
#include "tensorcore/amp/grad_scaler.h"

#include <atomic>
#include <cmath>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"

namespace tc::amp {

KernelTable<UnscaleKernel> amp_unscale_kernel("_amp_foreach_non_finite_check_and_unscale_");
KernelTable<UpdateScaleKernel> amp_update_scale_kernel("_amp_update_scale_");

namespace {

void check_one_element(const char* op, const Tensor& t, const char* name, DType dtype) {
  TC_CHECK(t.defined(), op, ": ", name, " must be a tensor");
  TC_CHECK(t.numel() == 1, op, ": ", name, " must be a 1-element tensor, got shape ",
           shape_str(t.sizes()));
  TC_CHECK_TYPE(t.dtype() == dtype, op, ": ", name, " must be a ", dtype_name(dtype),
                " tensor, got ", dtype_name(t.dtype()));
}

void check_same_device(const char* op, const Tensor& t, const char* name, const Tensor& ref,
                       const char* ref_name) {
  TC_CHECK(t.device() == ref.device(), op, ": ", name, " is on ", t.device().str(), " but ",
           ref_name, " is on ", ref.device().str(), "; all tensors must be on one device");
}

template <typename T>
void unscale_loop(T* data, int64_t n, float inv_scale, std::atomic<bool>& found) {
  parallel_for(0, n, 32768, [&](int64_t begin, int64_t end) {
    bool bad = false;
    if (inv_scale == 1.0f) {
      for (int64_t i = begin; i < end; ++i) bad |= !std::isfinite(float(data[i]));
    } else {
      for (int64_t i = begin; i < end; ++i) {
        float v = float(data[i]);
        bad |= !std::isfinite(v);
        data[i] = T(v * inv_scale);
      }
    }
    if (bad) found.store(true, std::memory_order_relaxed);
  });
}

void unscale_loop_double(double* data, int64_t n, float inv_scale, std::atomic<bool>& found) {
  parallel_for(0, n, 32768, [&](int64_t begin, int64_t end) {
    bool bad = false;
    // torch multiplies in the grad's own precision (double here) by the float inv_scale.
    const double s = inv_scale;
    for (int64_t i = begin; i < end; ++i) {
      bad |= !std::isfinite(data[i]);
      if (inv_scale != 1.0f) data[i] *= s;
    }
    if (bad) found.store(true, std::memory_order_relaxed);
  });
}

void unscale_cpu(const Tensor& grad, const Tensor& found_inf, const Tensor& inv_scale) {
  const float inv = *inv_scale.data<float>();
  std::atomic<bool> found{false};
  const int64_t n = grad.numel();
  switch (grad.dtype()) {
    case DType::Float32:
      unscale_loop(grad.data<float>(), n, inv, found);
      break;
    case DType::Float16:
      unscale_loop(grad.data<Half>(), n, inv, found);
      break;
    case DType::BFloat16:
      unscale_loop(grad.data<BFloat16>(), n, inv, found);
      break;
    case DType::Float64:
      unscale_loop_double(grad.data<double>(), n, inv, found);
      break;
    default:
      break;  // rejected by the op
  }
  if (found.load()) *found_inf.data<float>() = 1.0f;
}

void update_scale_cpu(const Tensor& current_scale, const Tensor& growth_tracker,
                      const Tensor& found_inf, double growth_factor, double backoff_factor,
                      int64_t growth_interval) {
  float* scale = current_scale.data<float>();
  int32_t* tracker = growth_tracker.data<int32_t>();
  if (*found_inf.data<float>() != 0.0f) {
    *scale = float(*scale * backoff_factor);
    *tracker = 0;
    return;
  }
  int64_t successful = int64_t(*tracker) + 1;
  if (successful == growth_interval) {
    float grown = float(*scale * growth_factor);
    if (std::isfinite(grown)) *scale = grown;
    *tracker = 0;
  } else {
    *tracker = int32_t(successful);
  }
}

TC_REGISTER_KERNEL(amp_unscale_kernel, CPU, unscale_cpu);
TC_REGISTER_KERNEL(amp_update_scale_kernel, CPU, update_scale_cpu);

}  // namespace

void foreach_non_finite_check_and_unscale_(const TensorList& scaled_grads, const Tensor& found_inf,
                                           const Tensor& inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  check_one_element(op, found_inf, "found_inf", DType::Float32);
  check_one_element(op, inv_scale, "inv_scale", DType::Float32);
  check_same_device(op, inv_scale, "inv_scale", found_inf, "found_inf");
  for (size_t i = 0; i < scaled_grads.size(); ++i) {
    const Tensor& g = scaled_grads[i];
    TC_CHECK(g.defined(), op, ": scaled_grads[", i, "] is None");
    DType d = g.dtype();
    TC_CHECK_TYPE(
        d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 || d == DType::Float64,
        op, ": scaled_grads[", i, "] must be a floating-point tensor, got ", dtype_name(d));
    check_same_device(op, g, "a scaled grad", found_inf, "found_inf");
  }
  autograd::NoGradGuard no_grad;
  auto kernel = amp_unscale_kernel.get(found_inf.device().type);
  for (const Tensor& g : scaled_grads) {
    if (g.numel() == 0) continue;
    if (g.is_contiguous()) {
      kernel(g, found_inf, inv_scale);
    } else {
      // Strided grads: unscale a packed copy and write it back.
      Tensor packed = contiguous(g);
      kernel(packed, found_inf, inv_scale);
      copy_(g, packed);
    }
    g.bump_version();
  }
}

const Tensor& update_scale_(const Tensor& current_scale, const Tensor& growth_tracker,
                            const Tensor& found_inf, double growth_factor, double backoff_factor,
                            int64_t growth_interval) {
  const char* op = "_amp_update_scale_";
  check_one_element(op, current_scale, "current_scale", DType::Float32);
  check_one_element(op, growth_tracker, "growth_tracker", DType::Int32);
  check_one_element(op, found_inf, "found_inf", DType::Float32);
  check_same_device(op, growth_tracker, "growth_tracker", current_scale, "current_scale");
  check_same_device(op, found_inf, "found_inf", current_scale, "current_scale");
  TC_CHECK(growth_interval > 0, op, ": growth_interval must be positive, got ", growth_interval);
  autograd::NoGradGuard no_grad;
  amp_update_scale_kernel.get(current_scale.device().type)(
      current_scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
  current_scale.bump_version();
  growth_tracker.bump_version();
  return current_scale;
}

}  // namespace tc::amp
