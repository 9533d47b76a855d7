// Reductions over dims with keepdim.
#include "tensorcore/ops/reduce.h"

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/kernel_tables.h"
#include "tensorcore/ops/reduce_util.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(sum, ReduceKernel);
TC_DEFINE_KERNEL(mean, ReduceKernel);

std::vector<bool> reduce_mask(const Tensor& a, const DimList& dims, const char* op) {
  std::vector<bool> mask(size_t(a.dim()), dims.empty());
  if (a.dim() == 0) {  // a 0-dim tensor accepts dim 0 / -1; reducing it is the identity
    for (int64_t d : dims) wrap_dim(d, 0, op);
    return mask;
  }
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, a.dim(), op);
    TC_CHECK(!mask[size_t(w)] || dims.empty(), op, ": dim ", w,
             " appears multiple times in the "
             "list of dims");
    mask[size_t(w)] = true;
  }
  return mask;
}

Shape reduced_shape(const Tensor& a, const std::vector<bool>& mask, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (!mask[size_t(d)])
      out.push_back(a.sizes()[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

Tensor run_reduce(KernelTable<ReduceKernel>& table, const Tensor& in, const std::vector<bool>& mask,
                  bool keepdim, DType out_dtype) {
  Tensor out =
      empty(reduced_shape(in, mask, keepdim), TensorOptions(out_dtype).device(in.device()));
  if (out.numel() > 0) table.get(in.device().type)(out, in, mask);
  return out;
}

// Gradient of a reduction: expand the (keepdim) gradient back over the reduced dims.
Tensor expand_reduced_grad(const Tensor& g, const Shape& in_shape, const std::vector<bool>& mask,
                           bool keepdim) {
  Tensor r = g;
  if (!keepdim) {
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) r = unsqueeze(r, int64_t(d));
  }
  return expand(r, in_shape);
}

Tensor sum(const Tensor& a, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
  TC_AUTOCAST("sum", sum, a, dims, keepdim, dtype);
  DType out_dtype = dtype.value_or(is_integral(a.dtype(), true) ? DType::Int64 : a.dtype());
  Tensor in = to_dtype(a.detach(), out_dtype);
  auto mask = reduce_mask(a, dims, "sum");
  Tensor out = run_reduce(sum_kernel, in, mask, keepdim, out_dtype);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("SumBackward1", {a}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {expand_reduced_grad(g[0], in_shape, mask, keepdim)};
                     });
  }
  return out;
}

Tensor mean(const Tensor& a, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
  DType out_dtype = dtype.value_or(a.dtype());
  TC_CHECK_TYPE(is_floating(out_dtype) || is_complex(out_dtype),
                "mean(): could not infer output "
                "dtype. Input dtype must be either a floating point or complex dtype. Got: ",
                dtype_name(out_dtype));
  Tensor in = to_dtype(a.detach(), out_dtype);
  auto mask = reduce_mask(a, dims, "mean");
  Tensor out = run_reduce(mean_kernel, in, mask, keepdim, out_dtype);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    int64_t n = std::max<int64_t>(1, a.numel() / std::max<int64_t>(1, out.numel()));
    autograd::record("MeanBackward1", {a}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {div(expand_reduced_grad(g[0], in_shape, mask, keepdim), n)};
                     });
  }
  return out;
}

Tensor sum_to_size(const Tensor& a, const Shape& shape) {
  if (a.sizes() == shape) return a;
  int64_t lead = a.dim() - int64_t(shape.size());
  TC_CHECK(lead >= 0, "sum_to_size: size ", shape_str(shape), " is not expandable to size ",
           shape_str(a.sizes()));
  DimList dims;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (i < lead) {
      dims.push_back(i);
    } else if (shape[i - lead] == 1 && a.size(i) != 1) {
      dims.push_back(i);
    } else {
      TC_CHECK(shape[i - lead] == a.size(i), "sum_to_size: size ", shape_str(shape),
               " is not expandable to size ", shape_str(a.sizes()));
    }
  }
  Tensor r = dims.empty() ? a : sum(a, dims, true);
  return r.sizes() == shape ? r : reshape(r, shape);
}

}  // namespace tc
