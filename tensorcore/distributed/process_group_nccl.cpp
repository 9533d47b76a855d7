// ProcessGroup over NCCL for CUDA tensors (one device per process). Each collective runs on the
// group's own stream after waiting for the caller's current stream, and its Work completes with
// a CUDA event. Work.wait() polls the event and NCCL's asynchronous error state: a peer that died
// or a collective that ran past the timeout aborts the communicator and raises an error naming
// the op, its sequence number and this rank (seed 1.7's NCCL async error handling).
#include "tensorcore/distributed/process_group.h"

#ifdef TC_WITH_NCCL
#include <nccl.h>

#include <atomic>
#include <thread>

#include "tensorcore/cuda/cuda.h"
#include "tensorcore/cuda/cuda_check.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"
#endif

namespace tc::distributed {

#ifndef TC_WITH_NCCL
std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store>, int, int,
                                                      NCCLOptions) {
  throw NotImplementedError(
      "Distributed package doesn't have NCCL built in (tensorcore was built without CUDA/NCCL)");
}
bool is_nccl_available() { return false; }
#else

bool is_nccl_available() { return true; }

namespace {

#define TC_NCCL_CHECK(expr, what)                                                               \
  do {                                                                                          \
    ncclResult_t tc_r_ = (expr);                                                                \
    TC_CHECK_AS(Error, tc_r_ == ncclSuccess, what, ": NCCL error: ", ncclGetErrorString(tc_r_), \
                " (", #expr, ")");                                                              \
  } while (0)

ncclDataType_t nccl_type(DType dt, const char* op) {
  switch (dt) {
    case DType::Bool:
    case DType::UInt8:
      return ncclUint8;
    case DType::Int8:
      return ncclInt8;
    case DType::Int32:
      return ncclInt32;
    case DType::Int64:
      return ncclInt64;
    case DType::Float16:
      return ncclFloat16;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
    case DType::BFloat16:
      return ncclBfloat16;
#endif
    case DType::Float32:
    case DType::Complex64:
      return ncclFloat32;  // complex: the interleaved real view
    case DType::Float64:
    case DType::Complex128:
      return ncclFloat64;
    default:
      break;
  }
  throw TypeError(detail::concat(op, ": the nccl backend does not support dtype ", dtype_name(dt)));
}

size_t nccl_count(const Tensor& t) { return size_t(t.numel()) * (is_complex(t.dtype()) ? 2 : 1); }

ncclRedOp_t nccl_op(ReduceOp op, DType dt, const char* name) {
  if (dt == DType::Bool) {
    // Booleans travel as bytes: any/all become max/min.
    if (op == ReduceOp::SUM || op == ReduceOp::MAX || op == ReduceOp::BOR) return ncclMax;
    if (op == ReduceOp::PRODUCT || op == ReduceOp::MIN || op == ReduceOp::BAND) return ncclMin;
  }
  if (is_complex(dt) && op != ReduceOp::SUM && op != ReduceOp::AVG)
    throw ValueError(detail::concat(name, ": ReduceOp.", reduce_op_name(op),
                                    " is not supported for complex tensors"));
  switch (op) {
    case ReduceOp::SUM:
      return ncclSum;
    case ReduceOp::PRODUCT:
      return ncclProd;
    case ReduceOp::MIN:
      return ncclMin;
    case ReduceOp::MAX:
      return ncclMax;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
    case ReduceOp::AVG:
      return ncclAvg;
#endif
    default:
      break;
  }
  throw ValueError(detail::concat(name, ": ReduceOp.", reduce_op_name(op),
                                  " is not supported by the nccl backend"));
}

class WorkNCCL final : public Work {
 public:
  WorkNCCL(std::string name, uint64_t seq, int rank, ncclComm_t comm, Milliseconds timeout,
           TensorList keep_alive, TensorList result)
      : Work(std::move(name)),
        seq_(seq),
        rank_(rank),
        comm_(comm),
        timeout_(timeout),
        keep_(std::move(keep_alive)),
        pending_result_(std::move(result)),
        start_(std::chrono::steady_clock::now()) {}

  void record(const cuda::Stream& s) { event_.record(s); }

  bool is_completed() override {
    if (Work::is_completed()) return true;
    return poll(false);
  }

  bool wait(Milliseconds timeout) override {
    auto limit = timeout.count() > 0 ? timeout : timeout_;
    while (!poll(true, limit)) std::this_thread::sleep_for(std::chrono::microseconds(50));
    return Work::wait();
  }

 private:
  // Returns true once finished (successfully or not).
  bool poll(bool enforce_timeout, Milliseconds limit = Milliseconds(0)) {
    if (Work::is_completed()) return true;
    if (event_.query()) {
      keep_.clear();
      finish(pending_result_);
      return true;
    }
    ncclResult_t async_err = ncclSuccess;
    ncclCommGetAsyncError(comm_, &async_err);
    std::string why;
    if (async_err != ncclSuccess) {
      why = detail::concat("NCCL reported an asynchronous error: ", ncclGetErrorString(async_err),
                           " (a peer rank died or its connection broke)");
    } else if (enforce_timeout) {
      auto ran =
          std::chrono::duration_cast<Milliseconds>(std::chrono::steady_clock::now() - start_);
      if (ran > limit)
        why = detail::concat("Watchdog caught collective operation timeout: it ran for ",
                             ran.count(), " ms (timeout ", limit.count(),
                             " ms); a peer rank is hung or did not call this collective");
    }
    if (why.empty()) return false;
    ncclCommAbort(comm_);  // unblocks the stream; the communicator is unusable afterwards
    finish_error(std::make_exception_ptr(Error(detail::concat(
        op_name_, " (collective #", seq_, ") failed on rank ", rank_, " (nccl): ", why))));
    return true;
  }

  uint64_t seq_;
  int rank_;
  ncclComm_t comm_;
  Milliseconds timeout_;
  TensorList keep_;
  TensorList pending_result_;
  std::chrono::steady_clock::time_point start_;
  cuda::Event event_;
};

class ProcessGroupNCCL final : public ProcessGroup {
 public:
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, NCCLOptions opts)
      : ProcessGroup(rank, size), store_(std::move(store)), opts_(opts) {
    TC_CHECK(rank >= 0 && rank < size, "ProcessGroupNCCL: rank ", rank,
             " is out of range for world size ", size);
  }
  ~ProcessGroupNCCL() override {
    if (comm_) ncclCommDestroy(comm_);
  }
  std::string backend_name() const override { return "nccl"; }

  std::shared_ptr<Work> allreduce(const TensorList& ts, ReduceOp op) override {
    Tensor t = one(ts, "all_reduce");
    ncclRedOp_t rop = nccl_op(op, t.dtype(), "all_reduce");
    return launch("all_reduce", {t}, {t}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), nccl_count(t),
                                  nccl_type(t.dtype(), "all_reduce"), rop, comm_, s),
                    "all_reduce");
    });
  }

  std::shared_ptr<Work> broadcast(const TensorList& ts, int root) override {
    Tensor t = one(ts, "broadcast");
    check_rank(root, "broadcast");
    return launch("broadcast", {t}, {t}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(ncclBroadcast(t.data_ptr(), t.data_ptr(), nccl_count(t),
                                  nccl_type(t.dtype(), "broadcast"), root, comm_, s),
                    "broadcast");
    });
  }

  std::shared_ptr<Work> reduce(const TensorList& ts, int root, ReduceOp op) override {
    Tensor t = one(ts, "reduce");
    check_rank(root, "reduce");
    ncclRedOp_t rop = nccl_op(op, t.dtype(), "reduce");
    return launch("reduce", {t}, {t}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(ncclReduce(t.data_ptr(), t.data_ptr(), nccl_count(t),
                               nccl_type(t.dtype(), "reduce"), rop, root, comm_, s),
                    "reduce");
    });
  }

  std::shared_ptr<Work> allgather(const TensorList& outputs, const Tensor& input) override {
    check(input, "all_gather");
    TC_CHECK(int(outputs.size()) == size_, "all_gather: expected ", size_, " output tensors");
    for (auto& o : outputs) check_like(o, input, "all_gather");
    Tensor flat = empty({int64_t(size_) * input.numel()},
                        TensorOptions(input.dtype()).device(input.device()));
    auto work = allgather_into_tensor(flat, input);
    // The copies run on the caller's stream after the gather (stream-ordered, no host wait).
    wait_on_group_stream(input.device().index);
    for (int r = 0; r < size_; ++r) {
      Tensor dst = outputs[size_t(r)];
      copy_(dst, reshape(narrow(flat, 0, r * input.numel(), input.numel()), dst.sizes()));
    }
    return work;
  }

  std::shared_ptr<Work> allgather_into_tensor(const Tensor& output, const Tensor& input) override {
    check(input, "all_gather_into_tensor");
    check(output, "all_gather_into_tensor");
    TC_CHECK(output.numel() == input.numel() * size_, "all_gather_into_tensor: output must have ",
             input.numel() * size_, " elements, got ", output.numel());
    return launch("all_gather", {input, output}, {output}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(ncclAllGather(input.data_ptr(), output.data_ptr(), nccl_count(input),
                                  nccl_type(input.dtype(), "all_gather"), comm_, s),
                    "all_gather");
    });
  }

  std::shared_ptr<Work> gather(const TensorList& outputs, const Tensor& input, int root) override {
    check(input, "gather");
    check_rank(root, "gather");
    if (rank_ == root) {
      TC_CHECK(int(outputs.size()) == size_, "gather: the destination needs ", size_, " tensors");
      for (auto& o : outputs) check_like(o, input, "gather");
    }
    TensorList keep = outputs;
    keep.push_back(input);
    return launch("gather", keep, outputs, [&](cudaStream_t s) {
      ncclDataType_t ty = nccl_type(input.dtype(), "gather");
      TC_NCCL_CHECK(ncclGroupStart(), "gather");
      if (rank_ == root) {
        for (int r = 0; r < size_; ++r) {
          const Tensor& o = outputs[size_t(r)];
          if (r == rank_)
            TC_CUDA_CHECK(cudaMemcpyAsync(o.data_ptr(), input.data_ptr(), input.nbytes(),
                                          cudaMemcpyDeviceToDevice, s));
          else
            TC_NCCL_CHECK(ncclRecv(o.data_ptr(), nccl_count(o), ty, r, comm_, s), "gather");
        }
      } else {
        TC_NCCL_CHECK(ncclSend(input.data_ptr(), nccl_count(input), ty, root, comm_, s), "gather");
      }
      TC_NCCL_CHECK(ncclGroupEnd(), "gather");
    });
  }

  std::shared_ptr<Work> scatter(const Tensor& output, const TensorList& inputs, int root) override {
    check(output, "scatter");
    check_rank(root, "scatter");
    if (rank_ == root) {
      TC_CHECK(int(inputs.size()) == size_, "scatter: the source needs ", size_, " tensors");
      for (auto& i : inputs) check_like(i, output, "scatter");
    }
    TensorList keep = inputs;
    keep.push_back(output);
    return launch("scatter", keep, {output}, [&](cudaStream_t s) {
      ncclDataType_t ty = nccl_type(output.dtype(), "scatter");
      TC_NCCL_CHECK(ncclGroupStart(), "scatter");
      if (rank_ == root) {
        for (int r = 0; r < size_; ++r) {
          const Tensor& i = inputs[size_t(r)];
          if (r == rank_)
            TC_CUDA_CHECK(cudaMemcpyAsync(output.data_ptr(), i.data_ptr(), i.nbytes(),
                                          cudaMemcpyDeviceToDevice, s));
          else
            TC_NCCL_CHECK(ncclSend(i.data_ptr(), nccl_count(i), ty, r, comm_, s), "scatter");
        }
      } else {
        TC_NCCL_CHECK(ncclRecv(output.data_ptr(), nccl_count(output), ty, root, comm_, s),
                      "scatter");
      }
      TC_NCCL_CHECK(ncclGroupEnd(), "scatter");
    });
  }

  std::shared_ptr<Work> reduce_scatter(const Tensor& output, const TensorList& inputs,
                                       ReduceOp op) override {
    TC_CHECK(int(inputs.size()) == size_, "reduce_scatter: expected ", size_, " input tensors");
    TensorList parts;
    for (auto& i : inputs) {
      check_like(i, output, "reduce_scatter");
      parts.push_back(reshape(i, {-1}));
    }
    return reduce_scatter_tensor(output, cat(parts, 0), op);
  }

  std::shared_ptr<Work> reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                              ReduceOp op) override {
    check(output, "reduce_scatter");
    check(input, "reduce_scatter");
    TC_CHECK(input.numel() == output.numel() * size_, "reduce_scatter: input must have ",
             output.numel() * size_, " elements, got ", input.numel());
    ncclRedOp_t rop = nccl_op(op, output.dtype(), "reduce_scatter");
    return launch("reduce_scatter", {input, output}, {output}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(ncclReduceScatter(input.data_ptr(), output.data_ptr(), nccl_count(output),
                                      nccl_type(output.dtype(), "reduce_scatter"), rop, comm_, s),
                    "reduce_scatter");
    });
  }

  std::shared_ptr<Work> alltoall(const TensorList& outputs, const TensorList& inputs) override {
    TC_CHECK(int(outputs.size()) == size_ && int(inputs.size()) == size_, "all_to_all: expected ",
             size_, " input and output tensors");
    for (auto& t : outputs) check(t, "all_to_all");
    for (auto& t : inputs) check(t, "all_to_all");
    TensorList keep = inputs;
    keep.insert(keep.end(), outputs.begin(), outputs.end());
    return launch("all_to_all", keep, outputs, [&](cudaStream_t s) {
      ncclDataType_t ty = nccl_type(inputs[0].dtype(), "all_to_all");
      TC_NCCL_CHECK(ncclGroupStart(), "all_to_all");
      for (int r = 0; r < size_; ++r) {
        TC_NCCL_CHECK(
            ncclSend(inputs[size_t(r)].data_ptr(), nccl_count(inputs[size_t(r)]), ty, r, comm_, s),
            "all_to_all");
        TC_NCCL_CHECK(ncclRecv(outputs[size_t(r)].data_ptr(), nccl_count(outputs[size_t(r)]), ty, r,
                               comm_, s),
                      "all_to_all");
      }
      TC_NCCL_CHECK(ncclGroupEnd(), "all_to_all");
    });
  }

  std::shared_ptr<Work> alltoall_single(const Tensor& output, const Tensor& input,
                                        const AllToAllSplits& splits) override {
    check(output, "all_to_all_single");
    check(input, "all_to_all_single");
    auto split = [&](const Tensor& t, const std::vector<int64_t>& sp) {
      TensorList parts;
      int64_t rows = t.size(0), off = 0;
      for (int r = 0; r < size_; ++r) {
        int64_t n = sp.empty() ? rows / size_ : sp[size_t(r)];
        parts.push_back(narrow(t, 0, off, n));
        off += n;
      }
      TC_CHECK(off == rows, "all_to_all_single: split sizes sum to ", off, ", expected ", rows);
      return parts;
    };
    auto outs = split(output, splits.output_split_sizes);
    auto work = alltoall(outs, split(input, splits.input_split_sizes));
    return work;
  }

  std::shared_ptr<Work> barrier() override {
    TC_CHECK(comm_ != nullptr || cuda::device_count() > 0, "barrier: no CUDA device");
    int device = comm_ ? device_ : rank_ % std::max(cuda::device_count(), 1);
    Tensor t = zeros({1}, TensorOptions(DType::Float32).device(Device(DeviceType::CUDA, device)));
    auto work = allreduce({t}, ReduceOp::SUM);
    work->wait();
    return work;
  }

  std::shared_ptr<Work> send(const Tensor& t, int dst, int tag) override {
    (void)tag;  // NCCL matches point-to-point messages by order, not by tag
    check(t, "send");
    check_rank(dst, "send");
    return launch("send", {t}, {t}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(
          ncclSend(t.data_ptr(), nccl_count(t), nccl_type(t.dtype(), "send"), dst, comm_, s),
          "send");
    });
  }

  std::shared_ptr<Work> recv(const Tensor& t, int src, int tag) override {
    (void)tag;
    check(t, "recv");
    check_rank(src, "recv");
    return launch("recv", {t}, {t}, [&](cudaStream_t s) {
      TC_NCCL_CHECK(
          ncclRecv(t.data_ptr(), nccl_count(t), nccl_type(t.dtype(), "recv"), src, comm_, s),
          "recv");
    });
  }

  std::shared_ptr<Work> recv_anysource(const Tensor&, int) override {
    throw NotImplementedError("recv: the nccl backend needs an explicit source rank");
  }

 private:
  Tensor one(const TensorList& ts, const char* op) {
    TC_CHECK(ts.size() == 1, op, ": the nccl backend takes one tensor per process, got ",
             ts.size());
    check(ts[0], op);
    return ts[0];
  }
  void check(const Tensor& t, const char* op) {
    TC_CHECK(t.defined(), op, ": got an undefined tensor");
    TC_CHECK(t.is_cuda(), op, ": the nccl backend takes CUDA tensors, got a tensor on ",
             t.device().str(), " (use the gloo backend for CPU tensors)");
    TC_CHECK(t.is_contiguous(), op, ": tensors must be contiguous");
    TC_CHECK(comm_ == nullptr || t.device().index == device_, op, ": tensor is on ",
             t.device().str(), " but this process group uses cuda:", device_);
  }
  void check_like(const Tensor& t, const Tensor& ref, const char* op) {
    check(t, op);
    TC_CHECK_TYPE(t.dtype() == ref.dtype(), op, ": dtypes differ (", dtype_name(t.dtype()), " vs ",
                  dtype_name(ref.dtype()), ")");
    TC_CHECK(t.numel() == ref.numel(), op, ": sizes differ (", t.numel(), " vs ", ref.numel(), ")");
  }
  void check_rank(int r, const char* op) {
    TC_CHECK(r >= 0 && r < size_, op, ": rank ", r, " is out of range for a group of size ", size_);
  }

  // The communicator is created at the first collective, on that tensor's device.
  void ensure_comm(int device) {
    if (comm_) return;
    cuda::DeviceGuard guard(device);
    ncclUniqueId id;
    std::string key = "nccl_unique_id";
    if (rank_ == 0) {
      TC_NCCL_CHECK(ncclGetUniqueId(&id), "ProcessGroupNCCL");
      store_->set(key, Bytes(reinterpret_cast<uint8_t*>(&id),
                             reinterpret_cast<uint8_t*>(&id) + sizeof(id)));
    } else {
      Bytes b = store_->get(key);
      TC_CHECK_AS(Error, b.size() == sizeof(id), "ProcessGroupNCCL: bad unique id in the store");
      std::memcpy(&id, b.data(), sizeof(id));
    }
    TC_NCCL_CHECK(ncclCommInitRank(&comm_, size_, id, rank_), "ProcessGroupNCCL");
    device_ = device;
    stream_ = cuda::new_stream(device);
  }

  void wait_on_group_stream(int device) {
    cuda::Event done;
    done.record(stream_);
    done.wait(cuda::current_stream(device));
  }

  template <typename Fn>
  std::shared_ptr<Work> launch(const char* name, TensorList keep, TensorList result, Fn&& fn) {
    int device = keep.front().device().index;
    ensure_comm(device);
    cuda::DeviceGuard guard(device_);
    // The group stream waits for the work the caller queued on its current stream.
    cuda::Event ready;
    ready.record(cuda::current_stream(device_));
    ready.wait(stream_);
    fn(static_cast<cudaStream_t>(stream_.handle));
    for (auto& t : keep) cuda::record_stream(t, stream_);
    auto work = std::make_shared<WorkNCCL>(name, ++seq_, rank_, comm_, opts_.timeout,
                                           std::move(keep), std::move(result));
    work->record(stream_);
    return work;
  }

  std::shared_ptr<Store> store_;
  NCCLOptions opts_;
  ncclComm_t comm_ = nullptr;
  int device_ = -1;
  cuda::Stream stream_;
  uint64_t seq_ = 0;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store> store, int rank,
                                                      int size, NCCLOptions options) {
  TC_CHECK(store != nullptr, "ProcessGroupNCCL: store is None");
  return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
}
#endif

}  // namespace tc::distributed
