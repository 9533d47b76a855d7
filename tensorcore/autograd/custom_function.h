#pragma once
// User-defined differentiable ops, like libtorch's torch::autograd::Function:
//
//   struct MyExp : tc::autograd::Function<MyExp> {
//     static tc::Tensor forward(tc::autograd::AutogradContext* ctx, tc::Tensor x) {
//       tc::Tensor y = tc::exp(x);
//       ctx->save_for_backward({y});
//       return y;
//     }
//     static tc::TensorList backward(tc::autograd::AutogradContext* ctx, tc::TensorList g) {
//       return {g[0] * ctx->get_saved_variables()[0]};
//     }
//   };
//   tc::Tensor y = MyExp::apply(x);
//
// forward runs with grad mode off and may return a Tensor or a TensorList; backward gets one
// gradient per output (zeros for outputs that got none, unless set_materialize_grads(false)) and
// returns one gradient per forward argument (undefined for non-tensor arguments / no gradient).
#include <any>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>

#include "tensorcore/autograd/function.h"

namespace tc::autograd {

struct AutogradContext {
  void save_for_backward(TensorList tensors) { to_save_ = std::move(tensors); }
  // Unpacks saved tensors (checks they were not modified in place since).
  TensorList get_saved_variables() const;
  void mark_non_differentiable(const TensorList& outputs);
  void mark_dirty(const TensorList&) {}
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool needs_input_grad(size_t tensor_index) const {
    return tensor_index < needs_input_grad_.size() && needs_input_grad_[tensor_index];
  }
  // Arbitrary values for backward (ints, doubles, shapes, ...).
  std::unordered_map<std::string, std::any> saved_data;

  // Internals, filled by Function<T>::apply.
  TensorList to_save_;
  std::vector<SavedTensor> saved_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::vector<bool> needs_input_grad_;  // per forward argument
  bool materialize_grads_ = true;
  std::weak_ptr<Node> node_;
  std::string name_;
};

// Shared by the C++ and Python custom nodes.
struct CustomNodeBase : Node {
  std::vector<InputMeta> output_meta;
  std::vector<int64_t> tensor_arg_pos;  // forward-argument index of each next_edge
  size_t num_args = 0;
  std::string node_name;
  std::string name() const override { return node_name; }
  // Zeros for missing output gradients (when materializing) and sizing to the output count.
  TensorList prepare_grads(TensorList&& grads, bool materialize) const;
  // Maps per-argument gradients from backward to next_edges, checking count/shape/dtype.
  TensorList finish_grads(const TensorList& per_arg) const;
};

// Wires `node` to `inputs` (the tensor arguments) and attaches it to `outputs` (an output that is
// one of the inputs is replaced by an alias, as torch does). `non_diff` outputs are left alone.
void attach_custom_node(const std::shared_ptr<CustomNodeBase>& node, const TensorList& inputs,
                        TensorList& outputs, const std::vector<const TensorImpl*>& non_diff);
// Saves ctx->to_save_ into ctx->saved_ (after outputs were attached).
void save_custom_tensors(AutogradContext* ctx, const TensorList& outputs);

template <class T>
struct CppNode final : CustomNodeBase {
  AutogradContext ctx;
  TensorList apply(TensorList&& grads) override {
    TensorList g = prepare_grads(std::move(grads), ctx.materialize_grads_);
    TensorList per_arg = T::backward(&ctx, g);
    return finish_grads(per_arg);
  }
  void release_saved() override {
    for (auto& s : ctx.saved_) s.reset();
  }
};

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<T>>();
    AutogradContext* ctx = &node->ctx;
    TensorList inputs;
    int64_t pos = 0;
    auto collect = [&](const auto& a) {
      using A = std::decay_t<decltype(a)>;
      if constexpr (std::is_same_v<A, Tensor>) {
        inputs.push_back(a);
        node->tensor_arg_pos.push_back(pos);
        ctx->needs_input_grad_.push_back(a.defined() && a.requires_grad() && grad_enabled());
      } else {
        ctx->needs_input_grad_.push_back(false);
      }
      ++pos;
    };
    (collect(args), ...);
    node->num_args = size_t(pos);
    node->node_name = std::string(typeid(T).name()) + "Backward";
    ctx->name_ = node->node_name;
    bool record = needs_grad(inputs);
    using Out = decltype(T::forward(ctx, std::forward<Args>(args)...));
    Out result = [&] {
      GradModeGuard guard(false);
      return T::forward(ctx, std::forward<Args>(args)...);
    }();
    TensorList outs;
    if constexpr (std::is_same_v<std::decay_t<Out>, Tensor>)
      outs = {result};
    else
      outs = TensorList(result.begin(), result.end());
    if (record) {
      attach_custom_node(node, inputs, outs, ctx->non_differentiable_);
      ctx->node_ = node;
      save_custom_tensors(ctx, outs);
    } else {
      ctx->to_save_.clear();
    }
    if constexpr (std::is_same_v<std::decay_t<Out>, Tensor>)
      return outs[0];
    else
      return outs;
  }
};

}  // namespace tc::autograd
