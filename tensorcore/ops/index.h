#pragma once
// Index-based ops with PyTorch names: index_select, gather, scatter*, index_add/copy/fill,
// index_put (tensor indices), masked_*, nonzero, take. Out-of-range indices raise IndexError
// ("index 5 is out of bounds for dimension 0 with size 3").
#include <optional>
#include <string>

#include "tensorcore/core/tensor.h"

namespace tc {

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// reduce: "" (assign), "add" or "multiply" (torch's legacy scatter(reduce=...)).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce = "");
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                 const std::string& reduce = "");
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax", "amin".
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);

// Advanced indexing with one (optional = undefined) index tensor per leading dim; bool/uint8
// tensors are masks. torch's aten::index / index_put / index_put_ (Python: Tensor.index_put_);
// named apart from the IndexList overloads in indexing.h so brace lists stay unambiguous.
Tensor advanced_index(const Tensor& self, const TensorList& indices);
Tensor advanced_index_put(const Tensor& self, const TensorList& indices, const Tensor& values,
                          bool accumulate = false);
Tensor& advanced_index_put_(Tensor& self, const TensorList& indices, const Tensor& values,
                            bool accumulate = false);

// value: a Scalar or a 0-dim tensor (differentiable).
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);

Tensor nonzero(const Tensor& self);            // int64 [n, ndim]
TensorList nonzero_tuple(const Tensor& self);  // nonzero(as_tuple=True)
Tensor argwhere(const Tensor& self);
Tensor take(const Tensor& self, const Tensor& index);
Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

}  // namespace tc
