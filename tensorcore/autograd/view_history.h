#pragma once
// Autograd through in-place ops on views (torch's CopySlices). When an in-place op writes
// through a view V of base B, the result is recorded on B: B's new grad_fn routes the gradient
// of the written region through the op's vjp and everything else to B's old history. V (and any
// other view of B) then gets a fresh grad_fn that reads its region out of B's gradient; that
// happens lazily, when the view's grad_fn or requires_grad is next queried.
#include "tensorcore/autograd/node.h"

namespace tc::autograd {

// Called by record() for an output that is also one of the inputs (an in-place op). Returns
// true if `out` is a view and the history was recorded on its base instead; `op` is the node
// the op built, `self_slots` the positions of `out` among the op's inputs.
bool rebase_view_history(const Tensor& out, const std::shared_ptr<FunctionNode>& op,
                         const TensorList& inputs, const std::vector<size_t>& self_slots);

// Gives a view a grad_fn reading from its base's current history, if the base's history was
// rewritten since the view last looked.
void refresh_view_history(const Tensor& view);

// Marks a non-view tensor whose history an in-place op just rewrote, so its views refresh.
void bump_history(const Tensor& t);

}  // namespace tc::autograd
