#pragma once
// bfloat16 batched matrix product on the CPU through oneDNN's matmul (AVX512-BF16 / AMX dot
// products with float32 accumulation, rounded once to bfloat16), as torch's CPU bf16 matmul.
#include "tensorcore/core/tensor.h"

namespace tc {

// out [B, M, N] (contiguous; bfloat16, or float32 for the unrounded sums) = a [B, M, K] @
// b [B, K, N], bfloat16 with any strides (zero-stride operands are packed first); a batch of 1
// on either side is broadcast. Returns false, leaving `out` untouched, when oneDNN is not built in
// or has only a reference implementation for this case; the caller then computes in float32.
bool bmm_bf16_dnnl(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tc
