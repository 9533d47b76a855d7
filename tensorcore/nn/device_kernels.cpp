// The nn device kernel tables (device_kernels.h); kernels register into them per device.
#include "tensorcore/nn/device_kernels.h"

namespace tc::nn {

TC_DEFINE_KERNEL(grid_sample_forward, GridSampleForwardFn);
TC_DEFINE_KERNEL(grid_sample_backward, GridSampleBackwardFn);
TC_DEFINE_KERNEL(grid_sample3d, GridSample3dFn);
TC_DEFINE_KERNEL(embedding_bag_forward, EmbeddingBagForwardFn);
TC_DEFINE_KERNEL(embedding_renorm, EmbeddingRenormFn);
TC_DEFINE_KERNEL(ctc_forward, CtcForwardFn);
TC_DEFINE_KERNEL(ctc_backward, CtcBackwardFn);
TC_DEFINE_KERNEL(max_pool_forward, MaxPoolForwardFn);
TC_DEFINE_KERNEL(max_pool_backward, MaxPoolBackwardFn);
TC_DEFINE_KERNEL(avg_pool_forward, AvgPoolForwardFn);
TC_DEFINE_KERNEL(avg_pool_backward, AvgPoolBackwardFn);
TC_DEFINE_KERNEL(layer_norm, LayerNormFn);
TC_DEFINE_KERNEL(group_norm, GroupNormFn);
TC_DEFINE_KERNEL(batch_norm, BatchNormFn);
TC_DEFINE_KERNEL(lstm_gates, LstmGatesFn);
TC_DEFINE_KERNEL(gru_gates, GruGatesFn);
TC_DEFINE_KERNEL(resample, ResampleFn);
TC_DEFINE_KERNEL(unfold, UnfoldFn);
TC_DEFINE_KERNEL(fold, FoldFn);
TC_DEFINE_KERNEL(conv_forward, ConvForwardFn);
TC_DEFINE_KERNEL(conv_backward_data, ConvBackwardDataFn);
TC_DEFINE_KERNEL(conv_backward_weight, ConvBackwardWeightFn);

}  // namespace tc::nn
