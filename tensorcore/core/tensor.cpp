#include "tensorcore/core/tensor.h"

#include <sstream>

#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/node.h"
#include "tensorcore/autograd/view_history.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/elementwise.h"

namespace tc {

TensorImpl::TensorImpl(Storage s, Shape sz, Shape st, int64_t off, DType dt)
    : storage(std::move(s)), sizes(std::move(sz)), strides(std::move(st)), offset(off), dtype(dt) {
  refresh_numel();
}
TensorImpl::~TensorImpl() = default;

void TensorImpl::refresh_numel() { numel = shape_numel(sizes); }

int64_t shape_numel(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    TC_CHECK(!__builtin_mul_overflow(n, s, &n), "shape ", shape_str(sizes),
             " has more than 2^63 elements");
  return n;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t acc = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // 0-dim tensors accept dim 0 and -1
  TC_CHECK_INDEX(dim >= -n && dim < n, op, (*op ? ": " : ""), "dimension ", dim,
                 " is out of range for a ", ndim, "-d tensor (expected to be in range of [", -n,
                 ", ", n - 1, "])");
  return dim < 0 ? dim + n : dim;
}

Tensor make_tensor(Storage storage, Shape sizes, Shape strides, int64_t offset, DType dtype) {
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), std::move(sizes),
                                             std::move(strides), offset, dtype));
}

Tensor empty_strided_raw(const Shape& sizes, const Shape& strides, DType dtype, Device device) {
  int64_t span = 1;  // elements needed to hold every addressed position
  for (size_t i = 0; i < sizes.size(); ++i) {
    TC_CHECK(sizes[i] >= 0, "negative dimension ", sizes[i], " in shape ", shape_str(sizes));
    if (sizes[i] == 0) {
      span = 0;
      break;
    }
    // Overflow-checked: a wrapped product would allocate a few bytes for a huge shape and the
    // first write past them crashes (tc.full(2**62, 1) did).
    int64_t reach = 0;
    TC_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) &&
                 !__builtin_add_overflow(span, reach, &span),
             "tensor of shape ", shape_str(sizes), " is too large (more than 2^63 elements)");
  }
  int64_t nbytes = 0;
  TC_CHECK(!__builtin_mul_overflow(span, int64_t(itemsize(dtype)), &nbytes), "tensor of shape ",
           shape_str(sizes), " and dtype ", dtype_name(dtype),
           " is too large (more than 2^63 bytes)");
  Storage st = make_storage(size_t(nbytes), device);
  return make_tensor(std::move(st), sizes, strides, 0, dtype);
}

int64_t Tensor::size(int64_t dim) const { return impl_->sizes[wrap_dim(dim, this->dim(), "size")]; }
int64_t Tensor::stride(int64_t dim) const {
  return impl_->strides[wrap_dim(dim, this->dim(), "stride")];
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    int64_t s = impl_->sizes[i];
    if (s == 0) return true;
    if (s != 1 && impl_->strides[i] != expected) return false;
    expected *= s;
  }
  return true;
}

Scalar Tensor::item() const {
  TC_CHECK(numel() == 1, "a Tensor with ", numel(),
           " elements cannot be converted to Scalar (item() needs exactly one element)");
  Tensor host = is_cpu() ? *this : to_device(*this, Device());
  const void* p = host.data_ptr();
  switch (dtype()) {
#define TC_ITEM(E, T, N, S) \
  case DType::E:            \
    return Scalar(*static_cast<const T*>(p));
    TC_FORALL_DTYPES(TC_ITEM)
#undef TC_ITEM
  }
  return Scalar();
}

// ---- autograd accessors ----

autograd::AutogradMeta& Tensor::ensure_autograd_meta() const {
  if (!impl_->autograd) impl_->autograd = std::make_unique<autograd::AutogradMeta>();
  return *impl_->autograd;
}

bool Tensor::requires_grad() const {
  if (impl_->view_base) autograd::refresh_view_history(*this);
  auto* m = impl_->autograd.get();
  return m && (m->requires_grad || m->grad_fn);
}

Tensor& Tensor::requires_grad_(bool flag) {
  if (!flag && !impl_->autograd) return *this;
  auto& m = ensure_autograd_meta();
  if (!flag && m.grad_fn) {
    throw Error(
        "requires_grad_(False): you can only change requires_grad flags of leaf tensors; use "
        "detach() to get a tensor that does not require grad");
  }
  TC_CHECK_AS(Error, !flag || is_floating(dtype()) || tc::is_complex(dtype()),
              "only Tensors of floating point and complex dtype can require gradients (got ",
              dtype_name(dtype()), ")");
  m.requires_grad = flag;
  return *this;
}

Tensor Tensor::grad() const {
  auto* m = impl_->autograd.get();
  return m ? m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) const {
  if (g.defined()) {
    TC_CHECK(g.sizes() == sizes(), "assigned grad has shape ", shape_str(g.sizes()),
             " but the tensor has shape ", shape_str(sizes()));
  }
  ensure_autograd_meta().grad = g;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  if (impl_->view_base) autograd::refresh_view_history(*this);
  auto* m = impl_->autograd.get();
  return m ? m->grad_fn : nullptr;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph,
                      const TensorList& inputs) const {
  TC_CHECK_AS(Error, requires_grad(),
              "element 0 of tensors does not require grad and does not have a grad_fn");
  Tensor g = gradient;
  if (!g.defined()) {
    TC_CHECK_AS(Error, numel() == 1,
                "grad can be implicitly created only for scalar outputs (got shape ",
                shape_str(sizes()), ")");
  }
  autograd::run_backward({*this}, {g}, retain_graph || create_graph, create_graph, inputs, false,
                         true);
}

Tensor make_view_of(const Tensor& base, Shape sizes, Shape strides, int64_t offset) {
  Tensor v =
      make_tensor(base.storage(), std::move(sizes), std::move(strides), offset, base.dtype());
  const auto& root = base.impl()->view_base;
  v.impl()->view_base = root ? root : base.impl_ptr();
  return v;
}

Tensor Tensor::detach() const {
  // Shares storage (and so the version counter) but not the graph.
  return make_tensor(impl_->storage, impl_->sizes, impl_->strides, impl_->offset, impl_->dtype);
}

Tensor& Tensor::detach_() {
  if (impl_->autograd) {
    impl_->autograd->grad_fn.reset();
    impl_->autograd->requires_grad = false;
  }
  return *this;
}

void Tensor::retain_grad() const {
  TC_CHECK_AS(Error, requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep .grad anyway
  auto& m = ensure_autograd_meta();
  if (m.retains_grad) return;
  m.retains_grad = true;
  std::weak_ptr<TensorImpl> weak = impl_;
  m.grad_fn->pre_hooks[m.output_nr].push_back([weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      Tensor self(impl);
      auto& meta = self.ensure_autograd_meta();
      meta.grad = meta.grad.defined() ? add(meta.grad, g.detach()) : clone(g.detach());
    }
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  auto* m = impl_->autograd.get();
  return m && m->retains_grad;
}

int Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  TC_CHECK_AS(Error, requires_grad(),
              "cannot register a hook on a tensor that doesn't require gradient");
  auto& m = ensure_autograd_meta();
  if (is_leaf()) {
    m.leaf_hooks.push_back(std::move(hook));
    return int(m.leaf_hooks.size()) - 1;
  }
  auto& hooks = m.grad_fn->pre_hooks[m.output_nr];
  hooks.push_back(std::move(hook));
  return int(hooks.size()) - 1;
}

}  // namespace tc
