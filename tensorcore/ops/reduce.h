#pragma once
// Reductions (torch names: dim is an int or a list, keepdim, dtype).
#include <optional>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc {

using DimList = std::vector<int64_t>;

// An empty `dims` reduces over every dimension.
Tensor sum(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
           std::optional<DType> dtype = {});
Tensor mean(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
            std::optional<DType> dtype = {});
// Sums a broadcast result back down to `shape` (vjp of broadcasting).
Tensor sum_to_size(const Tensor& a, const Shape& shape);

// ---- value reductions (empty `dims` = all dims) ----
Tensor prod(const Tensor& a, std::optional<int64_t> dim = {}, bool keepdim = false,
            std::optional<DType> dtype = {});
Tensor amax(const Tensor& a, const DimList& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& a, const DimList& dims = {}, bool keepdim = false);
Tensor max(const Tensor& a);  // full reduction (errors on an empty tensor)
Tensor min(const Tensor& a);
// (values, indices) along `dim`.
std::pair<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& a, std::optional<int64_t> dim = {}, bool keepdim = false);
Tensor argmin(const Tensor& a, std::optional<int64_t> dim = {}, bool keepdim = false);
// correction defaults to 1 (unbiased).
Tensor var(const Tensor& a, const DimList& dims = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& a, const DimList& dims = {}, double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& a, const DimList& dims = {}, double correction = 1,
                                   bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& a, const DimList& dims = {}, double correction = 1,
                                   bool keepdim = false);
// p: any real order incl. +-inf and 0 (2 = "fro").
Tensor norm(const Tensor& a, double p = 2, const DimList& dims = {}, bool keepdim = false,
            std::optional<DType> dtype = {});
Tensor logsumexp(const Tensor& a, const DimList& dims, bool keepdim = false);
Tensor all(const Tensor& a, const DimList& dims = {}, bool keepdim = false);
Tensor any(const Tensor& a, const DimList& dims = {}, bool keepdim = false);
Tensor count_nonzero(const Tensor& a, const DimList& dims = {});
Tensor nansum(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
              std::optional<DType> dtype = {});
Tensor nanmean(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
               std::optional<DType> dtype = {});
// Lower median over all elements / (values, indices) along dim.
Tensor median(const Tensor& a);
std::pair<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& a);
std::pair<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim = -1, bool keepdim = false);

// ---- scans ----
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<DType> dtype = {});
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<DType> dtype = {});
Tensor logcumsumexp(const Tensor& a, int64_t dim);
std::pair<Tensor, Tensor> cummax(const Tensor& a, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& a, int64_t dim);

}  // namespace tc
