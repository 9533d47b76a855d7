#include "tensorcore/autograd/custom_function.h"

#include <algorithm>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"

namespace tc::autograd {

TensorList AutogradContext::get_saved_variables() const {
  TensorList out;
  auto node = node_.lock();
  for (const auto& s : saved_) out.push_back(s.unpack(node, name_.c_str()));
  return out;
}

void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.push_back(t.impl());
}

TensorList CustomNodeBase::prepare_grads(TensorList&& grads, bool materialize) const {
  grads.resize(output_meta.size());
  if (materialize) {
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = zeros_for(output_meta[i]);
  }
  return std::move(grads);
}

TensorList CustomNodeBase::finish_grads(const TensorList& per_arg) const {
  size_t n = per_arg.size();
  // Extra trailing undefined gradients are allowed (like torch).
  while (n > num_args && !per_arg[n - 1].defined()) --n;
  TC_CHECK_AS(Error, n == num_args, "function ", node_name,
              " returned an incorrect number of gradients (expected ", num_args, ", got ",
              per_arg.size(), ")");
  TensorList result(next_edges.size());
  for (size_t e = 0; e < next_edges.size(); ++e) {
    Tensor g = per_arg[size_t(tensor_arg_pos[e])];
    if (!g.defined() || !next_edges[e].valid()) continue;
    const InputMeta& m = input_meta[e];
    if (g.sizes() != m.shape) {
      bool ok = g.dim() >= int64_t(m.shape.size());
      for (size_t i = 0; ok && i < m.shape.size(); ++i) {
        int64_t gs = g.size(g.dim() - 1 - int64_t(i)), ms = m.shape[m.shape.size() - 1 - i];
        ok = gs == ms || ms == 1;
      }
      TC_CHECK_AS(Error, ok, "Function ", node_name, " returned an invalid gradient at index ",
                  tensor_arg_pos[e], " - got ", shape_str(g.sizes()),
                  " but expected shape compatible with ", shape_str(m.shape));
    }
    result[e] = match_input_meta(g, m);
  }
  return result;
}

void attach_custom_node(const std::shared_ptr<CustomNodeBase>& node, const TensorList& inputs,
                        TensorList& outputs, const std::vector<const TensorImpl*>& non_diff) {
  node->connect_inputs(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) {
      node->output_meta.push_back({});
      continue;
    }
    bool nd = std::find(non_diff.begin(), non_diff.end(), out.impl()) != non_diff.end();
    for (const Tensor& in : inputs)
      if (in.defined() && out.is_same(in)) out = out.detach();  // alias, not the input itself
    node->output_meta.push_back({out.sizes(), out.dtype(), out.device()});
    if (nd || !(is_floating(out.dtype()) || is_complex(out.dtype()))) continue;
    auto& m = out.ensure_autograd_meta();
    m.grad_fn = node;
    m.output_nr = uint32_t(i);
    m.requires_grad = true;
  }
}

void save_custom_tensors(AutogradContext* ctx, const TensorList& outputs) {
  for (const Tensor& s : ctx->to_save_) {
    bool is_output = false;
    for (const Tensor& o : outputs)
      if (s.defined() && s.is_same(o)) is_output = true;
    ctx->saved_.emplace_back(s, is_output);
  }
  ctx->to_save_.clear();
}

}  // namespace tc::autograd
