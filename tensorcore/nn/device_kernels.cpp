// The nn device kernel tables (device_kernels.h); kernels register into them per device.
#include "tensorcore/nn/device_kernels.h"

namespace tc::nn {

TC_DEFINE_KERNEL(grid_sample_forward, GridSampleForwardFn);
TC_DEFINE_KERNEL(grid_sample_backward, GridSampleBackwardFn);
TC_DEFINE_KERNEL(grid_sample3d, GridSample3dFn);
TC_DEFINE_KERNEL(embedding_bag_forward, EmbeddingBagForwardFn);
TC_DEFINE_KERNEL(ctc_forward, CtcForwardFn);
TC_DEFINE_KERNEL(ctc_backward, CtcBackwardFn);
TC_DEFINE_KERNEL(max_pool_forward, MaxPoolForwardFn);
TC_DEFINE_KERNEL(max_pool_backward, MaxPoolBackwardFn);
TC_DEFINE_KERNEL(avg_pool_forward, AvgPoolForwardFn);
TC_DEFINE_KERNEL(avg_pool_backward, AvgPoolBackwardFn);

}  // namespace tc::nn
