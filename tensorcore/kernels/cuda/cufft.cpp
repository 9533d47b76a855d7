// tc.fft on CUDA tensors through cuFFT: the transform dims (up to 3 per plan, cuFFT's limit) move
// last and become one cufftPlanMany transform batched over the other dims; plans live in a
// per-device LRU cache (torch.backends.cuda.cufft_plan_cache), their work areas come from the
// caching allocator and they run on the current stream. Plain C++: no nvcc time.
#include "tensorcore/cuda/cufft.h"

#include "tensorcore/core/error.h"
#include "tensorcore/cuda/cuda.h"

#if defined(TC_WITH_CUDA) && defined(TC_WITH_CUFFT)
#include <cufft.h>

#include <array>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensorcore/cuda/cuda_check.h"
#include "tensorcore/fft/fft_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"
#endif

namespace tc::cuda {

#if defined(TC_WITH_CUDA) && defined(TC_WITH_CUFFT)

namespace {

const char* cufft_error_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "unknown cuFFT error";
  }
}

// One transform shape: everything cufftMakePlanMany64 sees (data is always dense, so no strides).
struct PlanKey {
  int type = 0;  // cufftType
  int rank = 0;
  std::array<int64_t, 3> n{};  // signal sizes (the real length for r2c / c2r)
  int64_t batch = 0;
  bool operator==(const PlanKey& o) const {
    return type == o.type && rank == o.rank && n == o.n && batch == o.batch;
  }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = size_t(k.type) * 131u + size_t(k.rank);
    for (int64_t v : k.n) h = h * 1000003u ^ std::hash<int64_t>()(v);
    return h * 1000003u ^ std::hash<int64_t>()(k.batch);
  }
};

std::string describe(const PlanKey& k) {
  std::string s = "sizes [";
  for (int i = 0; i < k.rank; ++i) s += (i ? ", " : "") + std::to_string(k.n[size_t(i)]);
  return s + "], batch " + std::to_string(k.batch);
}

void check_cufft(cufftResult r, const char* call, const PlanKey& k) {
  if (r != CUFFT_SUCCESS)
    throw Error(detail::concat("fft: cuFFT error ", cufft_error_name(r), " (", int(r), ") in ",
                               call, " for a transform of ", describe(k)));
}

// A cuFFT plan without its own work area (the caller lends one from the caching allocator).
struct Plan {
  cufftHandle handle = 0;
  size_t work_size = 0;
  int device = 0;
  std::mutex mu;  // stream + work area + exec of one plan are set together

  Plan(const PlanKey& k, int dev) : device(dev) {
    DeviceGuard guard(dev);
    check_cufft(cufftCreate(&handle), "cufftCreate", k);
    long long n[3] = {k.n[0], k.n[1], k.n[2]};
    cufftResult r = cufftSetAutoAllocation(handle, 0);
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany64(handle, k.rank, n, nullptr, 1, 0, nullptr, 1, 0, cufftType(k.type),
                              k.batch, &work_size);
    if (r != CUFFT_SUCCESS) {
      cufftDestroy(handle);
      check_cufft(r, "cufftMakePlanMany64", k);
    }
  }
  ~Plan() {
    DeviceGuard guard(device);
    cufftDestroy(handle);
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
};

// LRU cache of one device. Plans are shared_ptrs, so evicting one that another thread is
// executing is safe.
class PlanCache {
 public:
  std::shared_ptr<Plan> get(const PlanKey& key, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    if (max_size_ == 0) return std::make_shared<Plan>(key, device);
    auto it = index_.find(key);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
    auto plan = std::make_shared<Plan>(key, device);
    lru_.emplace_front(key, plan);
    index_[key] = lru_.begin();
    trim();
    return plan;
  }
  int64_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return int64_t(lru_.size());
  }
  int64_t max_size() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_size_;
  }
  void set_max_size(int64_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    max_size_ = n;
    trim();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    lru_.clear();
  }

 private:
  void trim() {
    while (int64_t(lru_.size()) > max_size_) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }
  std::mutex mu_;
  int64_t max_size_ = 4096;
  std::list<std::pair<PlanKey, std::shared_ptr<Plan>>> lru_;
  std::unordered_map<PlanKey, std::list<std::pair<PlanKey, std::shared_ptr<Plan>>>::iterator,
                     PlanKeyHash>
      index_;
};

constexpr int kMaxDevices = 64;

// Never destroyed: cufftDestroy at process exit could run after the CUDA context is gone.
PlanCache& cache_of(int device) {
  static auto* caches = new std::array<PlanCache, kMaxDevices>();
  TC_CHECK_INDEX(device >= 0 && device < kMaxDevices, "cufft_plan_cache: invalid device ", device);
  return (*caches)[size_t(device)];
}

enum class Kind { C2C, R2C, C2R };

cufftType plan_type(Kind kind, bool dbl) {
  switch (kind) {
    case Kind::C2C:
      return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case Kind::R2C:
      return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case Kind::C2R:
      return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

void execute(const PlanKey& key, int device, void* in, void* out, bool forward) {
  std::shared_ptr<Plan> plan = cache_of(device).get(key, device);
  DeviceGuard guard(device);
  Tensor work;
  if (plan->work_size > 0)
    work = empty({int64_t(plan->work_size)},
                 TensorOptions(DType::UInt8).device(Device(DeviceType::CUDA, device)));
  std::lock_guard<std::mutex> lock(plan->mu);
  check_cufft(cufftSetStream(plan->handle, stream_of(device)), "cufftSetStream", key);
  if (work.defined())
    check_cufft(cufftSetWorkArea(plan->handle, work.data_ptr()), "cufftSetWorkArea", key);
  const int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  cufftResult r = CUFFT_SUCCESS;
  switch (cufftType(key.type)) {
    case CUFFT_C2C:
      r = cufftExecC2C(plan->handle, static_cast<cufftComplex*>(in),
                       static_cast<cufftComplex*>(out), dir);
      break;
    case CUFFT_Z2Z:
      r = cufftExecZ2Z(plan->handle, static_cast<cufftDoubleComplex*>(in),
                       static_cast<cufftDoubleComplex*>(out), dir);
      break;
    case CUFFT_R2C:
      r = cufftExecR2C(plan->handle, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
      break;
    case CUFFT_D2Z:
      r = cufftExecD2Z(plan->handle, static_cast<cufftDoubleReal*>(in),
                       static_cast<cufftDoubleComplex*>(out));
      break;
    case CUFFT_C2R:
      r = cufftExecC2R(plan->handle, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
      break;
    case CUFFT_Z2D:
      r = cufftExecZ2D(plan->handle, static_cast<cufftDoubleComplex*>(in),
                       static_cast<cufftDoubleReal*>(out));
      break;
    default:
      break;
  }
  check_cufft(r, "cufftExec", key);
}

// One cuFFT transform over `group` (1 to 3 dims of x): they move last, the other dims form the
// batch. Only a non-dense or misaligned layout is copied, except for c2r: cuFFT overwrites a
// c2r input, so it always gets a private copy. c2r_size is the real output length (c2r only).
Tensor transform(const Tensor& x, const std::vector<int64_t>& group, Kind kind, bool forward,
                 int64_t c2r_size) {
  const int64_t nd = x.dim(), k = int64_t(group.size());
  std::vector<int64_t> tail(group.size());
  for (int64_t i = 0; i < k; ++i) tail[size_t(i)] = nd - k + i;
  Tensor xt = movedim(x, group, tail);
  const bool misaligned = reinterpret_cast<uintptr_t>(xt.data_ptr()) % 16 != 0;
  if (kind == Kind::C2R || !xt.is_contiguous() || misaligned) {
    Tensor dense = empty(xt.sizes(), TensorOptions(xt.dtype()).device(xt.device()));
    copy_(dense, xt);
    xt = dense;
  }
  PlanKey key;
  key.rank = int(k);
  for (int64_t i = 0; i < k; ++i) key.n[size_t(i)] = xt.size(nd - k + i);
  key.batch = 1;
  for (int64_t i = 0; i < nd - k; ++i) key.batch *= xt.size(i);
  Shape os = xt.sizes();
  DType odt = xt.dtype();
  if (kind == Kind::R2C) {
    os.back() = os.back() / 2 + 1;
    odt = to_complex(odt);
  } else if (kind == Kind::C2R) {
    const int64_t bins = xt.size(-1);
    key.n[size_t(k - 1)] = c2r_size;
    os.back() = c2r_size;
    odt = to_real(odt);
    // Hermitian input: the DC and Nyquist bins are real (numpy and the CPU engine ignore their
    // imaginary parts; cuFFT would not).
    if (bins > 0) {
      fill_(imag(narrow(xt, -1, 0, 1)), 0.0);
      if (c2r_size % 2 == 0 && bins > 1) fill_(imag(narrow(xt, -1, bins - 1, 1)), 0.0);
    }
  }
  key.type = int(plan_type(kind, odt == DType::Float64 || odt == DType::Complex128));
  Tensor out = empty(os, TensorOptions(odt).device(xt.device()));
  bool empty_signal = key.batch == 0;
  for (int64_t i = 0; i < k; ++i) empty_signal = empty_signal || key.n[size_t(i)] == 0;
  const int device = xt.device().index >= 0 ? xt.device().index : current_device();
  if (!empty_signal) execute(key, device, xt.data_ptr(), out.data_ptr(), forward);
  return movedim(out, tail, group);
}

// c2c over dims in groups of at most 3 (the transform is separable), last group first.
Tensor c2c_groups(Tensor x, const std::vector<int64_t>& dims, size_t count, bool forward) {
  for (size_t end = count; end > 0;) {
    const size_t begin = end >= 3 ? end - 3 : 0;
    x = transform(x, std::vector<int64_t>(dims.begin() + long(begin), dims.begin() + long(end)),
                  Kind::C2C, forward, 0);
    end = begin;
  }
  return x;
}

Tensor scaled(Tensor x, double scale) {
  if (scale != 1.0) mul_(x, Scalar(scale));
  return x;
}

Tensor c2c_cuda(const Tensor& x, const std::vector<int64_t>& dims, double scale, bool forward) {
  return scaled(c2c_groups(x, dims, dims.size(), forward), scale);
}

Tensor r2c_cuda(const Tensor& x, const std::vector<int64_t>& dims, double scale, bool onesided) {
  // Two-sided output (fft of a real input): a complex transform of the promoted input.
  if (!onesided) return c2c_cuda(to_dtype(x, to_complex(x.dtype())), dims, scale, true);
  const size_t begin = dims.size() >= 3 ? dims.size() - 3 : 0;
  Tensor out = transform(x, std::vector<int64_t>(dims.begin() + long(begin), dims.end()), Kind::R2C,
                         true, 0);
  return scaled(c2c_groups(out, dims, begin, true), scale);
}

Tensor c2r_cuda(const Tensor& x, const std::vector<int64_t>& dims, double scale,
                int64_t last_dim_size) {
  // numpy's irfftn: inverse c2c along the other dims, then a 1-D c2r along the last one.
  Tensor t = c2c_groups(x, dims, dims.size() - 1, false);
  return scaled(transform(t, {dims.back()}, Kind::C2R, false, last_dim_size), scale);
}

TC_REGISTER_KERNEL(fft::fft_c2c_kernel, CUDA, c2c_cuda);
TC_REGISTER_KERNEL(fft::fft_r2c_kernel, CUDA, r2c_cuda);
TC_REGISTER_KERNEL(fft::fft_c2r_kernel, CUDA, c2r_cuda);

}  // namespace

int64_t cufft_plan_cache_size(int device) {
  return cache_of(resolve_device(device, "cufft_plan_cache")).size();
}
int64_t cufft_plan_cache_max_size(int device) {
  return cache_of(resolve_device(device, "cufft_plan_cache")).max_size();
}
void set_cufft_plan_cache_max_size(int64_t max_size, int device) {
  TC_CHECK(max_size >= 0, "cufft_plan_cache.max_size must be non-negative, got ", max_size);
  cache_of(resolve_device(device, "cufft_plan_cache")).set_max_size(max_size);
}
void clear_cufft_plan_cache(int device) {
  cache_of(resolve_device(device, "cufft_plan_cache")).clear();
}
bool cufft_available() { return true; }

#else  // no cuFFT in this build

namespace {
[[noreturn]] void no_cufft() {
  throw NotImplementedError(
      "cufft_plan_cache: tensorcore was not compiled with cuFFT (needs -DTC_CUDA=ON and the CUDA "
      "toolkit's cuFFT)");
}
}  // namespace

int64_t cufft_plan_cache_size(int) { no_cufft(); }
int64_t cufft_plan_cache_max_size(int) { no_cufft(); }
void set_cufft_plan_cache_max_size(int64_t, int) { no_cufft(); }
void clear_cufft_plan_cache(int) { no_cufft(); }
bool cufft_available() { return false; }

#endif

}  // namespace tc::cuda
