#include "tensorcore/autograd/node.h"

#include <atomic>

#include "tensorcore/autograd/backward_hooks.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/profiler/profiler.h"

namespace tc::autograd {

namespace {
std::atomic<uint64_t> g_sequence{0};
}

Node::Node() : sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {
  if (profiler::enabled()) [[unlikely]]
    profiler::on_autograd_node(int64_t(sequence_nr));  // links the creating op to this node
}

AccumulateGrad::AccumulateGrad(Tensor leaf) : variable(std::move(leaf)) {}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor g = grads[0];
  if (!g.defined()) return {};
  auto& meta = variable.ensure_autograd_meta();
  for (auto& hook : meta.leaf_hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = replaced;
  }
  if (!meta.grad.defined()) {
    if (grad_enabled()) {
      meta.grad = g;  // create_graph: keep the history for double backward
    } else {
      // Steal the buffer when nothing else can see it; otherwise copy.
      bool exclusive = g.impl_ptr().use_count() <= 2 && g.storage().use_count() == 1;
      meta.grad = exclusive ? g.detach() : clone(g.detach());
    }
  } else if (grad_enabled()) {
    meta.grad = add(meta.grad, g);
  } else {
    Tensor acc = meta.grad;
    add_(acc, g);
  }
  run_post_accumulate_hooks(this);
  return {};
}

Edge gradient_edge(const Tensor& t) {
  auto& meta = t.ensure_autograd_meta();
  if (meta.grad_fn) return Edge{meta.grad_fn, meta.output_nr};
  if (!meta.requires_grad) return Edge{};
  auto acc = meta.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta.grad_accumulator = acc;
  }
  return Edge{acc, 0};
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  was_defined_ = t.defined();
  if (!was_defined_) return;
  version_ = t.version();
  if (is_output) {
    data_ = t.detach();
    requires_grad_ = t.requires_grad();
    output_nr_ = t.autograd_meta() ? t.autograd_meta()->output_nr : 0;
  } else {
    data_ = t;
  }
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner, const char* op_name) const {
  if (!was_defined_) return Tensor();
  TC_CHECK_AS(Error, data_.defined(), op_name,
              ": trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd.grad(). Specify "
              "retain_graph=True if you need to backward through the graph a second time.");
  TC_CHECK_AS(Error, data_.version() == version_,
              "one of the variables needed for gradient computation has been modified by an "
              "inplace operation: it is an input or output of ",
              op_name, ", is at version ", data_.version(), "; expected version ", version_,
              " instead");
  if (!is_output_) return data_;
  Tensor t = data_.detach();
  if (requires_grad_ && owner) {
    auto& m = t.ensure_autograd_meta();
    m.grad_fn = owner;
    m.output_nr = output_nr_;
  }
  return t;
}

void Node::connect_inputs(const TensorList& inputs) {
  next_edges.reserve(next_edges.size() + inputs.size());
  input_meta.reserve(input_meta.size() + inputs.size());
  for (const Tensor& in : inputs) {
    if (in.defined() && in.requires_grad()) {
      next_edges.push_back(gradient_edge(in));
      input_meta.push_back({in.sizes(), in.dtype(), in.device()});
    } else {
      next_edges.push_back(Edge{});
      input_meta.push_back({});
    }
  }
}

Tensor match_input_meta(Tensor g, const InputMeta& m) {
  g = sum_to_size(g, m.shape);
  if (g.dtype() != m.dtype) {
    g = is_complex(g.dtype()) && !is_complex(m.dtype) ? to_dtype(real(g), m.dtype)
                                                      : to_dtype(g, m.dtype);
  }
  return g;
}

Tensor zeros_for(const InputMeta& m) {
  return zeros(m.shape, TensorOptions(m.dtype).device(m.device));
}

TensorList FunctionNode::apply(TensorList&& grads) {
  TC_CHECK_AS(Error, !released, name_,
              ": trying to backward through the graph a second time; specify retain_graph=True "
              "on the first backward call if you need to");
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) grads[i] = zeros_for(output_meta[i]);
  TensorList unpacked;
  unpacked.reserve(saved.size());
  auto self = shared_from_this();
  for (auto& s : saved) unpacked.push_back(s.unpack(self, name_.c_str()));
  TensorList result = vjp_(unpacked, grads);
  TC_CHECK_AS(Error, result.size() == next_edges.size(), name_, ": vjp returned ", result.size(),
              " gradients for ", next_edges.size(), " inputs");
  for (size_t i = 0; i < result.size(); ++i) {
    Tensor& g = result[i];
    if (g.defined() && next_edges[i].valid()) g = match_input_meta(g, input_meta[i]);
  }
  return result;
}

void FunctionNode::release_saved() {
  for (auto& s : saved) s.reset();
  released = true;
}

}  // namespace tc::autograd
