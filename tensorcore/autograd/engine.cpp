#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "tensorcore/autograd/backward_hooks.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/view_history.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/profiler/profiler.h"

namespace tc::autograd {

bool needs_grad(std::initializer_list<Tensor> inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

bool needs_grad(const TensorList& inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

void record(const char* name, const TensorList& inputs, const TensorList& outputs,
            const TensorList& saved, VjpFn vjp) {
  auto node = std::make_shared<FunctionNode>(name, std::move(vjp));
  node->connect_inputs(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->output_meta.push_back({out.sizes(), out.dtype(), out.device()});
    if (!is_floating(out.dtype()) && !is_complex(out.dtype())) continue;  // e.g. argmax indices
    // An in-place op: its output is one of its inputs.
    std::vector<size_t> self_slots;
    for (size_t j = 0; j < inputs.size(); ++j)
      if (inputs[j].defined() && inputs[j].is_same(out)) self_slots.push_back(j);
    if (!self_slots.empty()) {
      if (rebase_view_history(out, node, inputs, self_slots)) continue;
      bump_history(out);
    }
    auto& m = out.ensure_autograd_meta();
    m.grad_fn = node;
    m.output_nr = uint32_t(i);
    m.requires_grad = true;
  }
  // Saved tensors are recorded after the outputs are attached, so outputs know their output_nr.
  for (const Tensor& s : saved) {
    bool is_output = false;
    for (const Tensor& o : outputs)
      if (s.defined() && s.is_same(o)) is_output = true;
    node->saved.emplace_back(s, is_output);
  }
}

Tensor unalias_operand(const Tensor& other, const Tensor& self) {
  if (other.defined() && other.storage() == self.storage() && needs_grad({self, other}))
    return clone(other);
  return other;
}

void record_overwrite(const Tensor& t, const char* op) {
  if (!needs_grad({t})) return;
  record(op, {t}, {t}, {},
         [](const TensorList&, const TensorList& g) -> TensorList { return {zeros_like(g[0])}; });
}

void check_inplace(const Tensor& self, const char* op) {
  if (!grad_enabled()) return;
  auto* m = self.autograd_meta();
  TC_CHECK_AS(Error, !(m && m->requires_grad && !m->grad_fn), op,
              ": a leaf Variable that requires grad is being used in an in-place operation");
  if (const auto& root = self.impl()->view_base) {
    auto* bm = root->autograd.get();
    TC_CHECK_AS(Error, !(bm && bm->requires_grad && !bm->grad_fn), op,
                ": a view of a leaf Variable that requires grad is being used in an in-place "
                "operation");
  }
}

namespace {

struct CaptureSlot {
  Node* node;
  uint32_t input_nr;
};

// Adds a gradient into an input buffer slot.
void accumulate(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  slot = slot.defined() ? add(slot, g) : g;
}

}  // namespace

namespace {
TensorList run_backward_impl(const TensorList& roots, const TensorList& grad_roots,
                             bool retain_graph, bool create_graph, const TensorList& capture_inputs,
                             bool allow_unused, bool accumulate_into_grad);
}  // namespace

TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph,
                        bool create_graph, const TensorList& capture_inputs, bool allow_unused,
                        bool accumulate_into_grad) {
  // Callbacks queued during the pass (the DDP reducer's) run when the outermost pass ends.
  detail::enter_backward();
  TensorList out;
  try {
    out = run_backward_impl(roots, grad_roots, retain_graph, create_graph, capture_inputs,
                            allow_unused, accumulate_into_grad);
  } catch (...) {
    detail::leave_backward(false);
    throw;
  }
  detail::leave_backward(true);
  return out;
}

namespace {
TensorList run_backward_impl(const TensorList& roots, const TensorList& grad_roots,
                             bool retain_graph, bool create_graph, const TensorList& capture_inputs,
                             bool allow_unused, bool accumulate_into_grad) {
  GradModeGuard mode(create_graph);
  // Where gradients for the requested inputs arrive (autograd.grad / backward(inputs=...)).
  std::vector<CaptureSlot> captures;
  std::vector<std::shared_ptr<Node>> keep_alive;
  for (const Tensor& t : capture_inputs) {
    TC_CHECK_AS(Error, t.requires_grad(),
                "one of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(t);
    keep_alive.push_back(e.fn);
    captures.push_back({e.fn.get(), e.input_nr});
  }
  bool capturing = !captures.empty() && !accumulate_into_grad;
  TensorList captured(captures.size());

  // Dependency counts over the reachable graph.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, TensorList> buffers;
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  std::vector<std::shared_ptr<Node>> root_nodes;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    TC_CHECK_AS(Error, r.requires_grad(), "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    Edge e = gradient_edge(r);
    Tensor g = grad_roots.size() > i && grad_roots[i].defined() ? grad_roots[i] : ones_like(r);
    TC_CHECK(g.sizes() == r.sizes(), "backward: gradient has shape ", shape_str(g.sizes()),
             " but the output has shape ", shape_str(r.sizes()));
    Node* n = e.fn.get();
    root_nodes.push_back(e.fn);
    auto& buf = buffers[n];
    if (buf.size() <= e.input_nr) buf.resize(e.input_nr + 1);
    // Output slots of a node are its grads; the root gradient goes in output slot output_nr.
    accumulate(buf[e.input_nr], g);
    if (seen.insert(n).second) stack.push_back(n);
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (auto& e : n->next_edges) {
      if (!e.valid()) continue;
      Node* next = e.fn.get();
      deps[next]++;
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
  // With capture-only backward, skip nodes from which no captured input is reachable.
  std::unordered_set<Node*> needed;
  if (capturing) {
    std::unordered_map<Node*, bool> memo;
    std::function<bool(Node*)> visit = [&](Node* n) -> bool {
      if (auto it = memo.find(n); it != memo.end()) return it->second;
      memo[n] = false;
      bool need = false;
      for (auto& c : captures)
        if (c.node == n) need = true;
      for (auto& e : n->next_edges)
        if (e.valid() && visit(e.fn.get())) need = true;
      memo[n] = need;
      return need;
    };
    for (auto& r : root_nodes) visit(r.get());
    for (auto& [n, need] : memo)
      if (need) needed.insert(n);
  }

  auto cmp = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(cmp)> ready(cmp);
  for (auto& r : root_nodes)
    if (deps[r.get()] == 0) ready.push(r.get());
  std::unordered_set<Node*> queued;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    if (!queued.insert(n).second) continue;
    TensorList grads = std::move(buffers[n]);
    buffers.erase(n);
    // Tensor hooks on this node's outputs.
    for (auto& [slot, hooks] : n->pre_hooks) {
      if (slot >= grads.size() || !grads[slot].defined()) continue;
      for (auto& h : hooks) {
        Tensor replaced = h(grads[slot]);
        if (replaced.defined()) grads[slot] = replaced;
      }
    }
    for (size_t c = 0; c < captures.size(); ++c) {
      if (captures[c].node == n && captures[c].input_nr < grads.size())
        captured[c] = grads[captures[c].input_nr];
    }
    bool run = capturing ? needed.count(n) && !dynamic_cast<AccumulateGrad*>(n) : true;
    if (capturing) {
      // Only run nodes that lead to a captured tensor, and never write .grad.
      bool is_capture_target = false;
      for (auto& c : captures)
        if (c.node == n) is_capture_target = true;
      bool leads_further = false;
      for (auto& e : n->next_edges)
        if (e.valid() && needed.count(e.fn.get())) leads_further = true;
      if (is_capture_target && !leads_further) run = false;
    }
    TensorList out;
    if (run) {
      FunctionNode* fn = dynamic_cast<FunctionNode*>(n);
      size_t nout = fn ? fn->output_meta.size() : 1;
      if (grads.size() < nout) grads.resize(nout);
      profiler::RecordFunction span(profiler::enabled() ? n->name() : std::string(), n->sequence_nr,
                                    profiler::EventType::Backward);
      out = n->apply(std::move(grads));
      if (!retain_graph) n->release_saved();
    }
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      Node* next = e.fn.get();
      if (i < out.size() && out[i].defined()) {
        auto& buf = buffers[next];
        if (buf.size() <= e.input_nr) buf.resize(e.input_nr + 1);
        accumulate(buf[e.input_nr], out[i]);
      }
      if (--deps[next] == 0) ready.push(next);
    }
  }
  if (capturing) {
    for (size_t c = 0; c < captured.size(); ++c) {
      TC_CHECK_AS(Error, captured[c].defined() || allow_unused,
                  "one of the differentiated Tensors appears to not have been used in the graph. "
                  "Set allow_unused=True if this is the desired behavior.");
    }
  }
  return captured;
}
}  // namespace

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  TC_CHECK(!inputs.empty(), "autograd.grad: grad requires at least one input");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph,
                      inputs, allow_unused, false);
}

}  // namespace tc::autograd
