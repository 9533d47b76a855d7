#pragma once
// The two native primitives behind GradScaler (torch._amp_foreach_non_finite_check_and_unscale_
// and torch._amp_update_scale_), on the CPU and CUDA. Both keep every value on the tensors'
// device, so a training step never waits for the host.
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"

namespace tc::amp {

// For each grad (float16/bfloat16/float32/float64, all on found_inf's device): grad *= inv_scale
// in place, and found_inf = 1.0 if any element is inf or nan. found_inf and inv_scale are
// 1-element float32 tensors; found_inf is only ever set, never cleared.
void foreach_non_finite_check_and_unscale_(const TensorList& scaled_grads, const Tensor& found_inf,
                                           const Tensor& inv_scale);

// Dynamic loss-scale update, in place on the 1-element tensors current_scale (float32) and
// growth_tracker (int32): on found_inf, scale *= backoff_factor and the tracker resets; otherwise
// the tracker counts successful steps and every growth_interval-th one multiplies the scale by
// growth_factor (kept only if the result is finite) and resets the tracker. Returns current_scale.
const Tensor& update_scale_(const Tensor& current_scale, const Tensor& growth_tracker,
                            const Tensor& found_inf, double growth_factor, double backoff_factor,
                            int64_t growth_interval);

// Device kernels. `grad` is contiguous; found_inf/inv_scale/scale/tracker are 1-element tensors
// on grad's device.
using UnscaleKernel = void (*)(const Tensor& grad, const Tensor& found_inf,
                               const Tensor& inv_scale);
using UpdateScaleKernel = void (*)(const Tensor& current_scale, const Tensor& growth_tracker,
                                   const Tensor& found_inf, double growth_factor,
                                   double backoff_factor, int64_t growth_interval);
extern KernelTable<UnscaleKernel> amp_unscale_kernel;
extern KernelTable<UpdateScaleKernel> amp_update_scale_kernel;

}  // namespace tc::amp
