#pragma once
// The dynamic graph: each differentiable op's output points at a Node that knows how to map
// output gradients to input gradients (its vjp) and where to send them (next_edges).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::autograd {

struct Node;

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// What a gradient flowing into an input must look like (shape for un-broadcasting, dtype).
struct InputMeta {
  Shape shape;
  DType dtype = DType::Float32;
  Device device;
};

using Hook = std::function<Tensor(const Tensor&)>;

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  // grads: one per output of the op (undefined when the output got no gradient).
  // Returns one gradient per next_edge (undefined = no gradient).
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual std::string name() const = 0;
  // Drops saved tensors once backward ran without retain_graph.
  virtual void release_saved() {}

  // Adds one edge (and its InputMeta) per input; inputs not requiring grad get an empty edge.
  void connect_inputs(const TensorList& inputs);

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;  // parallel to next_edges
  uint64_t sequence_nr;
  // Hooks on the gradient of output `i` (tensor.register_hook / retain_grad).
  std::map<uint32_t, std::vector<Hook>> pre_hooks;
};

struct AutogradMeta {
  // Bumped when an in-place op rewrites this tensor's history; views compare it with
  // base_history_seen to know their own grad_fn is stale (see view_history.h).
  uint32_t history_version = 0;
  uint32_t base_history_seen = 0;
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  bool retains_grad = false;
  std::weak_ptr<Node> grad_accumulator;  // leaves only
  std::vector<Hook> leaf_hooks;          // hooks registered on a leaf
};

// Leaf sink: adds the incoming gradient into tensor.grad.
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor leaf);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  Tensor variable;
};

// Sums a broadcast gradient back to the input's shape and casts it to the input's dtype (the
// real part for a real input that met complex values).
Tensor match_input_meta(Tensor g, const InputMeta& m);
// A zero gradient for an output that received none.
Tensor zeros_for(const InputMeta& m);

// The edge a gradient for `t` should travel along (its grad_fn or its accumulator).
Edge gradient_edge(const Tensor& t);

// A saved tensor remembers the version it had, so backward can detect in-place changes.
// Outputs are stored without their grad_fn to avoid a reference cycle; unpack re-attaches it.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output);
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* op_name) const;
  void reset() { data_ = Tensor(); }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool requires_grad_ = false;
  uint32_t output_nr_ = 0;
};

using VjpFn = std::function<TensorList(const TensorList& saved, const TensorList& grads)>;

// The node every op uses: saved tensors plus a vjp written in tensor ops (so double backward
// works by running the vjp with grad mode on).
struct FunctionNode final : Node {
  FunctionNode(std::string name, VjpFn vjp) : name_(std::move(name)), vjp_(std::move(vjp)) {}
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return name_; }
  void release_saved() override;

  std::vector<SavedTensor> saved;
  std::vector<InputMeta> output_meta;
  bool released = false;

 private:
  std::string name_;
  VjpFn vjp_;
};

}  // namespace tc::autograd
