#pragma once
// Python-style indexing for C++: t[0, 1:3, None, ..., mask, idx] is
//   tc::index(t, {0, Slice(1, 3), None, Ellipsis, mask, idx})
// and t[...] = v is tc::index_put_(t, {...}, v). Semantics are PyTorch's: ints select, slices
// and None and Ellipsis give views (basic indexing returns a view sharing storage); bool and
// integer tensors are advanced indices (broadcast together; placed where the first one was if
// they are adjacent, else in front).
#include <optional>
#include <variant>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc {

struct NoneIndex {};
struct EllipsisIndex {};
inline constexpr NoneIndex None{};
inline constexpr EllipsisIndex Ellipsis{};

struct Slice {
  std::optional<int64_t> start, stop, step;
  Slice(std::optional<int64_t> start_ = std::nullopt, std::optional<int64_t> stop_ = std::nullopt,
        std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_) {}
};

class TensorIndex {
 public:
  using Variant = std::variant<NoneIndex, EllipsisIndex, int64_t, bool, Slice, Tensor>;
  TensorIndex(NoneIndex) : v_(NoneIndex{}) {}
  TensorIndex(EllipsisIndex) : v_(EllipsisIndex{}) {}
  TensorIndex(int64_t i) : v_(i) {}
  TensorIndex(int i) : v_(int64_t(i)) {}
  TensorIndex(bool b) : v_(b) {}
  TensorIndex(Slice s) : v_(s) {}
  TensorIndex(Tensor t) : v_(std::move(t)) {}
  const Variant& value() const { return v_; }

 private:
  Variant v_;
};
using IndexList = std::vector<TensorIndex>;

// self[indices]
Tensor index(const Tensor& self, const IndexList& indices);
// self[indices] = value (value broadcasts to the indexed shape and is cast to self's dtype);
// with accumulate, self[indices] += value (duplicates accumulate).
Tensor& index_put_(Tensor& self, const IndexList& indices, const Tensor& value,
                   bool accumulate = false);
Tensor& index_put_(Tensor& self, const IndexList& indices, const Scalar& value);
// Out-of-place: a copy of self with self[indices] (+)= value.
Tensor index_put(const Tensor& self, const IndexList& indices, const Tensor& value,
                 bool accumulate = false);

}  // namespace tc
