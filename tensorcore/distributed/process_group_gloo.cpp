// ProcessGroup over Gloo's TCP transport (Debian's libgloo-dev). Operations run in order on one
// worker thread per group, so every rank issues Gloo calls in the same sequence while the caller
// continues (async_op); a failure names the op, this rank, and the peers found dead or hung.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/distributed/process_group.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

#ifdef TC_WITH_GLOO
#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#endif

namespace tc::distributed {

#ifndef TC_WITH_GLOO
std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store>, int, int,
                                                      GlooOptions) {
  throw NotImplementedError(
      "Distributed package doesn't have Gloo built in (install libgloo-dev and rebuild)");
}
bool is_gloo_available() { return false; }
#else

bool is_gloo_available() { return true; }

namespace {

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

template <typename T>
constexpr bool is_reduced_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_cplx = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

template <typename T, typename F>
ReduceFn elementwise(F f) {
  return [f](void* o, const void* a, const void* b, size_t n) {
    auto* out = static_cast<T*>(o);
    auto* x = static_cast<const T*>(a);
    auto* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
  };
}

template <typename T>
ReduceFn reduce_fn_for(ReduceOp op, const char* name) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::MAX:
      case ReduceOp::BOR:
        return elementwise<T>([](T a, T b) { return T(a || b); });
      case ReduceOp::PRODUCT:
      case ReduceOp::MIN:
      case ReduceOp::BAND:
        return elementwise<T>([](T a, T b) { return T(a && b); });
      case ReduceOp::BXOR:
        return elementwise<T>([](T a, T b) { return T(a != b); });
      default:
        break;
    }
  } else if constexpr (is_reduced_float<T>) {
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        return elementwise<T>([](T a, T b) { return T(float(a) + float(b)); });
      case ReduceOp::PRODUCT:
        return elementwise<T>([](T a, T b) { return T(float(a) * float(b)); });
      case ReduceOp::MIN:
        return elementwise<T>([](T a, T b) { return float(b) < float(a) ? b : a; });
      case ReduceOp::MAX:
        return elementwise<T>([](T a, T b) { return float(b) > float(a) ? b : a; });
      default:
        break;
    }
  } else if constexpr (is_cplx<T>) {
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        return elementwise<T>([](T a, T b) { return a + b; });
      case ReduceOp::PRODUCT:
        return elementwise<T>([](T a, T b) { return a * b; });
      default:
        break;
    }
  } else {
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        return elementwise<T>([](T a, T b) { return T(a + b); });
      case ReduceOp::PRODUCT:
        return elementwise<T>([](T a, T b) { return T(a * b); });
      case ReduceOp::MIN:
        return elementwise<T>([](T a, T b) { return b < a ? b : a; });
      case ReduceOp::MAX:
        return elementwise<T>([](T a, T b) { return b > a ? b : a; });
      case ReduceOp::BAND:
      case ReduceOp::BOR:
      case ReduceOp::BXOR:
        if constexpr (std::is_integral_v<T>) {
          if (op == ReduceOp::BAND) return elementwise<T>([](T a, T b) { return T(a & b); });
          if (op == ReduceOp::BOR) return elementwise<T>([](T a, T b) { return T(a | b); });
          return elementwise<T>([](T a, T b) { return T(a ^ b); });
        }
        break;
    }
  }
  throw ValueError(detail::concat(name, ": ReduceOp.", reduce_op_name(op),
                                  " is not supported for dtype ", dtype_name(dtype_of_v<T>)));
}

ReduceFn make_reduce_fn(DType dt, ReduceOp op, const char* name) {
  return dispatch_dtype<kAllTypes>(dt, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return reduce_fn_for<T>(op, name);
  });
}

// Gloo's rendezvous talks to our stores through this adapter.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> s) : store_(std::move(s)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes b = store_->get(key);
    return std::vector<char>(b.begin(), b.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    store_->wait(keys, t);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// A process that exited but was not yet reaped by its parent (a zombie) counts as dead.
bool process_alive(long pid) {
  if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  auto close = line.rfind(')');
  return !(close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z');
}

std::string this_host() {
  char buf[256] = {0};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

void check_tensor(const Tensor& t, const char* op) {
  TC_CHECK(t.defined(), op, ": got an undefined tensor");
  TC_CHECK(t.is_cpu(), op, ": the gloo backend takes CPU tensors, got a tensor on ",
           t.device().str(), " (use the nccl backend for CUDA tensors)");
  TC_CHECK(t.is_contiguous(), op, ": tensors must be contiguous");
}

void check_same(const Tensor& t, const Tensor& ref, const char* op, const char* what) {
  check_tensor(t, op);
  TC_CHECK_TYPE(t.dtype() == ref.dtype(), op, ": ", what, " has dtype ", dtype_name(t.dtype()),
                " but the input has dtype ", dtype_name(ref.dtype()));
  TC_CHECK(t.numel() == ref.numel(), op, ": ", what, " has ", t.numel(),
           " elements but the input has ", ref.numel());
}

class ProcessGroupGloo;

// A queued collective. A thread that waits for it while the worker is idle and it is next in
// line runs it itself: a blocking collective then costs no thread hand-off.
class GlooWork final : public Work {
 public:
  GlooWork(std::string name, std::weak_ptr<ProcessGroupGloo> pg)
      : Work(std::move(name)), pg_(std::move(pg)) {}
  bool wait(Milliseconds timeout = Milliseconds(0)) override;

 private:
  std::weak_ptr<ProcessGroupGloo> pg_;
};

class ProcessGroupGloo final : public ProcessGroup,
                               public std::enable_shared_from_this<ProcessGroupGloo> {
 public:
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, GlooOptions opts)
      : ProcessGroup(rank, size), store_(std::move(store)), opts_(std::move(opts)) {
    TC_CHECK(size >= 1, "ProcessGroupGloo: world size must be positive, got ", size);
    TC_CHECK(rank >= 0 && rank < size, "ProcessGroupGloo: rank ", rank,
             " is out of range for world size ", size);
    gloo::transport::tcp::attr attr;
    if (!opts_.iface.empty())
      attr.iface = opts_.iface;
    else
      attr.hostname = opts_.hostname.empty() ? this_host() : opts_.hostname;
    try {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
      ctx->setTimeout(opts_.timeout);
      GlooStore adapter(store_);
      ctx->connectFullMesh(adapter, device_);
      context_ = ctx;
    } catch (const gloo::Exception& e) {
      TC_FAIL("ProcessGroupGloo: rank ", rank, " could not connect to the other ", size - 1,
              " ranks: ", e.what());
    }
    store_->set("tc_pid/" + std::to_string(rank), this_host() + " " + std::to_string(getpid()));
    worker_ = std::thread([this] { run_worker(); });
  }

  ~ProcessGroupGloo() override {
    {
      std::lock_guard<std::mutex> g(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // Runs `work` on the calling thread when it is next and the worker is idle (see GlooWork).
  void try_run_inline(const Work* work) {
    Item item;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (busy_ || stop_ || queue_.empty() || queue_.front().work.get() != work) return;
      item = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    run_and_release(item);
  }

  std::string backend_name() const override { return "gloo"; }

  // ---- collectives ----

  std::shared_ptr<Work> allreduce(const TensorList& tensors, ReduceOp op) override {
    const char* name = "all_reduce";
    Tensor t = single_tensor(tensors, name);
    ReduceFn fn = make_reduce_fn(t.dtype(), op, name);
    return enqueue(name, {t}, op, [=, this](uint32_t tag) {
      if (t.numel() > 0) {
        gloo::AllreduceOptions o(context_);
        set_element_size(o, t);
        o.setReduceFunction(fn);
        tag_and_timeout(o, tag);
        gloo::allreduce(o);
        if (op == ReduceOp::AVG) divide_by_size(t);
      }
      return TensorList{t};
    });
  }

  std::shared_ptr<Work> broadcast(const TensorList& tensors, int root) override {
    const char* name = "broadcast";
    check_root(root, name);
    Tensor t = single_tensor(tensors, name);
    return enqueue(name, {t}, ReduceOp::SUM, [=, this](uint32_t tag) {
      if (t.nbytes() > 0) {
        gloo::BroadcastOptions o(context_);
        o.setRoot(root);
        o.setOutput<uint8_t>(static_cast<uint8_t*>(t.data_ptr()), t.nbytes());
        tag_and_timeout(o, tag);
        gloo::broadcast(o);
      }
      return TensorList{t};
    });
  }

  std::shared_ptr<Work> reduce(const TensorList& tensors, int root, ReduceOp op) override {
    const char* name = "reduce";
    check_root(root, name);
    Tensor t = single_tensor(tensors, name);
    ReduceFn fn = make_reduce_fn(t.dtype(), op, name);
    return enqueue(name, {t}, op, [=, this](uint32_t tag) {
      if (t.numel() > 0) {
        gloo::ReduceOptions o(context_);
        o.setRoot(root);
        o.setReduceFunction(fn);
        set_element_size(o, t);
        tag_and_timeout(o, tag);
        gloo::reduce(o);
        if (op == ReduceOp::AVG && rank_ == root) divide_by_size(t);
      }
      return TensorList{t};
    });
  }

  std::shared_ptr<Work> allgather(const TensorList& outputs, const Tensor& input) override {
    const char* name = "all_gather";
    check_tensor(input, name);
    TC_CHECK(int(outputs.size()) == size_, name, ": expected a list of ", size_,
             " output tensors (the world size), got ", outputs.size());
    for (auto& o : outputs) check_same(o, input, name, "an output tensor");
    Tensor flat = empty({int64_t(size_) * input.numel()}, TensorOptions(input.dtype()));
    return enqueue(name, {input}, ReduceOp::SUM, [=, this](uint32_t tag) {
      gather_all(flat, input, tag);
      copy_slices(flat, outputs, std::vector<int64_t>(size_t(size_), input.numel()));
      return outputs;
    });
  }

  std::shared_ptr<Work> allgather_into_tensor(const Tensor& output, const Tensor& input) override {
    const char* name = "all_gather_into_tensor";
    check_tensor(input, name);
    check_tensor(output, name);
    TC_CHECK_TYPE(output.dtype() == input.dtype(), name, ": output dtype ",
                  dtype_name(output.dtype()), " differs from the input's ",
                  dtype_name(input.dtype()));
    TC_CHECK(output.numel() == input.numel() * size_, name, ": output must have world_size * ",
             input.numel(), " = ", input.numel() * size_, " elements, got ", output.numel());
    return enqueue(name, {input}, ReduceOp::SUM, [=, this](uint32_t tag) {
      gather_all(output, input, tag);
      return TensorList{output};
    });
  }

  std::shared_ptr<Work> gather(const TensorList& outputs, const Tensor& input, int root) override {
    const char* name = "gather";
    check_root(root, name);
    check_tensor(input, name);
    if (rank_ == root) {
      TC_CHECK(int(outputs.size()) == size_, name, ": the destination rank needs a gather_list of ",
               size_, " tensors, got ", outputs.size());
      for (auto& o : outputs) check_same(o, input, name, "a gather_list tensor");
    } else {
      TC_CHECK(outputs.empty(), name, ": gather_list must be empty on non-destination ranks");
    }
    Tensor flat = rank_ == root
                      ? empty({int64_t(size_) * input.numel()}, TensorOptions(input.dtype()))
                      : Tensor();
    return enqueue(name, {input}, ReduceOp::SUM, [=, this](uint32_t tag) {
      if (input.nbytes() > 0) {
        gloo::GatherOptions o(context_);
        o.setRoot(root);
        o.setInput<uint8_t>(static_cast<uint8_t*>(input.data_ptr()), input.nbytes());
        if (rank_ == root)
          o.setOutput<uint8_t>(static_cast<uint8_t*>(flat.data_ptr()), flat.nbytes());
        tag_and_timeout(o, tag);
        gloo::gather(o);
        if (rank_ == root) {
          copy_slices(flat, outputs, std::vector<int64_t>(size_t(size_), input.numel()));
        }
      }
      return outputs;
    });
  }

  std::shared_ptr<Work> scatter(const Tensor& output, const TensorList& inputs, int root) override {
    const char* name = "scatter";
    check_root(root, name);
    check_tensor(output, name);
    if (rank_ == root) {
      TC_CHECK(int(inputs.size()) == size_, name, ": the source rank needs a scatter_list of ",
               size_, " tensors, got ", inputs.size());
      for (auto& i : inputs) check_same(i, output, name, "a scatter_list tensor");
    } else {
      TC_CHECK(inputs.empty(), name, ": scatter_list must be empty on non-source ranks");
    }
    return enqueue(name, {output}, ReduceOp::SUM, [=, this](uint32_t tag) {
      if (output.nbytes() > 0) {
        gloo::ScatterOptions o(context_);
        o.setRoot(root);
        if (rank_ == root) {
          std::vector<uint8_t*> ptrs;
          for (auto& i : inputs) ptrs.push_back(static_cast<uint8_t*>(i.data_ptr()));
          o.setInputs<uint8_t>(ptrs, output.nbytes());
        }
        o.setOutput<uint8_t>(static_cast<uint8_t*>(output.data_ptr()), output.nbytes());
        tag_and_timeout(o, tag);
        gloo::scatter(o);
      }
      return TensorList{output};
    });
  }

  std::shared_ptr<Work> reduce_scatter(const Tensor& output, const TensorList& inputs,
                                       ReduceOp op) override {
    const char* name = "reduce_scatter";
    check_tensor(output, name);
    TC_CHECK(int(inputs.size()) == size_, name, ": expected ", size_,
             " input tensors (the world size), got ", inputs.size());
    for (auto& i : inputs) check_same(i, output, name, "an input tensor");
    TensorList flat_parts;
    for (auto& i : inputs) flat_parts.push_back(reshape(i, {-1}));
    return reduce_scatter_flat(name, output, cat(flat_parts, 0), op);
  }

  std::shared_ptr<Work> reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                              ReduceOp op) override {
    const char* name = "reduce_scatter_tensor";
    check_tensor(output, name);
    check_tensor(input, name);
    TC_CHECK(input.numel() == output.numel() * size_, name, ": input must have world_size * ",
             output.numel(), " elements, got ", input.numel());
    return reduce_scatter_flat(name, output, clone(reshape(input, {-1})), op);
  }

  std::shared_ptr<Work> alltoall(const TensorList& outputs, const TensorList& inputs) override {
    const char* name = "all_to_all";
    TC_CHECK(int(outputs.size()) == size_ && int(inputs.size()) == size_, name, ": expected ",
             size_, " input and output tensors, got ", inputs.size(), " and ", outputs.size());
    std::vector<int64_t> in_counts, out_counts;
    for (auto& t : inputs) {
      check_same(t, inputs[0], name, "an input tensor");
      in_counts.push_back(t.numel());
    }
    for (auto& t : outputs) {
      check_tensor(t, name);
      TC_CHECK_TYPE(t.dtype() == inputs[0].dtype(), name, ": output dtype differs from input's");
      out_counts.push_back(t.numel());
    }
    TensorList in_parts;
    for (auto& t : inputs) in_parts.push_back(reshape(t, {-1}));
    Tensor in_flat = cat(in_parts, 0);
    int64_t total_out = 0;
    for (auto c : out_counts) total_out += c;
    Tensor out_flat = empty({total_out}, TensorOptions(inputs[0].dtype()));
    return enqueue(name, inputs, ReduceOp::SUM, [=, this](uint32_t tag) {
      run_alltoallv(out_flat, in_flat, out_counts, in_counts, tag);
      copy_slices(out_flat, outputs, out_counts);
      return outputs;
    });
  }

  std::shared_ptr<Work> alltoall_single(const Tensor& output, const Tensor& input,
                                        const AllToAllSplits& splits) override {
    const char* name = "all_to_all_single";
    check_tensor(output, name);
    check_tensor(input, name);
    TC_CHECK_TYPE(output.dtype() == input.dtype(), name, ": output dtype differs from input's");
    auto counts = [&](const Tensor& t, const std::vector<int64_t>& sp, const char* what) {
      int64_t row = t.dim() > 0 ? t.numel() / std::max<int64_t>(t.size(0), 1) : 1;
      std::vector<int64_t> c;
      if (sp.empty()) {
        TC_CHECK(t.dim() > 0 && t.size(0) % size_ == 0, name, ": the ", what,
                 " tensor's first dimension must divide evenly by the world size ", size_);
        for (int r = 0; r < size_; ++r) c.push_back(t.numel() / size_);
      } else {
        TC_CHECK(int(sp.size()) == size_, name, ": ", what, "_split_sizes must have ", size_,
                 " entries");
        int64_t total = 0;
        for (auto s : sp) {
          c.push_back(s * row);
          total += s;
        }
        TC_CHECK(t.dim() > 0 && total == t.size(0), name, ": ", what, "_split_sizes sum to ", total,
                 " but the first dimension is ", t.dim() ? t.size(0) : 0);
      }
      return c;
    };
    auto out_counts = counts(output, splits.output_split_sizes, "output");
    auto in_counts = counts(input, splits.input_split_sizes, "input");
    return enqueue(name, {input}, ReduceOp::SUM, [=, this](uint32_t tag) {
      run_alltoallv(output, input, out_counts, in_counts, tag);
      return TensorList{output};
    });
  }

  std::shared_ptr<Work> barrier() override {
    return enqueue("barrier", {}, ReduceOp::SUM, [=, this](uint32_t tag) {
      gloo::BarrierOptions o(context_);
      tag_and_timeout(o, tag);
      gloo::barrier(o);
      return TensorList{};
    });
  }

  // Point-to-point ops bypass the queue: they pair with one peer, not the whole group.
  std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag) override {
    check_tensor(tensor, "send");
    check_peer(dst, "send");
    auto buf = unbound_buffer(tensor);
    buf->send(dst, p2p_slot(tag));
    return p2p_work("send", tensor, buf, true, dst);
  }

  std::shared_ptr<Work> recv(const Tensor& tensor, int src, int tag) override {
    check_tensor(tensor, "recv");
    check_peer(src, "recv");
    auto buf = unbound_buffer(tensor);
    buf->recv(src, p2p_slot(tag));
    return p2p_work("recv", tensor, buf, false, src);
  }

  std::shared_ptr<Work> recv_anysource(const Tensor& tensor, int tag) override {
    check_tensor(tensor, "recv");
    std::vector<int> srcs;
    for (int r = 0; r < size_; ++r)
      if (r != rank_) srcs.push_back(r);
    auto buf = unbound_buffer(tensor);
    buf->recv(srcs, p2p_slot(tag));
    return p2p_work("recv", tensor, buf, false, -1);
  }

 private:
  using Task = std::function<TensorList(uint32_t tag)>;

  // Every collective's options carry the queue's tag and the group's timeout.
  template <typename Options>
  void tag_and_timeout(Options& o, uint32_t tag) const {
    o.setTag(tag);
    o.setTimeout(opts_.timeout);
  }

  // The one tensor of a gloo collective (torch's gloo backend takes one per process).
  static Tensor single_tensor(const TensorList& tensors, const char* name) {
    TC_CHECK(tensors.size() == 1, name, ": the gloo backend takes one tensor per process, got ",
             tensors.size());
    check_tensor(tensors[0], name);
    return tensors[0];
  }

  // Consecutive slices of `flat`, counts[r] elements each, copied into outputs[r].
  static void copy_slices(const Tensor& flat, const TensorList& outputs,
                          const std::vector<int64_t>& counts) {
    int64_t off = 0;
    for (size_t r = 0; r < outputs.size(); ++r) {
      Tensor dst = outputs[r];
      copy_(dst, reshape(narrow(flat, 0, off, counts[r]), dst.sizes()));
      off += counts[r];
    }
  }

  std::shared_ptr<gloo::transport::UnboundBuffer> unbound_buffer(const Tensor& t) {
    return std::shared_ptr<gloo::transport::UnboundBuffer>(
        context_->createUnboundBuffer(t.data_ptr(), t.nbytes()));
  }

  struct Item {
    std::shared_ptr<Work> work;
    Task task;
    std::string signature;
    uint64_t seq;
  };

  // Runs a dequeued item, then lets the next one start.
  void run_and_release(Item& item) {
    run_item(item);
    {
      std::lock_guard<std::mutex> g(mutex_);
      busy_ = false;
    }
    cv_.notify_all();
  }

  static uint64_t p2p_slot(int tag) { return (uint64_t(1) << 40) | uint32_t(tag); }

  void check_root(int root, const char* op) const {
    TC_CHECK(root >= 0 && root < size_, op, ": root rank ", root,
             " is out of range for a group of size ", size_);
  }
  void check_peer(int peer, const char* op) const {
    TC_CHECK(peer >= 0 && peer < size_, op, ": peer rank ", peer,
             " is out of range for a group of size ", size_);
    TC_CHECK(peer != rank_, op, ": a rank cannot ", op, " to itself (rank ", rank_, ")");
  }

  template <typename Opts>
  static void set_element_size(Opts& o, const Tensor& t) {
    // Gloo's reduce loops count elements by elementSize; the options API only sets it via a
    // typed setter, so pick a type of the right width.
    switch (t.itemsize()) {
      case 1:
        o.template setOutput<uint8_t>(static_cast<uint8_t*>(t.data_ptr()), t.numel());
        break;
      case 2:
        o.template setOutput<uint16_t>(static_cast<uint16_t*>(t.data_ptr()), t.numel());
        break;
      case 4:
        o.template setOutput<uint32_t>(static_cast<uint32_t*>(t.data_ptr()), t.numel());
        break;
      case 8:
        o.template setOutput<uint64_t>(static_cast<uint64_t*>(t.data_ptr()), t.numel());
        break;
      default: {
        // complex128: 16 bytes; gloo reduces in segments of whole elements of this width.
        struct alignas(16) Pair16 {
          uint64_t a, b;
        };
        o.template setOutput<Pair16>(static_cast<Pair16*>(t.data_ptr()), t.numel());
      }
    }
  }

  void divide_by_size(Tensor t) {
    if (is_floating(t.dtype()) || is_complex(t.dtype())) {
      div_(t, Scalar(double(size_)));
    } else {
      div_(t, Scalar(int64_t(size_)), "trunc");
    }
  }

  void gather_all(const Tensor& out, const Tensor& in, uint32_t tag) {
    if (in.nbytes() == 0) return;
    gloo::AllgatherOptions o(context_);
    o.setInput<uint8_t>(static_cast<uint8_t*>(in.data_ptr()), in.nbytes());
    o.setOutput<uint8_t>(static_cast<uint8_t*>(out.data_ptr()), out.nbytes());
    tag_and_timeout(o, tag);
    gloo::allgather(o);
  }

  void run_alltoallv(const Tensor& out, const Tensor& in, const std::vector<int64_t>& out_counts,
                     const std::vector<int64_t>& in_counts, uint32_t tag) {
    gloo::AlltoallvOptions o(context_);
    int64_t item = int64_t(in.itemsize());
    std::vector<int64_t> ib, ob;
    for (auto c : in_counts) ib.push_back(c * item);
    for (auto c : out_counts) ob.push_back(c * item);
    o.setInput<uint8_t>(static_cast<uint8_t*>(in.data_ptr()), ib);
    o.setOutput<uint8_t>(static_cast<uint8_t*>(out.data_ptr()), ob);
    tag_and_timeout(o, tag);
    gloo::alltoallv(o);
  }

  std::shared_ptr<Work> reduce_scatter_flat(const char* name, const Tensor& output, Tensor flat,
                                            ReduceOp op) {
    ReduceFn fn = make_reduce_fn(output.dtype(), op, name);
    return enqueue(name, {output}, op, [=, this](uint32_t tag) {
      Tensor f = flat;
      if (f.numel() > 0) {
        gloo::AllreduceOptions o(context_);
        set_element_size(o, f);
        o.setReduceFunction(fn);
        tag_and_timeout(o, tag);
        gloo::allreduce(o);
        Tensor mine = narrow(f, 0, int64_t(rank_) * output.numel(), output.numel());
        if (op == ReduceOp::AVG) divide_by_size(mine);
        Tensor dst = output;
        copy_(dst, reshape(mine, output.sizes()));
      }
      return TensorList{output};
    });
  }

  std::shared_ptr<Work> p2p_work(const char* name, const Tensor& t,
                                 std::shared_ptr<gloo::transport::UnboundBuffer> buf, bool is_send,
                                 int peer) {
    auto work = std::make_shared<Work>(name);
    // A helper thread waits on the transfer so Work.wait() can time out like the collectives.
    std::thread([=, this] {
      try {
        int src = peer;
        bool ok = is_send ? buf->waitSend(&src, opts_.timeout) : buf->waitRecv(&src, opts_.timeout);
        TC_CHECK_AS(Error, ok, name, " was aborted");
        TensorList result{t};
        if (!is_send) result.push_back(full({}, Scalar(int64_t(src)), TensorOptions(DType::Int64)));
        work->finish(result);
      } catch (const gloo::Exception& e) {
        work->finish_error(std::make_exception_ptr(
            Error(detail::concat(name, " on rank ", rank_, " with peer rank ", peer,
                                 " failed: ", e.what(), describe_peers()))));
      } catch (...) {
        work->finish_error(std::current_exception());
      }
    }).detach();
    return work;
  }

  std::string signature(const std::string& name, const TensorList& tensors, ReduceOp op) {
    std::ostringstream s;
    s << name;
    if (name.find("reduce") != std::string::npos) s << "(op=" << reduce_op_name(op) << ")";
    for (auto& t : tensors)
      if (t.defined()) s << " " << dtype_name(t.dtype()) << shape_str(t.sizes());
    return s.str();
  }

  std::shared_ptr<Work> enqueue(const std::string& name, const TensorList& tensors, ReduceOp op,
                                Task task) {
    auto work = std::make_shared<GlooWork>(name, weak_from_this());
    {
      std::lock_guard<std::mutex> g(mutex_);
      queue_.push_back({work, std::move(task),
                        opts_.debug_checks ? signature(name, tensors, op) : name, ++seq_});
    }
    cv_.notify_one();
    return work;
  }

  // TORCH_DISTRIBUTED_DEBUG=DETAIL: all ranks compare what they are about to run.
  void check_signatures(const Item& item, uint32_t tag) {
    std::string sig = item.signature;
    constexpr size_t kLen = 256;
    std::vector<char> mine(kLen, 0), all(kLen * size_t(size_), 0);
    std::memcpy(mine.data(), sig.data(), std::min(sig.size(), kLen - 1));
    gloo::AllgatherOptions o(context_);
    o.setInput<char>(mine.data(), kLen);
    o.setOutput<char>(all.data(), all.size());
    tag_and_timeout(o, tag);
    gloo::allgather(o);
    for (int r = 0; r < size_; ++r) {
      std::string other(all.data() + size_t(r) * kLen);
      if (other != sig)
        TC_FAIL("Detected mismatch between collectives on ranks. Rank ", rank_, " is running ", sig,
                " (collective #", item.seq, "), but rank ", r, " is running ", other);
    }
  }

  void run_worker() {
    while (true) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // One item at a time, whether the worker or a waiting thread runs it (keeps the order).
        cv_.wait(lock, [&] { return (stop_ && queue_.empty()) || (!queue_.empty() && !busy_); });
        if (queue_.empty()) return;
        item = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
      }
      run_and_release(item);
    }
  }

  void run_item(Item& item) {
    {
      if (broken_) {
        item.work->finish_error(broken_);
        return;
      }
      try {
        uint32_t tag = uint32_t(item.seq * 2);
        if (opts_.debug_checks) check_signatures(item, tag + 1);
        item.work->finish(item.task(tag));
      } catch (const gloo::Exception& e) {
        broken_ = std::make_exception_ptr(Error(detail::concat(
            item.work->op_name(), " (collective #", item.seq, ") failed on rank ", rank_,
            " of a gloo group of ", size_, " ranks: ", e.what(), describe_failure(item))));
        item.work->finish_error(broken_);
      } catch (...) {
        item.work->finish_error(std::current_exception());
      }
    }
  }

  // Which peers are gone: same-host peers whose process no longer exists.
  std::string describe_peers() {
    std::string host = this_host();
    std::ostringstream dead;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      std::string key = "tc_pid/" + std::to_string(r);
      try {
        if (!store_->check({key})) continue;
        std::istringstream in(store_->get_string(key));
        std::string peer_host;
        long pid = 0;
        in >> peer_host >> pid;
        if (peer_host == host && pid > 0 && !process_alive(pid))
          dead << (dead.tellp() > 0 ? ", " : "") << "rank " << r << " (pid " << pid << ")";
      } catch (...) {
        // The store itself may be gone with the master; report what gloo said.
      }
    }
    std::string d = dead.str();
    return d.empty() ? "" : "; these ranks have exited: " + d;
  }

  // After a failure every rank records where it stopped, so the message can say which ranks
  // never reached the collective (hung) or are running a different one.
  std::string describe_failure(const Item& item) {
    std::string dead = describe_peers();
    std::ostringstream out;
    out << dead;
    try {
      store_->set("tc_failed/" + std::to_string(rank_),
                  std::to_string(item.seq) + " " + item.work->op_name());
      auto deadline = std::chrono::steady_clock::now() +
                      std::min<Milliseconds>(opts_.timeout, Milliseconds(3000));
      std::vector<int> silent;
      std::ostringstream elsewhere;
      while (true) {
        silent.clear();
        elsewhere.str("");
        for (int r = 0; r < size_; ++r) {
          if (r == rank_) continue;
          std::string key = "tc_failed/" + std::to_string(r);
          if (!store_->check({key})) {
            silent.push_back(r);
            continue;
          }
          std::string v = store_->get_string(key);
          if (v.rfind(std::to_string(item.seq) + " ", 0) != 0)
            elsewhere << "; rank " << r << " stopped at collective #" << v;
        }
        if (silent.empty() || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      out << elsewhere.str();
      if (!silent.empty() && dead.empty()) {
        out << "; ranks that did not reach this collective (hung or busy elsewhere): [";
        for (size_t i = 0; i < silent.size(); ++i) out << (i ? ", " : "") << silent[i];
        out << "]";
      }
    } catch (...) {
      out << "; the store is unreachable (its host rank exited?), so the other ranks' state is "
             "unknown";
    }
    return out.str();
  }

  std::shared_ptr<Store> store_;
  GlooOptions opts_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  bool busy_ = false;  // an item is running (on the worker or on a waiting thread)
  uint64_t seq_ = 0;
  std::exception_ptr broken_;
};

bool GlooWork::wait(Milliseconds timeout) {
  if (!is_completed())
    if (auto pg = pg_.lock()) pg->try_run_inline(this);
  return Work::wait(timeout);
}

}  // namespace

std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store, int rank,
                                                      int size, GlooOptions options) {
  TC_CHECK(store != nullptr, "ProcessGroupGloo: store is None");
  return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, std::move(options));
}
#endif

}  // namespace tc::distributed
