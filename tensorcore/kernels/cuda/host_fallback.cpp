// Host fallbacks for CUDA tensors: searchsorted, histc, bincount, prod's backward helper and a
// few vjp helpers have no GPU kernel yet (scans, sort, topk, kthvalue, median, mode and unique
// have: scan_arith.cu, scan_minmax.cu, sort.cu, unique.cu). These
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

template <KernelTable<RowIndexKernel>* Table>
void row_index_fallback(const Tensor& out, const Tensor& in, const Tensor& idx) {
  Tensor ho = host(out);  // scatter_add accumulates into out
  Table->get(DeviceType::CPU)(ho, host(in), host(idx));
  copy_back(out, ho);
}

void cumprod_backward_fallback(const Tensor& out, const Tensor& x, const Tensor& g) {
  Tensor ho = host_like(out);
  cumprod_backward_kernel.get(DeviceType::CPU)(ho, host(x), host(g));
  copy_back(out, ho);
}

void pointwise_fallback(const Tensor& out, const Tensor& a, const Tensor& b, PointwiseCode code,
                        double p) {
  Tensor ho = host_like(out);
  reduce_pointwise_kernel.get(DeviceType::CPU)(ho, host(a), host(b), code, p);
  copy_back(out, ho);
}

void searchsorted_fallback(const Tensor& out, const Tensor& boundaries, const Tensor& values,
                           const Tensor& sorter, bool right) {
  Tensor ho = host_like(out);
  searchsorted_kernel.get(DeviceType::CPU)(ho, host(boundaries), host(values), host(sorter), right);
  copy_back(out, ho);
}

void histc_fallback(const Tensor& out, const Tensor& in, int64_t bins, double lo, double hi) {
  Tensor ho = host(out);
  histc_kernel.get(DeviceType::CPU)(ho, host(in), bins, lo, hi);
  copy_back(out, ho);
}

void bincount_fallback(const Tensor& out, const Tensor& in, const Tensor& weights) {
  Tensor ho = host(out);
  bincount_kernel.get(DeviceType::CPU)(ho, host(in), host(weights));
  copy_back(out, ho);
}

#define TC_ROW_FALLBACK(name) \
  TC_REGISTER_KERNEL(name##_kernel, CUDA, &row_fallback<&name##_kernel>)
TC_ROW_FALLBACK(prod_others);
#undef TC_ROW_FALLBACK
TC_REGISTER_KERNEL(rows_gather_kernel, CUDA, &row_index_fallback<&rows_gather_kernel>);
TC_REGISTER_KERNEL(rows_scatter_add_kernel, CUDA, &row_index_fallback<&rows_scatter_add_kernel>);
TC_REGISTER_KERNEL(cumprod_backward_kernel, CUDA, cumprod_backward_fallback);
TC_REGISTER_KERNEL(reduce_pointwise_kernel, CUDA, pointwise_fallback);
TC_REGISTER_KERNEL(searchsorted_kernel, CUDA, searchsorted_fallback);
TC_REGISTER_KERNEL(histc_kernel, CUDA, histc_fallback);
TC_REGISTER_KERNEL(bincount_kernel, CUDA, bincount_fallback);

}  // namespace
}  // namespace tc

#endif  // TC_WITH_CUDA
