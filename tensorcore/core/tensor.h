#pragma once
// tc::Tensor: a cheap handle to a strided view (sizes, strides, offset) of shared Storage.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/core/dtype.h"
#include "tensorcore/core/error.h"
#include "tensorcore/core/scalar.h"
#include "tensorcore/core/storage.h"

namespace tc {

using Shape = std::vector<int64_t>;
class Tensor;
using TensorList = std::vector<Tensor>;

namespace autograd {
struct Node;
struct AutogradMeta;
}  // namespace autograd

struct TensorImpl {
  Storage storage;
  Shape sizes;
  Shape strides;  // in elements
  int64_t offset = 0;
  int64_t numel = 1;
  DType dtype = DType::Float32;
  // A Python number turned into a 0-dim tensor; it promotes with lower priority.
  bool is_wrapped_number = false;
  std::unique_ptr<autograd::AutogradMeta> autograd;
  // For views made by view ops: the tensor that owns the memory (never itself a view). An
  // in-place op on a view rewrites the base's autograd history (see autograd/view_history.h).
  std::shared_ptr<TensorImpl> view_base;

  TensorImpl(Storage s, Shape sz, Shape st, int64_t off, DType dt);
  ~TensorImpl();
  void refresh_numel();
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  const Shape& sizes() const { return impl_->sizes; }
  const Shape& shape() const { return impl_->sizes; }
  const Shape& strides() const { return impl_->strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return int64_t(impl_->sizes.size()); }
  int64_t ndim() const { return dim(); }
  int64_t numel() const { return impl_->numel; }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device; }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  int64_t storage_offset() const { return impl_->offset; }
  size_t itemsize() const { return tc::itemsize(impl_->dtype); }
  size_t nbytes() const { return itemsize() * size_t(numel()); }
  const Storage& storage() const { return impl_->storage; }
  void* data_ptr() const {
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * int64_t(itemsize());
  }
  template <typename T>
  T* data() const {
    TC_CHECK_TYPE(dtype_of_v<T> == dtype(), "Tensor.data<T>(): tensor has dtype ",
                  dtype_name(dtype()));
    return static_cast<T*>(data_ptr());
  }
  bool is_contiguous() const;
  bool is_floating_point() const { return is_floating(dtype()); }
  bool is_complex() const { return tc::is_complex(dtype()); }

  // Version counter shared with every view of the same storage.
  uint32_t version() const { return impl_->storage->version.load(std::memory_order_relaxed); }
  void bump_version() const { impl_->storage->version.fetch_add(1, std::memory_order_relaxed); }

  // Autograd.
  bool requires_grad() const;
  Tensor& requires_grad_(bool flag = true);
  Tensor& set_requires_grad(bool flag) { return requires_grad_(flag); }
  Tensor grad() const;
  void set_grad(const Tensor& g) const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false, const TensorList& inputs = {}) const;
  Tensor detach() const;
  Tensor& detach_();
  void retain_grad() const;
  bool retains_grad() const;
  // The hook may return a replacement gradient (or an undefined Tensor to keep it).
  int register_hook(std::function<Tensor(const Tensor&)> hook) const;
  autograd::AutogradMeta* autograd_meta() const { return impl_->autograd.get(); }
  autograd::AutogradMeta& ensure_autograd_meta() const;

  Scalar item() const;
  template <typename T>
  T item() const {
    return item().to<T>();
  }
  std::string str() const;  // repr like torch's

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// Low-level construction. Everything else lives in ops/.
Tensor make_tensor(Storage storage, Shape sizes, Shape strides, int64_t offset, DType dtype);
// A view of `base`'s memory that remembers its base (torch's `._base`), for autograd.
Tensor make_view_of(const Tensor& base, Shape sizes, Shape strides, int64_t offset);
Tensor empty_strided_raw(const Shape& sizes, const Shape& strides, DType dtype, Device device);
Shape contiguous_strides(const Shape& sizes);
int64_t shape_numel(const Shape& sizes);
std::string shape_str(const Shape& s);  // "[2, 3]"
// Wraps negative dims and checks range: "sum: dim 3 is out of range for a 2-d tensor".
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = "");

}  // namespace tc
