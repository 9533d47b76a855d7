#pragma once
// Internal helpers for code that calls cuDNN (needs cudnn.h; only built with TC_WITH_CUDNN):
// status checks, per-thread handles, RAII descriptors and dtype mapping.
#include <cudnn.h>

#include <memory>
#include <string>

#include "tensorcore/core/tensor.h"
#include "tensorcore/cuda/cuda_check.h"

namespace tc::cudnn::detail {

// Throws tc::Error: "<context>: cuDNN error CUDNN_STATUS_... in <call>".
[[noreturn]] void throw_status(cudnnStatus_t status, const char* call, const std::string& context);

inline void check(cudnnStatus_t status, const char* call, const std::string& context) {
  if (status != CUDNN_STATUS_SUCCESS) throw_status(status, call, context);
}

// The calling thread's handle for `device`, bound to `stream`. cuDNN handles are not safe to
// share between threads, so each thread gets its own (created on first use, never destroyed).
cudnnHandle_t handle(int device, cudaStream_t stream);

// cuDNN data type of a floating dtype (float16, bfloat16, float32, float64); TypeError otherwise.
cudnnDataType_t data_type(DType dtype, const char* op);

template <typename T, cudnnStatus_t (*Destroy)(T)>
struct DescDeleter {
  void operator()(T d) const {
    if (d) Destroy(d);
  }
};
template <typename P, cudnnStatus_t (*Destroy)(P*)>
using DescPtr = std::unique_ptr<P, DescDeleter<P*, Destroy>>;

using TensorDesc = DescPtr<cudnnTensorStruct, cudnnDestroyTensorDescriptor>;
using FilterDesc = DescPtr<cudnnFilterStruct, cudnnDestroyFilterDescriptor>;
using ConvDesc = DescPtr<cudnnConvolutionStruct, cudnnDestroyConvolutionDescriptor>;

TensorDesc make_tensor_desc(cudnnDataType_t type, const Shape& sizes, const Shape& strides,
                            const std::string& context);
FilterDesc make_filter_desc(cudnnDataType_t type, cudnnTensorFormat_t format, const Shape& sizes,
                            const std::string& context);

}  // namespace tc::cudnn::detail
