#pragma once
// bfloat16 batched matrix product on the CPU through oneDNN's matmul (AVX512-BF16 / AMX dot
// products with float32 accumulation, rounded once to bfloat16), as torch's CPU bf16 matmul.
#include "tensorcore/core/tensor.h"

namespace tc {

// out [B, M, N] (contiguous, bfloat16) = a [B, M, K] @ b [B, K, N], any strides (zero-stride
// operands are packed first). Returns false, leaving `out` untouched, when oneDNN is not built in
// or has only a reference implementation for this case; the caller then computes in float32.
bool bmm_bf16_dnnl(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tc
