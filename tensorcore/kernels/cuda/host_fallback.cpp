// Host fallbacks for CUDA tensors: the backward helpers of prod (`prod_others`) and of cumprod
// with zeros have no GPU kernel yet (scans, sorts, unique, searchsorted, histc, bincount and the
// gather/scatter/pointwise vjp helpers have: scan_*.cu, sort.cu, unique.cu, search_count.cu,
// reduce_helpers.cu). These
// copy the inputs to the host, run the CPU kernel and copy the results back, so every op works
// on CUDA tensors (synchronously and at host speed; see docs/cuda.md). Plain C++: no nvcc time.
#ifdef TC_WITH_CUDA

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc {
namespace {

Tensor host(const Tensor& t) { return t.defined() ? contiguous(to_device(t, Device())) : Tensor(); }
Tensor host_like(const Tensor& t) {
  return t.defined() ? empty(t.sizes(), TensorOptions(t.dtype())) : Tensor();
}
void copy_back(const Tensor& dst, const Tensor& src) {
  if (!dst.defined()) return;
  Tensor d = dst;
  copy_(d, src);
}

template <KernelTable<RowKernel>* Table>
void row_fallback(const Tensor& in, const Tensor& values, const Tensor& indices, const RowParams& p) {
  Tensor hv = host_like(values), hi = host_like(indices);
  Table->get(DeviceType::CPU)(host(in), hv, hi, p);
  copy_back(values, hv);
  copy_back(indices, hi);
}

void cumprod_backward_fallback(const Tensor& out, const Tensor& x, const Tensor& g) {
  Tensor ho = host_like(out);
  cumprod_backward_kernel.get(DeviceType::CPU)(ho, host(x), host(g));
  copy_back(out, ho);
}

#define TC_ROW_FALLBACK(name) \
  TC_REGISTER_KERNEL(name##_kernel, CUDA, &row_fallback<&name##_kernel>)
TC_ROW_FALLBACK(prod_others);
#undef TC_ROW_FALLBACK
TC_REGISTER_KERNEL(cumprod_backward_kernel, CUDA, cumprod_backward_fallback);

}  // namespace
}  // namespace tc

#endif  // TC_WITH_CUDA
