#include "tensorcore/autograd/backward_hooks.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

namespace tc::autograd {
namespace {

struct HookEntry {
  const Node* node;
  std::function<void()> fn;
};

std::mutex g_mutex;
std::map<int, HookEntry> g_hooks;  // ordered by registration
std::atomic<int> g_count{0};
int g_next_handle = 1;

thread_local int t_depth = 0;
thread_local std::vector<std::function<void()>> t_callbacks;

}  // namespace

int add_post_accumulate_hook(const std::shared_ptr<Node>& accumulator, std::function<void()> hook) {
  std::lock_guard<std::mutex> g(g_mutex);
  int h = g_next_handle++;
  g_hooks[h] = {accumulator.get(), std::move(hook)};
  g_count.store(int(g_hooks.size()));
  return h;
}

void remove_post_accumulate_hook(int handle) {
  std::lock_guard<std::mutex> g(g_mutex);
  g_hooks.erase(handle);
  g_count.store(int(g_hooks.size()));
}

void run_post_accumulate_hooks(const Node* accumulator) {
  if (g_count.load(std::memory_order_relaxed) == 0) return;
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> g(g_mutex);
    for (auto& [h, e] : g_hooks)
      if (e.node == accumulator) todo.push_back(e.fn);
  }
  for (auto& fn : todo) fn();
}

void queue_callback(std::function<void()> fn) { t_callbacks.push_back(std::move(fn)); }

namespace detail {
void enter_backward() { ++t_depth; }
void leave_backward(bool success) {
  if (--t_depth > 0) return;
  auto callbacks = std::move(t_callbacks);
  t_callbacks.clear();
  if (!success) return;
  // A callback may queue another (it then runs in this same pass).
  for (size_t i = 0; i < callbacks.size(); ++i) callbacks[i]();
  while (!t_callbacks.empty()) {
    auto more = std::move(t_callbacks);
    t_callbacks.clear();
    for (auto& fn : more) fn();
  }
}
}  // namespace detail

}  // namespace tc::autograd
