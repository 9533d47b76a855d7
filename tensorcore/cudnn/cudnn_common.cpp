// cuDNN availability, handles, descriptors. Without cuDNN only the availability queries exist.
#include "tensorcore/cuda/cuda.h"
#include "tensorcore/cudnn/cudnn.h"

#ifdef TC_WITH_CUDNN
#include <array>
#include <vector>

#include "tensorcore/cudnn/cudnn_utils.h"

namespace tc::cudnn {

bool is_compiled() { return true; }
bool is_available() { return cuda::is_available(); }
int version() { return int(cudnnGetVersion()); }

namespace detail {

void throw_status(cudnnStatus_t status, const char* call, const std::string& context) {
  std::string msg =
      tc::detail::concat(context, ": cuDNN error ", cudnnGetErrorString(status), " in ", call);
  // cuDNN 9 groups its status codes by thousands: 2xxx bad parameter, 3xxx not supported.
  if (int(status) / 1000 == 3) throw NotImplementedError(msg);
  if (int(status) / 1000 == 2) throw ValueError(msg);
  throw Error(msg);
}

cudnnHandle_t handle(int device, cudaStream_t stream) {
  thread_local std::array<cudnnHandle_t, 64> handles{};
  TC_CHECK(device >= 0 && device < int(handles.size()), "cudnn: device index ", device,
           " out of range");
  cudnnHandle_t& h = handles[size_t(device)];
  if (!h) {
    cuda::DeviceGuard guard(device);
    check(cudnnCreate(&h), "cudnnCreate", "cudnn");
  }
  check(cudnnSetStream(h, stream), "cudnnSetStream", "cudnn");
  return h;
}

cudnnDataType_t data_type(DType dtype, const char* op) {
  switch (dtype) {
    case DType::Float32:
      return CUDNN_DATA_FLOAT;
    case DType::Float64:
      return CUDNN_DATA_DOUBLE;
    case DType::Float16:
      return CUDNN_DATA_HALF;
    case DType::BFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw TypeError(tc::detail::concat(
          op, ": cuDNN supports float16, bfloat16, float32 and float64, got ", dtype_name(dtype)));
  }
}

namespace {
std::vector<int> to_int(const Shape& s, const std::string& context) {
  std::vector<int> r;
  for (int64_t v : s) {
    TC_CHECK(v >= 0 && v <= INT32_MAX, context, ": size or stride ", v,
             " does not fit cuDNN's 32-bit ", "descriptors (split the batch)");
    r.push_back(int(v));
  }
  return r;
}
}  // namespace

TensorDesc make_tensor_desc(cudnnDataType_t type, const Shape& sizes, const Shape& strides,
                            const std::string& context) {
  cudnnTensorDescriptor_t raw = nullptr;
  check(cudnnCreateTensorDescriptor(&raw), "cudnnCreateTensorDescriptor", context);
  TensorDesc d(raw);
  std::vector<int> dims = to_int(sizes, context), st = to_int(strides, context);
  check(cudnnSetTensorNdDescriptor(raw, type, int(dims.size()), dims.data(), st.data()),
        "cudnnSetTensorNdDescriptor", context);
  return d;
}

FilterDesc make_filter_desc(cudnnDataType_t type, cudnnTensorFormat_t format, const Shape& sizes,
                            const std::string& context) {
  cudnnFilterDescriptor_t raw = nullptr;
  check(cudnnCreateFilterDescriptor(&raw), "cudnnCreateFilterDescriptor", context);
  FilterDesc d(raw);
  std::vector<int> dims = to_int(sizes, context);
  check(cudnnSetFilterNdDescriptor(raw, type, format, int(dims.size()), dims.data()),
        "cudnnSetFilterNdDescriptor", context);
  return d;
}

}  // namespace detail
}  // namespace tc::cudnn

#else  // no cuDNN

namespace tc::cudnn {
bool is_compiled() { return false; }
bool is_available() { return false; }
int version() { return 0; }
}  // namespace tc::cudnn

#endif
