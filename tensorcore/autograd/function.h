#pragma once
// How ops attach themselves to the graph:
//
//   if (autograd::needs_grad({a, b}))
//     autograd::record("MulBackward", {a, b}, {out}, {a, b},
//         [](const TensorList& s, const TensorList& g) -> TensorList {
//           return {mul(g[0], conj(s[1])), mul(g[0], conj(s[0]))};
//         });
//
// Gradients returned in the broadcast shape are summed back to each input's shape and cast to
// its dtype by the node, so vjps stay short.
#include <initializer_list>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/autograd/node.h"

namespace tc::autograd {

bool needs_grad(std::initializer_list<Tensor> inputs);
bool needs_grad(const TensorList& inputs);

// Makes `outputs` results of a new FunctionNode whose inputs are `inputs`. Saved tensors may be
// inputs or outputs (detected by identity).
void record(const char* name, const TensorList& inputs, const TensorList& outputs,
            const TensorList& saved, VjpFn vjp);

// Runs backward from `roots`. With `capture_inputs`, returns gradients for those tensors
// instead of accumulating into .grad (autograd.grad).
TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph,
                        bool create_graph, const TensorList& capture_inputs = {},
                        bool allow_unused = false, bool accumulate_into_grad = true);

// torch.autograd.grad
TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs = {}, std::optional<bool> retain_graph = {},
                bool create_graph = false, bool allow_unused = false);

// For in-place ops that overwrite every element of `t` with values that do not depend on its
// old ones (fill_, uniform_, ...): records a zero gradient for the old value, so gradients stop
// there (and, through a view, at the overwritten region of the base).
void record_overwrite(const Tensor& t, const char* op);

// For in-place ops `self.op_(other)` that save `other` for backward: when `other` shares
// self's memory (x.mul_(x)), the op would overwrite the value backward needs, so this returns
// a differentiable copy of it instead (otherwise `other` itself).
Tensor unalias_operand(const Tensor& other, const Tensor& self);

// For in-place ops: checks a leaf is not modified in place while requiring grad.
void check_inplace(const Tensor& self, const char* op);

}  // namespace tc::autograd
