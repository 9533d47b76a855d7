#pragma once
// ProcessGroup: the collective-communication interface (torch.distributed's ProcessGroup). Each
// backend (Gloo for CPU tensors, NCCL for CUDA tensors) implements it over its engine; every
// operation returns a Work handle that completes asynchronously (wait() rethrows a failure).
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/distributed/store.h"

namespace tc::distributed {

enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR };
const char* reduce_op_name(ReduceOp op);

// Completion of one operation. wait() blocks until done and rethrows its error, if any.
class Work {
 public:
  explicit Work(std::string op_name = "") : op_name_(std::move(op_name)) {}
  virtual ~Work() = default;
  virtual bool is_completed();
  virtual bool is_success();
  std::exception_ptr exception();
  // Returns true on completion; with a timeout (> 0 ms) raises when it passes first.
  virtual bool wait(Milliseconds timeout = Milliseconds(0));
  // The tensors the operation produced (for all_reduce: the reduced tensor).
  virtual TensorList result();
  const std::string& op_name() const { return op_name_; }

  void finish(TensorList result = {});
  void finish_error(std::exception_ptr err);

 protected:
  std::string op_name_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
  TensorList result_;
};

// A Work whose result is computed from another's when waited on (Future.then in torch): used by
// the communication hooks to post-process a reduced bucket.
class ThenWork final : public Work {
 public:
  ThenWork(std::shared_ptr<Work> inner, std::function<TensorList(TensorList)> then);
  bool is_completed() override;
  bool wait(Milliseconds timeout = Milliseconds(0)) override;
  TensorList result() override;

 private:
  std::shared_ptr<Work> inner_;
  std::function<TensorList(TensorList)> then_;
  bool applied_ = false;
};

// A Work that is already complete with these tensors.
std::shared_ptr<Work> completed_work(TensorList result, std::string op_name = "");

struct AllToAllSplits {
  std::vector<int64_t> output_split_sizes;  // empty = equal splits
  std::vector<int64_t> input_split_sizes;
};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend_name() const = 0;

  virtual std::shared_ptr<Work> allreduce(const TensorList& tensors, ReduceOp op) = 0;
  virtual std::shared_ptr<Work> broadcast(const TensorList& tensors, int root) = 0;
  // The result lands in tensors[0] on `root` (other ranks' tensors may be overwritten).
  virtual std::shared_ptr<Work> reduce(const TensorList& tensors, int root, ReduceOp op) = 0;
  // outputs: world-size tensors shaped like input.
  virtual std::shared_ptr<Work> allgather(const TensorList& outputs, const Tensor& input) = 0;
  // output: [world * input.numel()] contiguous (torch's all_gather_into_tensor).
  virtual std::shared_ptr<Work> allgather_into_tensor(const Tensor& output,
                                                      const Tensor& input) = 0;
  // outputs are read on `root` only.
  virtual std::shared_ptr<Work> gather(const TensorList& outputs, const Tensor& input,
                                       int root) = 0;
  // inputs are read on `root` only.
  virtual std::shared_ptr<Work> scatter(const Tensor& output, const TensorList& inputs,
                                        int root) = 0;
  virtual std::shared_ptr<Work> reduce_scatter(const Tensor& output, const TensorList& inputs,
                                               ReduceOp op) = 0;
  virtual std::shared_ptr<Work> reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                                      ReduceOp op) = 0;
  virtual std::shared_ptr<Work> alltoall(const TensorList& outputs, const TensorList& inputs) = 0;
  virtual std::shared_ptr<Work> alltoall_single(const Tensor& output, const Tensor& input,
                                                const AllToAllSplits& splits) = 0;
  virtual std::shared_ptr<Work> barrier() = 0;
  virtual std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag) = 0;
  virtual std::shared_ptr<Work> recv(const Tensor& tensor, int src, int tag) = 0;
  // Receives from any rank; the Work's result() is {tensor, tensor holding the source rank}.
  virtual std::shared_ptr<Work> recv_anysource(const Tensor& tensor, int tag) = 0;

  // Broadcasts many tensors from `root` in a few flat messages (DDP's start-up sync).
  void broadcast_coalesced(const TensorList& tensors, int root, size_t buffer_bytes = 1 << 24);

 protected:
  int rank_;
  int size_;
};

struct GlooOptions {
  Milliseconds timeout{1800000};
  // The address this rank's transport listens on (an IP or host name other ranks can reach);
  // empty picks the machine's host name, or GLOO_SOCKET_IFNAME's interface when set.
  std::string hostname;
  std::string iface;
  // Checks before each collective that every rank calls the same op with the same shapes and
  // dtypes (TORCH_DISTRIBUTED_DEBUG=DETAIL); costs one small all-gather per collective.
  bool debug_checks = false;
};

// Gloo over TCP. Construction rendezvouses through `store` (every rank of the group must call it).
std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store, int rank,
                                                      int size, GlooOptions options = {});
bool is_gloo_available();

struct NCCLOptions {
  Milliseconds timeout{1800000};
};
// NCCL for CUDA tensors (one device per process). Raises when built without NCCL.
std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store> store, int rank,
                                                      int size, NCCLOptions options = {});
bool is_nccl_available();

}  // namespace tc::distributed
