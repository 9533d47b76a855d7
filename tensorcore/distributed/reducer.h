#pragma once
// The DistributedDataParallel reducer (torch 1.8's C++ Reducer): parameters are grouped into
// flat gradient buckets in reverse order; as the backward pass accumulates each parameter's
// gradient, a post-accumulate hook copies it into its bucket, and a bucket whose gradients are
// all ready is all-reduced asynchronously while backward continues. When backward ends the
// averaged buckets are copied back into .grad.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensorcore/distributed/process_group.h"

namespace tc::autograd {
struct Node;
}

namespace tc::distributed {

// What a communication hook sees (torch's GradBucket).
struct GradBucket {
  size_t index = 0;
  Tensor buffer;         // flat, all of the bucket's gradients
  TensorList gradients;  // views of buffer shaped like the parameters
  TensorList parameters;
  bool is_last = false;
};

// A hook reduces bucket.buffer across the group; the Work's result()[0] is the averaged buffer.
using CommHook = std::function<std::shared_ptr<Work>(GradBucket&)>;
// torch's default: divide by the world size, then all-reduce SUM.
CommHook allreduce_hook(std::shared_ptr<ProcessGroup> pg);
// Communicates in float16 and casts back (halves the traffic).
CommHook fp16_compress_hook(std::shared_ptr<ProcessGroup> pg);

struct ReducerOptions {
  double bucket_cap_mb = 25.0;
  int64_t first_bucket_bytes = 1 << 20;  // small first bucket: communication starts early
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
  bool static_graph = false;
};

class Reducer {
 public:
  Reducer(TensorList parameters, std::vector<std::string> names, std::shared_ptr<ProcessGroup> pg,
          ReducerOptions options = {});
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Call after each forward whose output will be back-propagated with synchronization on.
  // `outputs` are used to find parameters the graph does not reach (find_unused_parameters).
  void prepare_for_backward(const TensorList& outputs);
  // Mirrors the collectives of one backward pass with zero gradients, for a rank that has run out
  // of inputs while others train on (DistributedDataParallel.join).
  void run_join_shadow();
  void register_comm_hook(CommHook hook);
  // Bucket index -> parameter indices (reverse order within the model).
  const std::vector<std::vector<size_t>>& bucket_indices() const { return bucket_params_; }
  // Parameters found unused in the last iteration (find_unused_parameters / static_graph).
  std::vector<std::string> last_unused_parameters() const;
  const std::shared_ptr<ProcessGroup>& process_group() const { return pg_; }

 private:
  struct Bucket {
    Tensor buffer;
    std::vector<size_t> params;
    std::vector<int64_t> offsets;
    TensorList views;
    size_t pending = 0;
    std::shared_ptr<Work> work;
  };
  void mark_variable_ready(size_t index);
  void mark_bucket_ready();
  void launch_bucket(size_t b);
  void finalize_backward();
  void on_first_hook();
  GradBucket make_grad_bucket(size_t b, const Tensor& buffer);
  void check_previous_iteration();

  TensorList params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> pg_;
  ReducerOptions opts_;
  std::vector<Bucket> buckets_;
  std::vector<std::vector<size_t>> bucket_params_;
  std::vector<size_t> param_bucket_;
  std::vector<size_t> param_slot_;
  std::vector<std::shared_ptr<autograd::Node>> accumulators_;
  std::vector<int> hook_handles_;
  CommHook comm_hook_;

  // Per-iteration state.
  bool expect_hooks_ = false;
  bool callback_queued_ = false;
  bool find_unused_now_ = false;
  size_t next_bucket_ = 0;
  std::vector<char> ready_;
  std::vector<char> unused_;
  Tensor local_used_;
  std::shared_ptr<Work> used_work_;
  std::vector<std::string> unfinished_;  // params that got no grad while sync was expected
  bool static_graph_known_ = false;
  std::vector<char> static_unused_;
  std::vector<std::string> last_unused_;
  int iteration_ = 0;
};

}  // namespace tc::distributed
