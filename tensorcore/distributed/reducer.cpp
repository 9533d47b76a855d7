#include "tensorcore/distributed/reducer.h"

#include <unordered_set>

#include "tensorcore/autograd/backward_hooks.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/autograd/node.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::distributed {

CommHook allreduce_hook(std::shared_ptr<ProcessGroup> pg) {
  return [pg](GradBucket& bucket) {
    Tensor buf = bucket.buffer;
    div_(buf, Scalar(double(pg->size())));
    return pg->allreduce({buf}, ReduceOp::SUM);
  };
}

CommHook fp16_compress_hook(std::shared_ptr<ProcessGroup> pg) {
  return [pg](GradBucket& bucket) -> std::shared_ptr<Work> {
    Tensor buf = bucket.buffer;
    Tensor half = to_dtype(buf, DType::Float16, true);
    div_(half, Scalar(double(pg->size())));
    auto work = pg->allreduce({half}, ReduceOp::SUM);
    return std::make_shared<ThenWork>(work, [buf](TensorList r) {
      Tensor out = buf;
      copy_(out, r.at(0));
      return TensorList{out};
    });
  };
}

Reducer::Reducer(TensorList parameters, std::vector<std::string> names,
                 std::shared_ptr<ProcessGroup> pg, ReducerOptions options)
    : params_(std::move(parameters)), names_(std::move(names)), pg_(std::move(pg)), opts_(options) {
  TC_CHECK(pg_ != nullptr, "DistributedDataParallel: process group is None");
  TC_CHECK(!params_.empty(),
           "DistributedDataParallel is not needed when a module doesn't have any parameter that "
           "requires a gradient.");
  TC_CHECK(opts_.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive");
  for (size_t i = names_.size(); i < params_.size(); ++i)
    names_.push_back("param" + std::to_string(i));
  size_t n = params_.size();
  param_bucket_.assign(n, 0);
  param_slot_.assign(n, 0);
  // Buckets in reverse parameter order: gradients of the last layers are ready first.
  int64_t cap = int64_t(opts_.bucket_cap_mb * 1024 * 1024);
  std::vector<size_t> current;
  int64_t current_bytes = 0;
  auto close = [&] {
    if (current.empty()) return;
    bucket_params_.push_back(current);
    current.clear();
    current_bytes = 0;
  };
  for (size_t k = n; k-- > 0;) {
    const Tensor& p = params_[k];
    TC_CHECK(p.requires_grad(), "DistributedDataParallel: parameter ", names_[k],
             " does not require grad");
    if (!current.empty()) {
      const Tensor& first = params_[current[0]];
      int64_t limit = bucket_params_.empty() ? std::min(cap, opts_.first_bucket_bytes) : cap;
      if (first.dtype() != p.dtype() || first.device() != p.device() ||
          current_bytes + int64_t(p.nbytes()) > limit)
        close();
    }
    current.push_back(k);
    current_bytes += int64_t(p.nbytes());
  }
  close();
  autograd::NoGradGuard no_grad;
  for (size_t b = 0; b < bucket_params_.size(); ++b) {
    Bucket bucket;
    bucket.params = bucket_params_[b];
    int64_t total = 0;
    for (size_t k : bucket.params) {
      bucket.offsets.push_back(total);
      total += params_[k].numel();
    }
    const Tensor& first = params_[bucket.params[0]];
    bucket.buffer = zeros({total}, TensorOptions(first.dtype()).device(first.device()));
    for (size_t j = 0; j < bucket.params.size(); ++j) {
      size_t k = bucket.params[j];
      param_bucket_[k] = b;
      param_slot_[k] = j;
      Tensor view = reshape(narrow(bucket.buffer, 0, bucket.offsets[j], params_[k].numel()),
                            params_[k].sizes());
      bucket.views.push_back(view);
      if (opts_.gradient_as_bucket_view) {
        Tensor g = params_[k].grad();
        if (g.defined()) {
          copy_(view, g);
          params_[k].set_grad(view);
        }
      }
    }
    buckets_.push_back(std::move(bucket));
  }
  // One hook per parameter on its gradient accumulator (kept alive here, as torch does).
  for (size_t k = 0; k < n; ++k) {
    auto acc = autograd::gradient_edge(params_[k]).fn;
    accumulators_.push_back(acc);
    hook_handles_.push_back(
        autograd::add_post_accumulate_hook(acc, [this, k] { mark_variable_ready(k); }));
  }
  ready_.assign(n, 0);
  unused_.assign(n, 0);
  local_used_ = zeros({int64_t(n)}, TensorOptions(DType::Int32));
}

Reducer::~Reducer() {
  for (int h : hook_handles_) autograd::remove_post_accumulate_hook(h);
  for (auto& b : buckets_)
    if (b.work) try {
        b.work->wait();
      } catch (...) {
      }
}

void Reducer::register_comm_hook(CommHook hook) {
  TC_CHECK(!comm_hook_,
           "register_comm_hook: a communication hook is already registered (it can "
           "only be registered once)");
  comm_hook_ = std::move(hook);
}

std::vector<std::string> Reducer::last_unused_parameters() const { return last_unused_; }

void Reducer::check_previous_iteration() {
  if (unfinished_.empty()) return;
  std::string names;
  for (size_t i = 0; i < unfinished_.size(); ++i) names += (i ? ", " : "") + unfinished_[i];
  unfinished_.clear();
  throw Error(detail::concat(
      "Expected to have finished reduction in the prior iteration before starting a new one. "
      "This error indicates that your module has parameters that were not used in producing "
      "loss. You can enable unused parameter detection by passing the keyword argument "
      "`find_unused_parameters=True` to `DistributedDataParallel`, and by making sure all "
      "`forward` function outputs participate in calculating loss. Parameters which did not "
      "receive grad for rank ",
      pg_->rank(), ": ", names));
}

void Reducer::prepare_for_backward(const TensorList& outputs) {
  check_previous_iteration();
  for (auto& b : buckets_) {
    b.pending = b.params.size();
    b.work.reset();
  }
  next_bucket_ = 0;
  used_work_.reset();
  std::fill(ready_.begin(), ready_.end(), 0);
  std::fill(unused_.begin(), unused_.end(), 0);
  zero_(local_used_);
  callback_queued_ = false;
  expect_hooks_ = true;
  find_unused_now_ = opts_.find_unused_parameters || (opts_.static_graph && !static_graph_known_);
  if (opts_.static_graph && static_graph_known_) {
    unused_ = static_unused_;
    return;
  }
  if (!find_unused_now_) return;
  // Parameters whose accumulator the graph of `outputs` does not reach get no gradient.
  std::unordered_set<autograd::Node*> seen;
  std::vector<autograd::Node*> stack;
  for (const Tensor& o : outputs) {
    if (!o.defined() || !o.requires_grad()) continue;
    auto e = autograd::gradient_edge(o);
    if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {
    autograd::Node* node = stack.back();
    stack.pop_back();
    for (auto& e : node->next_edges)
      if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  for (size_t k = 0; k < params_.size(); ++k) unused_[k] = !seen.count(accumulators_[k].get());
}

void Reducer::on_first_hook() {
  callback_queued_ = true;
  autograd::queue_callback([this] { finalize_backward(); });
  // Unused parameters contribute zeros, so their buckets can complete.
  for (size_t k = 0; k < params_.size(); ++k)
    if (unused_[k] && !ready_[k]) {
      Bucket& b = buckets_[param_bucket_[k]];
      Tensor view = b.views[param_slot_[k]];
      zero_(view);
      ready_[k] = 1;
      b.pending--;
    }
}

void Reducer::mark_variable_ready(size_t k) {
  if (!expect_hooks_) return;  // no_sync(), or a backward without a synchronized forward
  autograd::NoGradGuard no_grad;
  if (!callback_queued_) on_first_hook();
  TC_CHECK_AS(Error, !ready_[k], "Expected to mark a variable ready only once. Parameter ",
              names_[k],
              " has been marked as ready twice (it is used in several reentrant "
              "backward passes, or shared between modules in a way DDP cannot see; try "
              "static_graph=True)");
  ready_[k] = 1;
  local_used_.data<int32_t>()[k] = 1;
  Bucket& b = buckets_[param_bucket_[k]];
  Tensor view = b.views[param_slot_[k]];
  Tensor g = params_[k].grad();
  if (!g.defined()) {
    zero_(view);
  } else if (!g.is_same(view)) {
    copy_(view, g);
    if (opts_.gradient_as_bucket_view) params_[k].set_grad(view);
  }
  if (--b.pending == 0) mark_bucket_ready();
}

void Reducer::mark_bucket_ready() {
  // Buckets are reduced in index order on every rank, so collectives always line up.
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0)
    launch_bucket(next_bucket_++);
  if (next_bucket_ == buckets_.size() && find_unused_now_)
    used_work_ = pg_->allreduce({local_used_}, ReduceOp::MAX);
}

GradBucket Reducer::make_grad_bucket(size_t b, const Tensor& buffer) {
  GradBucket gb;
  gb.index = b;
  gb.buffer = buffer;
  gb.is_last = b + 1 == buckets_.size();
  const Bucket& bucket = buckets_[b];
  for (size_t j = 0; j < bucket.params.size(); ++j) {
    const Tensor& p = params_[bucket.params[j]];
    gb.gradients.push_back(reshape(narrow(buffer, 0, bucket.offsets[j], p.numel()), p.sizes()));
    gb.parameters.push_back(p);
  }
  return gb;
}

void Reducer::launch_bucket(size_t b) {
  Bucket& bucket = buckets_[b];
  GradBucket gb = make_grad_bucket(b, bucket.buffer);
  bucket.work = comm_hook_ ? comm_hook_(gb) : allreduce_hook(pg_)(gb);
}

void Reducer::finalize_backward() {
  expect_hooks_ = false;
  autograd::NoGradGuard no_grad;
  if (next_bucket_ < buckets_.size()) {
    // Some parameters got no gradient and unused-parameter detection is off: torch reports it
    // when the next iteration starts. Wait for what was launched so no buffer is in flight.
    for (auto& b : buckets_)
      if (b.work) b.work->wait();
    unfinished_.clear();
    for (size_t k = 0; k < params_.size(); ++k)
      if (!ready_[k]) unfinished_.push_back(names_[k]);
    return;
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    TensorList result = bucket.work->result();
    TC_CHECK_AS(Error, !result.empty(), "DDP communication hook for bucket ", b,
                " returned no tensor");
    if (!result[0].is_same(bucket.buffer)) {
      TC_CHECK(result[0].numel() == bucket.buffer.numel(), "DDP communication hook for bucket ", b,
               " returned ", result[0].numel(), " elements, expected ", bucket.buffer.numel());
      copy_(bucket.buffer, reshape(result[0], {-1}));
    }
  }
  std::vector<char> globally_unused(params_.size(), 0);
  if (used_work_) {
    used_work_->wait();
    for (size_t k = 0; k < params_.size(); ++k)
      globally_unused[k] = local_used_.data<int32_t>()[k] == 0;
  } else if (opts_.static_graph && static_graph_known_) {
    globally_unused = static_unused_;
  }
  if (opts_.static_graph && !static_graph_known_) {
    static_unused_ = globally_unused;
    static_graph_known_ = true;
  }
  last_unused_.clear();
  for (size_t k = 0; k < params_.size(); ++k) {
    if (globally_unused[k]) {
      last_unused_.push_back(names_[k]);
      continue;  // no rank produced a gradient: .grad stays as it was (None stays None)
    }
    Tensor view = buckets_[param_bucket_[k]].views[param_slot_[k]];
    Tensor g = params_[k].grad();
    if (opts_.gradient_as_bucket_view) {
      if (!g.is_same(view)) params_[k].set_grad(view);
    } else if (g.defined()) {
      copy_(g, view);
    } else {
      params_[k].set_grad(clone(view));
    }
  }
  ++iteration_;
}

void Reducer::run_join_shadow() {
  autograd::NoGradGuard no_grad;
  TensorList results;
  std::vector<std::shared_ptr<Work>> works;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Tensor zero = zeros_like(buckets_[b].buffer);
    GradBucket gb = make_grad_bucket(b, zero);
    works.push_back(comm_hook_ ? comm_hook_(gb) : allreduce_hook(pg_)(gb));
  }
  bool detect = opts_.find_unused_parameters || (opts_.static_graph && !static_graph_known_);
  if (detect)
    works.push_back(pg_->allreduce({zeros({int64_t(params_.size())}, TensorOptions(DType::Int32))},
                                   ReduceOp::MAX));
  for (auto& w : works) w->wait();
}

}  // namespace tc::distributed
