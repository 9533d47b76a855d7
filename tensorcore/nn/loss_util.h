#pragma once
// Helpers shared by the loss files (loss.cpp, loss_margin.cpp): reduction handling, torch's
// shape rules and messages. Internal to tensorcore/nn.
#include <string>

#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn::functional::loss_detail {

// ValueError "<op>: <r> is not a valid value for reduction ..." unless r is mean/sum/none (or
// batchmean where allowed).
void check_reduction(const char* op, const std::string& r, bool batchmean = false);
Tensor reduce(const Tensor& loss, const std::string& r);
// torch's pointwise-loss rule: a target of another shape broadcasts, with a UserWarning.
void warn_if_broadcast(const char* op, const Tensor& input, const Tensor& target);
// Both defined and of one shape (ValueError naming both shapes otherwise).
void check_same(const char* op, const Tensor& a, const Tensor& b, const char* an = "input",
                const char* bn = "target");
// The anchor/positive/negative rank check of the triplet losses (torch's message).
void check_triplet_dims(const char* op, const Tensor& a, const Tensor& p, const Tensor& n);
// Integer class-index targets as int64 (TypeError for floating or bool targets).
Tensor class_indices(const char* op, const Tensor& target);
// torch.nn.functional.pairwise_distance's default: ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance_default(const Tensor& x1, const Tensor& x2, double p = 2.0,
                                 double eps = 1e-6);
inline Tensor scalar_like(double v, const Tensor& t) { return scalar_tensor(v, t.dtype()); }

}  // namespace tc::nn::functional::loss_detail
