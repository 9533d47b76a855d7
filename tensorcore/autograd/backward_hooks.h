#pragma once
// Hooks the data-parallel reducer needs from the engine (torch's grad-accumulator post hooks and
// Variable._execution_engine.queue_callback): run after a leaf's .grad was written, and once when
// the current backward pass ends.
#include <functional>
#include <memory>

namespace tc::autograd {

struct Node;

// `accumulator` is the leaf's AccumulateGrad node (gradient_edge(leaf).fn); keep it alive while
// the hook is registered. Returns a handle for remove_post_accumulate_hook.
int add_post_accumulate_hook(const std::shared_ptr<Node>& accumulator, std::function<void()> hook);
void remove_post_accumulate_hook(int handle);
void run_post_accumulate_hooks(const Node* accumulator);

// Runs `fn` on this thread when the outermost running backward pass finishes successfully.
void queue_callback(std::function<void()> fn);

namespace detail {
// Engine bookkeeping: enter/leave a backward pass; leave(true) runs the queued callbacks.
void enter_backward();
void leave_backward(bool success);
}  // namespace detail

}  // namespace tc::autograd
