#pragma once
// TensorIter: broadcasting, type promotion and dimension coalescing for elementwise ops, done
// once per call; kernels then see flat 1-D inner loops with per-operand byte strides.
#include <array>
#include <optional>

#include "tensorcore/core/tensor.h"

namespace tc {

struct TensorIterConfig {
  // Inputs are cast to the common dtype (torch.result_type) before the loop.
  bool promote_inputs = true;
  // Integer/bool inputs compute in the default float dtype (true division, sqrt, ...).
  bool promote_int_to_float = false;
  // Overrides the computed common dtype.
  std::optional<DType> compute_dtype;
  // Output dtype when it differs from the compute dtype (comparisons give bool).
  std::optional<DType> output_dtype;
  const char* op_name = "";
};

class TensorIter {
 public:
  static constexpr int kMaxOperands = 8;
  using Loop = std::function<void(char** data, const int64_t* strides, int64_t n)>;

  // `out` may be undefined (allocated here) or a tensor to write into (in-place / out=).
  TensorIter(Tensor out, const TensorList& inputs, const TensorIterConfig& config);

  // Runs `loop` over all elements, split over threads for large work.
  void for_each(const Loop& loop, int64_t grain = 32768);
  void serial_for_each(const Loop& loop, int64_t begin, int64_t end);

  // Writes the result back when the given output had another dtype. Returns the output.
  Tensor finish();

  DType common_dtype() const { return common_dtype_; }
  DType input_dtype(int i = 0) const { return operands_[1 + i].dtype(); }
  DType output_dtype() const { return operands_[0].dtype(); }
  int ntensors() const { return int(operands_.size()); }
  int64_t numel() const { return numel_; }
  int ndim() const { return int(shape_.size()); }
  const Tensor& output() const { return operands_[0]; }
  const Tensor& input(int i) const { return operands_[1 + i]; }
  const Shape& broadcast_shape() const { return full_shape_; }
  // All operands contiguous in the same order (one flat loop covers everything).
  bool is_contiguous() const;
  // The coalesced iteration space (innermost dim first) and byte strides per operand (output
  // is operand 0), for device loops that index it themselves.
  const Shape& iter_shape() const { return shape_; }
  int64_t iter_stride(int dim, int operand) const { return strides_[dim][operand]; }
  const Tensor& operand(int k) const { return operands_[k]; }
  // The op's name (TensorIterConfig::op_name): the profiler names C++ callers' spans after it.
  const char* op_name() const { return op_name_; }

 private:
  void compute_strides();
  void coalesce();

  const char* op_name_;
  TensorList operands_;  // output first
  Tensor user_out_;      // the caller's output when it needed a dtype cast
  DType common_dtype_ = DType::Float32;
  Shape full_shape_;
  Shape shape_;                                             // iteration shape, innermost first
  std::vector<std::array<int64_t, kMaxOperands>> strides_;  // per dim, per operand, in bytes
  int64_t numel_ = 0;
};

// out= without a copy: while a guard lives on this thread, the next TensorIter that would
// allocate its output takes `out` instead, if sizes, dtype and device match, `out` is
// contiguous and it shares no storage with the operands (the hint is then used up). The Python
// out= wrapper sets it around single-kernel elementwise ops and compares the result with `out`
// to know whether a copy is still needed (it is when the hint was not taken).
class OutputHintGuard {
 public:
  explicit OutputHintGuard(const Tensor& out);
  ~OutputHintGuard();
  OutputHintGuard(const OutputHintGuard&) = delete;
  OutputHintGuard& operator=(const OutputHintGuard&) = delete;

 private:
  Tensor prev_;
};

// torch.result_type over tensors, giving wrapped numbers and 0-dim tensors lower priority.
DType result_type(const TensorList& tensors);
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "");

}  // namespace tc
