// Tensor.resize_ and the copy behind the `out=` keyword (python/tensorcore/_out.py).
#include "bind.h"

namespace tc::python {
namespace {

// Grows the storage in place (same StorageImpl, so every view of it sees the new memory),
// keeping the old bytes. Never shrinks, as torch.
void grow_storage(const Tensor& t, size_t nbytes) {
  const Storage& st = t.storage();
  if (nbytes <= st->nbytes) return;
  Storage fresh = make_storage(nbytes, st->device);
  if (st->nbytes > 0) {
    autograd::NoGradGuard ng;
    Tensor dst = make_tensor(fresh, {int64_t(st->nbytes)}, {1}, 0, DType::UInt8);
    copy_(dst, make_tensor(st, {int64_t(st->nbytes)}, {1}, 0, DType::UInt8));
  }
  std::swap(st->mem, fresh->mem);
  std::swap(st->nbytes, fresh->nbytes);
}

// torch's Tensor.resize_: contiguous strides at the current storage offset; the contents of
// the first min(old, new) elements are kept when the tensor was contiguous.
Tensor resize(const Tensor& t, const Shape& sizes) {
  TC_CHECK_AS(Error, !t.requires_grad() || !autograd::grad_enabled(),
           "resize_(): cannot resize variables that require grad");
  for (int64_t s : sizes)
    TC_CHECK_AS(Error, s >= 0, "resize_(): trying to create tensor with negative dimension ", s, ": ",
             shape_str(sizes));
  int64_t numel = shape_numel(sizes);
  if (numel > 0) grow_storage(t, size_t(t.storage_offset() + numel) * t.itemsize());
  TensorImpl* impl = t.impl();
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->refresh_numel();
  return t;
}

void bind_out_args(py::module_& m, TensorClass& cls) {
  cls.def("resize_", [](const Tensor& t, py::args size) { return resize(t, to_shape(size)); });
  cls.def("resize_as_", [](const Tensor& t, const Tensor& other) { return resize(t, other.sizes()); },
          py::arg("other"));
  // The write into out: a plain copy (casting), outside autograd, bumping out's version.
  m.def("_copy_out", [](Tensor& out, const Tensor& result) {
    autograd::NoGradGuard ng;
    copy_(out, result);
  });
}

static Registrar r(bind_out_args);

}  // namespace
}  // namespace tc::python
