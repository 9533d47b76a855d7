// The detection ops' device kernel tables (device_kernels.h); kernels register into them per
// device.
#include "vision/ops/device_kernels.h"

namespace tc::vision::ops {

TC_DEFINE_KERNEL(nms, NmsFn);
TC_DEFINE_KERNEL(nms_mask, NmsMaskFn);
TC_DEFINE_KERNEL(roi_align_forward, RoiAlignForwardFn);
TC_DEFINE_KERNEL(roi_align_backward, RoiAlignBackwardFn);
TC_DEFINE_KERNEL(roi_pool_forward, RoiPoolForwardFn);
TC_DEFINE_KERNEL(roi_pool_backward, RoiPoolBackwardFn);
TC_DEFINE_KERNEL(ps_roi_pool_forward, PsRoiPoolForwardFn);
TC_DEFINE_KERNEL(ps_roi_pool_backward, PsRoiPoolBackwardFn);
TC_DEFINE_KERNEL(deform_im2col, DeformIm2colFn);
TC_DEFINE_KERNEL(deform_col2im, DeformCol2imFn);

}  // namespace tc::vision::ops
