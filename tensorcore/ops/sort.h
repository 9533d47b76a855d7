#pragma once
// Sorting and searching (torch names and defaults).
#include <optional>
#include <tuple>
#include <utility>

#include "tensorcore/ops/reduce.h"

namespace tc {

// (values, indices); ties keep their input order (always stable); NaN sorts as the largest.
std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim = -1, bool descending = false,
                               bool stable = false);
Tensor argsort(const Tensor& a, int64_t dim = -1, bool descending = false, bool stable = false);
std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim = -1, bool largest = true,
                               bool sorted = true);
std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim = -1,
                                   bool keepdim = false);
// (values, inverse, counts) over the flattened input; values sorted.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a, bool sorted = true);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& a);
// The same over slices along `dim` (torch's unique(dim=) / unique_consecutive(dim=)): values keep
// the distinct slices (sorted lexicographically unless consecutive), inverse and counts have
// size(dim) / the number of distinct slices.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& a, int64_t dim,
                                              bool consecutive = false);
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, const Tensor& sorter = Tensor());
Tensor bucketize(const Tensor& a, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor histc(const Tensor& a, int64_t bins = 100, double min = 0, double max = 0);
Tensor bincount(const Tensor& a, const Tensor& weights = Tensor(), int64_t minlength = 0);

}  // namespace tc
