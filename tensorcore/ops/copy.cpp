#include "tensorcore/ops/copy.h"

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/kernel_tables.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(copy, IterKernel);
TC_DEFINE_KERNEL(fill, FillKernel);

namespace {

bool same_view(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.storage_offset() == b.storage_offset() &&
         a.sizes() == b.sizes() && a.strides() == b.strides() && a.dtype() == b.dtype();
}

// Copy without autograd bookkeeping.
void copy_raw(const Tensor& dst, const Tensor& src_in) {
  if (same_view(dst, src_in)) return;
  Tensor src = src_in;
  // Partial aliasing would read elements already overwritten: go through a temporary.
  if (src.storage() == dst.storage()) src = clone(src.detach());
  if (src.device() != dst.device()) {
    Device other = dst.is_cpu() ? src.device() : dst.device();
    Tensor s = contiguous(to_dtype(src.detach(), dst.dtype()));
    if (s.sizes() != dst.sizes()) s = contiguous(expand(s, dst.sizes()));
    Tensor d = dst.is_contiguous()
                   ? dst
                   : empty(dst.sizes(), TensorOptions(dst.dtype()).device(dst.device()));
    get_allocator(other.type).copy(d.data_ptr(), d.device(), s.data_ptr(), s.device(), s.nbytes());
    if (!d.is_same(dst)) copy_raw(dst, d);
    return;
  }
  TensorIterConfig cfg;
  cfg.promote_inputs = false;
  cfg.compute_dtype = dst.dtype();
  cfg.op_name = "copy_";
  Tensor src_b = src.sizes() == dst.sizes() ? src : expand(src, dst.sizes());
  TensorIter iter(dst, {src_b}, cfg);
  copy_kernel.get(dst.device().type)(iter);
}

}  // namespace

Tensor& copy_(Tensor& dst, const Tensor& src, bool) {
  autograd::check_inplace(dst, "copy_");
  copy_raw(dst, src);
  dst.bump_version();
  if (autograd::needs_grad({dst, src})) {
    Shape src_shape = src.sizes();
    DType src_dtype = src.dtype();
    autograd::record("CopyBackwards", {dst, src}, {dst}, {},
                     [src_shape, src_dtype](const TensorList&, const TensorList& g) -> TensorList {
                       return {zeros_like(g[0]), g[0]};
                     });
  }
  return dst;
}

Tensor to_dtype(const Tensor& t, DType dtype, bool copy) {
  if (t.dtype() == dtype && !copy) return t;
  Tensor out = empty_like(t, TensorOptions(dtype).device(t.device()));
  copy_raw(out, t);
  if (autograd::needs_grad({t}) && (is_floating(dtype) || is_complex(dtype))) {
    DType in_dtype = t.dtype();
    autograd::record("ToCopyBackward", {t}, {out}, {},
                     [in_dtype](const TensorList&, const TensorList& g) -> TensorList {
                       return {g[0]};  // the node casts back to the input dtype
                     });
  }
  return out;
}

Tensor to_device(const Tensor& t, Device device, bool copy) {
  return to(t, device, t.dtype(), copy);
}

Tensor to(const Tensor& t, Device device, DType dtype, bool copy) {
  // "cuda" means the current CUDA device: resolve it so x.to("cuda") of a tensor already there
  // returns x itself, as in PyTorch.
  if (!device.is_cpu() && device.index < 0) device = get_allocator(device.type).resolve(device);
  if (t.device() == device && t.dtype() == dtype && !copy) return t;
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(device));
  copy_raw(out, t);
  if (autograd::needs_grad({t}) && (is_floating(dtype) || is_complex(dtype))) {
    Device in_device = t.device();
    autograd::record("ToCopyBackward", {t}, {out}, {},
                     [in_device](const TensorList&, const TensorList& g) -> TensorList {
                       return {to_device(g[0], in_device)};
                     });
  }
  return out;
}

Tensor clone(const Tensor& t) {
  Tensor out = empty_like(t);
  copy_raw(out, t);
  if (autograd::needs_grad({t})) {
    autograd::record("CloneBackward", {t}, {out}, {},
                     [](const TensorList&, const TensorList& g) -> TensorList { return {g[0]}; });
  }
  return out;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  copy_raw(out, t);
  if (autograd::needs_grad({t})) {
    autograd::record("CloneBackward", {t}, {out}, {},
                     [](const TensorList&, const TensorList& g) -> TensorList { return {g[0]}; });
  }
  return out;
}

}  // namespace tc
