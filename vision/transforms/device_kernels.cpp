// The image kernels' device kernel tables (device_kernels.h); kernels register into them per
// device.
#include "vision/transforms/device_kernels.h"

namespace tc::vision::kernels {

TC_DEFINE_KERNEL(warp, WarpFn);
TC_DEFINE_KERNEL(gaussian_blur, GaussianBlurFn);
TC_DEFINE_KERNEL(crop_flip, CropFlipFn);
TC_DEFINE_KERNEL(crop_flip_normalize, CropFlipNormalizeFn);
TC_DEFINE_KERNEL(blend, BlendFn);
TC_DEFINE_KERNEL(adjust_hue, AdjustHueFn);
TC_DEFINE_KERNEL(equalize, EqualizeFn);
TC_DEFINE_KERNEL(resize, ResizeFn);
TC_DEFINE_KERNEL(pad_image, PadImageFn);
TC_DEFINE_KERNEL(resize_vertical, ResizeVerticalFn);
TC_DEFINE_KERNEL(resize_horizontal, ResizeHorizontalFn);
TC_DEFINE_KERNEL(resize_nearest, ResizeNearestFn);
TC_DEFINE_KERNEL(round_to_uint8, RoundToUint8Fn);

}  // namespace tc::vision::kernels
