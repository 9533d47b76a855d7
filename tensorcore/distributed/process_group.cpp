#include "tensorcore/distributed/process_group.h"

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
    case ReduceOp::BAND:
      return "BAND";
    case ReduceOp::BOR:
      return "BOR";
    case ReduceOp::BXOR:
      return "BXOR";
  }
  return "?";
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> g(mutex_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> g(mutex_);
  return done_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> g(mutex_);
  return error_;
}

bool Work::wait(Milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    if (!cv_.wait_for(lock, timeout, [&] { return done_; }))
      TC_FAIL(op_name_, ": Work.wait timed out after ", timeout.count(), " ms");
  } else {
    cv_.wait(lock, [&] { return done_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

TensorList Work::result() {
  wait();
  std::lock_guard<std::mutex> g(mutex_);
  return result_;
}

void Work::finish(TensorList result) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    result_ = std::move(result);
    done_ = true;
  }
  cv_.notify_all();
}

void Work::finish_error(std::exception_ptr err) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    error_ = err;
    done_ = true;
  }
  cv_.notify_all();
}

ThenWork::ThenWork(std::shared_ptr<Work> inner, std::function<TensorList(TensorList)> then)
    : Work(inner->op_name()), inner_(std::move(inner)), then_(std::move(then)) {}

bool ThenWork::is_completed() { return inner_->is_completed(); }

bool ThenWork::wait(Milliseconds timeout) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (applied_) {
      if (error_) std::rethrow_exception(error_);
      return true;
    }
  }
  try {
    inner_->wait(timeout);
    TensorList out = then_(inner_->result());
    std::lock_guard<std::mutex> g(mutex_);
    result_ = std::move(out);
    applied_ = done_ = true;
  } catch (...) {
    std::lock_guard<std::mutex> g(mutex_);
    error_ = std::current_exception();
    applied_ = done_ = true;
    throw;
  }
  return true;
}

TensorList ThenWork::result() {
  wait();
  std::lock_guard<std::mutex> g(mutex_);
  return result_;
}

std::shared_ptr<Work> completed_work(TensorList result, std::string op_name) {
  auto w = std::make_shared<Work>(std::move(op_name));
  w->finish(std::move(result));
  return w;
}

void ProcessGroup::broadcast_coalesced(const TensorList& tensors, int root, size_t buffer_bytes) {
  // Groups consecutive tensors of one dtype into flat buffers of up to buffer_bytes.
  size_t i = 0;
  while (i < tensors.size()) {
    size_t j = i;
    size_t bytes = 0;
    while (j < tensors.size() && tensors[j].dtype() == tensors[i].dtype() &&
           tensors[j].device() == tensors[i].device() &&
           (j == i || bytes + tensors[j].nbytes() <= buffer_bytes)) {
      bytes += tensors[j].nbytes();
      ++j;
    }
    TensorList flat_parts;
    for (size_t k = i; k < j; ++k) flat_parts.push_back(reshape(contiguous(tensors[k]), {-1}));
    Tensor flat = flat_parts.size() == 1 ? clone(flat_parts[0]) : cat(flat_parts, 0);
    broadcast({flat}, root)->wait();
    int64_t offset = 0;
    for (size_t k = i; k < j; ++k) {
      Tensor dst = tensors[k];
      int64_t n = dst.numel();
      copy_(dst, reshape(narrow(flat, 0, offset, n), dst.sizes()));
      offset += n;
    }
    i = j;
  }
}

}  // namespace tc::distributed
