// Convolution on CUDA through cuDNN's convolution API (forward, backward data, backward filter).
// The nn front end (tensorcore/nn/conv.cpp) describes the *direct* convolution with a
// ConvGeometry; here it becomes a convolution cuDNN can run: 1-d gets a leading size-1 spatial
// dim, asymmetric padding becomes symmetric padding plus explicit zeros on the right of the input
// (and a cropped or zero-extended output), and every tensor takes one layout (NCHW, or NHWC when
// an activation arrives channels-last). Algorithms come from cuDNN's heuristic, or from timing
// them all once per geometry when tc.backends.cudnn.benchmark is set; the choice is cached.
#include "tensorcore/cudnn/cudnn.h"
#include "tensorcore/cudnn/cudnn_nn.h"
#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/nn/device_kernels.h"

#ifdef TC_WITH_CUDNN
#include <algorithm>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "tensorcore/cudnn/cudnn_utils.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

using cudnn::detail::check;
using cudnn::detail::handle;

enum class Kind { Forward, BackwardData, BackwardFilter };
const char* kind_name(Kind k) {
  return k == Kind::Forward        ? "conv forward"
         : k == Kind::BackwardData ? "conv backward (input)"
                                   : "conv backward (weight)";
}

// True when `t` is a 4-d/5-d tensor whose memory is channels-last dense (N, *spatial, C order)
// but not also plain contiguous.
bool is_channels_last(const Tensor& t) {
  if (!t.defined() || (t.dim() != 4 && t.dim() != 5) || t.is_contiguous()) return false;
  int64_t expected = 1;
  auto ok = [&](int64_t dim) {
    if (t.size(dim) != 1 && t.stride(dim) != expected) return false;
    expected *= t.size(dim);
    return true;
  };
  if (!ok(1)) return false;
  for (int64_t d = t.dim() - 1; d >= 2; --d)
    if (!ok(d)) return false;
  return ok(0);
}

// Permutation from NC* to N*C and back.
std::vector<int64_t> to_last_perm(int64_t dims) {
  std::vector<int64_t> p = {0};
  for (int64_t d = 2; d < dims; ++d) p.push_back(d);
  p.push_back(1);
  return p;
}
std::vector<int64_t> from_last_perm(int64_t dims) {
  std::vector<int64_t> p = {0, dims - 1};
  for (int64_t d = 1; d < dims - 1; ++d) p.push_back(d);
  return p;
}

// Canonical strides of an NC* shape stored in NC* or N*C order.
Shape layout_strides(const Shape& sizes, bool channels_last) {
  if (!channels_last) return contiguous_strides(sizes);
  Shape strides(sizes.size());
  int64_t s = 1;
  strides[1] = s;
  s *= sizes[1];
  for (size_t d = sizes.size() - 1; d >= 2; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
  strides[0] = s;
  return strides;
}

// What cuDNN runs: the geometry made symmetric and at least 2-d, in one layout.
struct Plan {
  ConvGeometry g;                 // normalized: nd >= 2, input includes `extra`, pad_l == pad_r
  Shape orig_input, orig_output;  // spatial sizes asked for by the caller (after lifting)
  Shape extra;                    // zeros appended on the right of each input spatial dim
  bool lifted = false;            // 1-d lifted to 2-d
  bool channels_last = false;
  DType dtype = DType::Float32;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int device = 0;

  bool padded_input() const { return orig_input != g.input; }
  bool cropped_output() const { return orig_output != g.output; }

  std::string describe(Kind kind) const {
    std::ostringstream os;
    os << kind_name(kind) << " on CUDA (cuDNN; input " << shape_str(g.input_shape()) << ", weight "
       << shape_str(g.weight_shape()) << ", stride " << shape_str(g.stride) << ", padding "
       << shape_str(g.pad_l) << ", dilation " << shape_str(g.dilation) << ", groups " << g.groups
       << ", " << dtype_name(dtype) << (channels_last ? ", channels_last" : "") << ")";
    return os.str();
  }
  std::string key(Kind kind, bool bench, bool det, bool tf32) const {
    std::ostringstream os;
    os << int(kind) << '|' << device << '|' << int(dtype) << '|' << channels_last << bench << det
       << tf32 << '|' << g.key();
    return os.str();
  }

  Tensor lift(const Tensor& t) const { return lifted ? unsqueeze(t, 2) : t; }
  Tensor unlift(const Tensor& t) const { return lifted ? squeeze(t, 2) : t; }
  // The tensor in this plan's layout (a copy only when it is not already laid out so).
  Tensor arrange(const Tensor& t) const {
    if (!channels_last) return contiguous(t);
    if (is_channels_last(t) ||
        (t.is_contiguous() && layout_strides(t.sizes(), true) == t.strides()))
      return t;
    return permute(contiguous(permute(t, to_last_perm(t.dim()))), from_last_perm(t.dim()));
  }
  Tensor alloc(const Shape& sizes) const {
    TensorOptions opts = TensorOptions(dtype).device(Device(DeviceType::CUDA, device));
    if (!channels_last) return empty(sizes, opts);
    Shape last;
    for (int64_t d : to_last_perm(int64_t(sizes.size()))) last.push_back(sizes[size_t(d)]);
    return permute(empty(last, opts), from_last_perm(int64_t(sizes.size())));
  }
  // Zero-extends `t` ([N, C, *small]) on the right of each spatial dim to [N, C, *big].
  Tensor zero_extend(const Tensor& t, const Shape& big) const {
    Shape sizes = {t.size(0), t.size(1)};
    sizes.insert(sizes.end(), big.begin(), big.end());
    Tensor out = zeros(sizes, TensorOptions(dtype).device(Device(DeviceType::CUDA, device)));
    Tensor view = out;
    for (int i = 0; i < g.nd; ++i) view = narrow(view, 2 + i, 0, t.size(2 + i));
    copy_(view, t);
    return out;
  }
  // The leading `small` positions of each spatial dim of `t`.
  Tensor crop(const Tensor& t, const Shape& small) const {
    Tensor view = t;
    for (int i = 0; i < g.nd; ++i) view = narrow(view, 2 + i, 0, small[size_t(i)]);
    return contiguous(view);
  }
};

Plan make_plan(const ConvGeometry& g0, DType dtype, int device, bool channels_last) {
  Plan p;
  p.dtype = dtype;
  p.type = cudnn::detail::data_type(dtype, "conv");
  p.device = device;
  p.g = g0;
  ConvGeometry& g = p.g;
  if (g.nd == 1) {
    // cuDNN convolves 2-d and 3-d: a 1-d convolution is a 2-d one over a height of 1.
    p.lifted = true;
    g.nd = 2;
    g.input.insert(g.input.begin(), 1);
    g.kernel.insert(g.kernel.begin(), 1);
    g.output.insert(g.output.begin(), 1);
    g.stride.insert(g.stride.begin(), 1);
    g.dilation.insert(g.dilation.begin(), 1);
    g.pad_l.insert(g.pad_l.begin(), 0);
    g.pad_r.insert(g.pad_r.begin(), 0);
  }
  p.channels_last = channels_last && !p.lifted;
  p.orig_input = g.input;
  p.orig_output = g.output;
  for (int i = 0; i < g.nd; ++i) {
    // Symmetric padding pad_l; a larger right padding becomes explicit zeros on the input.
    int64_t extra = std::max<int64_t>(0, g.pad_r[size_t(i)] - g.pad_l[size_t(i)]);
    p.extra.push_back(extra);
    g.input[size_t(i)] += extra;
    g.pad_r[size_t(i)] = g.pad_l[size_t(i)];
    int64_t span = g.dilation[size_t(i)] * (g.kernel[size_t(i)] - 1) + 1;
    // >= the requested output: a smaller right padding only adds trailing outputs, cropped later.
    g.output[size_t(i)] =
        (g.input[size_t(i)] + 2 * g.pad_l[size_t(i)] - span) / g.stride[size_t(i)] + 1;
  }
  return p;
}

// Descriptors of one call.
struct Descs {
  cudnn::detail::TensorDesc x, y;
  cudnn::detail::FilterDesc w;
  cudnn::detail::ConvDesc conv;
};

cudnnMathType_t initial_math(const Plan& p) {
  if (p.dtype == DType::Float16 || p.dtype == DType::BFloat16) return CUDNN_TENSOR_OP_MATH;
  if (p.dtype == DType::Float32 && !cudnn::allow_tf32()) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

Descs make_descs(const Plan& p, const std::string& ctx) {
  Descs d;
  Shape xs = p.g.input_shape(), ys = p.g.output_shape();
  d.x = cudnn::detail::make_tensor_desc(p.type, xs, layout_strides(xs, p.channels_last), ctx);
  d.y = cudnn::detail::make_tensor_desc(p.type, ys, layout_strides(ys, p.channels_last), ctx);
  d.w = cudnn::detail::make_filter_desc(
      p.type, p.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, p.g.weight_shape(), ctx);
  cudnnConvolutionDescriptor_t raw = nullptr;
  check(cudnnCreateConvolutionDescriptor(&raw), "cudnnCreateConvolutionDescriptor", ctx);
  d.conv.reset(raw);
  std::vector<int> pad, stride, dil;
  for (int i = 0; i < p.g.nd; ++i) {
    pad.push_back(int(p.g.pad_l[size_t(i)]));
    stride.push_back(int(p.g.stride[size_t(i)]));
    dil.push_back(int(p.g.dilation[size_t(i)]));
  }
  cudnnDataType_t compute = p.dtype == DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check(cudnnSetConvolutionNdDescriptor(raw, p.g.nd, pad.data(), stride.data(), dil.data(),
                                        CUDNN_CROSS_CORRELATION, compute),
        "cudnnSetConvolutionNdDescriptor", ctx);
  check(cudnnSetConvolutionGroupCount(raw, int(p.g.groups)), "cudnnSetConvolutionGroupCount", ctx);
  check(cudnnSetConvolutionMathType(raw, initial_math(p)), "cudnnSetConvolutionMathType", ctx);
  return d;
}

// One candidate algorithm, whichever the kind.
struct Candidate {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

template <typename Perf>
std::vector<Candidate> filter_candidates(const Perf* perf, int n, const Plan& p,
                                         bool deterministic) {
  std::vector<Candidate> out;
  for (int i = 0; i < n; ++i) {
    const Perf& r = perf[i];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    if (deterministic && r.determinism != CUDNN_DETERMINISTIC) continue;
    // Never let float32/float64 data be down-converted to float16 inside the algorithm.
    if ((p.dtype == DType::Float32 || p.dtype == DType::Float64) &&
        r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      continue;
    if (p.dtype == DType::Float32 && !cudnn::allow_tf32() && r.mathType == CUDNN_TENSOR_OP_MATH)
      continue;
    Candidate c;
    c.algo = int(r.algo);
    // float32 without TF32 must run with FMA math even where the heuristic reports the default.
    c.math = (p.dtype == DType::Float32 && !cudnn::allow_tf32()) ? CUDNN_FMA_MATH : r.mathType;
    c.workspace = r.memory;
    out.push_back(c);
  }
  return out;
}

// Operands of one call (device pointers) plus its descriptors.
struct Call {
  const Plan& plan;
  Descs& d;
  cudnnHandle_t h;
  void* x;  // forward/filter: input; data: grad input (output)
  void* w;  // forward/data: weight; filter: grad weight (output)
  void* y;  // forward: output; data/filter: grad output
  std::string ctx;
};

constexpr int kMaxAlgos = 16;

std::vector<Candidate> heuristic_candidates(Kind kind, Call& c, bool det) {
  int n = 0;
  if (kind == Kind::Forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    check(cudnnGetConvolutionForwardAlgorithm_v7(c.h, c.d.x.get(), c.d.w.get(), c.d.conv.get(),
                                                 c.d.y.get(), kMaxAlgos, &n, perf),
          "cudnnGetConvolutionForwardAlgorithm_v7", c.ctx);
    return filter_candidates(perf, n, c.plan, det);
  }
  if (kind == Kind::BackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    check(cudnnGetConvolutionBackwardDataAlgorithm_v7(c.h, c.d.w.get(), c.d.y.get(), c.d.conv.get(),
                                                      c.d.x.get(), kMaxAlgos, &n, perf),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7", c.ctx);
    return filter_candidates(perf, n, c.plan, det);
  }
  cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
  check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.h, c.d.x.get(), c.d.y.get(), c.d.conv.get(),
                                                      c.d.w.get(), kMaxAlgos, &n, perf),
        "cudnnGetConvolutionBackwardFilterAlgorithm_v7", c.ctx);
  return filter_candidates(perf, n, c.plan, det);
}

// A workspace from the caching allocator: the largest of `want` and its halvings that fits.
Tensor workspace_at_most(size_t want, int device, size_t& got) {
  TensorOptions opts = TensorOptions(DType::UInt8).device(Device(DeviceType::CUDA, device));
  for (size_t size = want; size > 0; size /= 2) {
    try {
      Tensor ws = empty({int64_t(size)}, opts);
      got = size;
      return ws;
    } catch (const cuda::OutOfMemoryError&) {
    }
  }
  got = 0;
  return Tensor();
}

// Times every algorithm (cudnnFind*Ex) with a workspace as large as the heuristic's hungriest
// candidate (halved until it fits), and returns the successful ones fastest first.
std::vector<Candidate> benchmark_candidates(Kind kind, Call& c, bool det) {
  size_t want = 0;
  for (const Candidate& cand : heuristic_candidates(kind, c, false))
    want = std::max(want, cand.workspace);
  size_t ws_size = 0;
  Tensor ws = workspace_at_most(want, c.plan.device, ws_size);
  void* wsp = ws.defined() ? ws.data_ptr() : nullptr;
  int n = 0;
  std::vector<Candidate> out;
  if (kind == Kind::Forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    check(cudnnFindConvolutionForwardAlgorithmEx(c.h, c.d.x.get(), c.x, c.d.w.get(), c.w,
                                                 c.d.conv.get(), c.d.y.get(), c.y, kMaxAlgos, &n,
                                                 perf, wsp, ws_size),
          "cudnnFindConvolutionForwardAlgorithmEx", c.ctx);
    out = filter_candidates(perf, n, c.plan, det);
  } else if (kind == Kind::BackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    check(cudnnFindConvolutionBackwardDataAlgorithmEx(c.h, c.d.w.get(), c.w, c.d.y.get(), c.y,
                                                      c.d.conv.get(), c.d.x.get(), c.x, kMaxAlgos,
                                                      &n, perf, wsp, ws_size),
          "cudnnFindConvolutionBackwardDataAlgorithmEx", c.ctx);
    out = filter_candidates(perf, n, c.plan, det);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
    check(cudnnFindConvolutionBackwardFilterAlgorithmEx(c.h, c.d.x.get(), c.x, c.d.y.get(), c.y,
                                                        c.d.conv.get(), c.d.w.get(), c.w, kMaxAlgos,
                                                        &n, perf, wsp, ws_size),
          "cudnnFindConvolutionBackwardFilterAlgorithmEx", c.ctx);
    out = filter_candidates(perf, n, c.plan, det);
  }
  return out;
}

cudnnStatus_t execute(Kind kind, Call& c, const Candidate& cand, void* ws, size_t ws_size) {
  float one_f = 1, zero_f = 0;
  double one_d = 1, zero_d = 0;
  bool dbl = c.plan.dtype == DType::Float64;
  const void* one = dbl ? static_cast<const void*>(&one_d) : &one_f;
  const void* zero = dbl ? static_cast<const void*>(&zero_d) : &zero_f;
  cudnnStatus_t st = cudnnSetConvolutionMathType(c.d.conv.get(), cand.math);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  switch (kind) {
    case Kind::Forward:
      return cudnnConvolutionForward(c.h, one, c.d.x.get(), c.x, c.d.w.get(), c.w, c.d.conv.get(),
                                     cudnnConvolutionFwdAlgo_t(cand.algo), ws, ws_size, zero,
                                     c.d.y.get(), c.y);
    case Kind::BackwardData:
      return cudnnConvolutionBackwardData(c.h, one, c.d.w.get(), c.w, c.d.y.get(), c.y,
                                          c.d.conv.get(), cudnnConvolutionBwdDataAlgo_t(cand.algo),
                                          ws, ws_size, zero, c.d.x.get(), c.x);
    case Kind::BackwardFilter:
      return cudnnConvolutionBackwardFilter(
          c.h, one, c.d.x.get(), c.x, c.d.y.get(), c.y, c.d.conv.get(),
          cudnnConvolutionBwdFilterAlgo_t(cand.algo), ws, ws_size, zero, c.d.w.get(), c.w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// The workspace `cand` needs, as cuDNN computes it for the descriptors with cand's math type
// (the perf results' figure is kept when larger).
cudnnStatus_t query_workspace(Kind kind, Call& c, Candidate& cand) {
  cudnnStatus_t st = cudnnSetConvolutionMathType(c.d.conv.get(), cand.math);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  size_t size = 0;
  if (kind == Kind::Forward)
    st = cudnnGetConvolutionForwardWorkspaceSize(c.h, c.d.x.get(), c.d.w.get(), c.d.conv.get(),
                                                 c.d.y.get(), cudnnConvolutionFwdAlgo_t(cand.algo),
                                                 &size);
  else if (kind == Kind::BackwardData)
    st = cudnnGetConvolutionBackwardDataWorkspaceSize(
        c.h, c.d.w.get(), c.d.y.get(), c.d.conv.get(), c.d.x.get(),
        cudnnConvolutionBwdDataAlgo_t(cand.algo), &size);
  else
    st = cudnnGetConvolutionBackwardFilterWorkspaceSize(
        c.h, c.d.x.get(), c.d.y.get(), c.d.conv.get(), c.d.w.get(),
        cudnnConvolutionBwdFilterAlgo_t(cand.algo), &size);
  if (st == CUDNN_STATUS_SUCCESS) cand.workspace = std::max(cand.workspace, size);
  return st;
}

struct AlgoCache {
  std::mutex mu;
  std::unordered_map<std::string, Candidate> map;
};
AlgoCache& algo_cache() {
  static AlgoCache* cache = new AlgoCache();  // leaked: used until process exit
  return *cache;
}

// Runs the convolution with the cached algorithm, or finds one: candidates in order of preference,
// the first whose workspace can be allocated and which cuDNN accepts wins and is cached.
void run(Kind kind, Call& c) {
  bool bench = cudnn::benchmark(), det = cudnn::deterministic_requested(),
       tf32 = cudnn::allow_tf32();
  std::string key = c.plan.key(kind, bench, det, tf32);
  Candidate cached;
  bool hit = false;
  {
    AlgoCache& cache = algo_cache();
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.map.find(key);
    if (it != cache.map.end()) {
      cached = it->second;
      hit = true;
    }
  }
  if (hit) {
    size_t got = 0;
    Tensor ws = workspace_at_most(cached.workspace, c.plan.device, got);
    TC_CHECK_AS(cuda::OutOfMemoryError, got == cached.workspace, c.ctx,
                ": CUDA out of memory allocating a ", cached.workspace, "-byte cuDNN workspace");
    check(execute(kind, c, cached, ws.defined() ? ws.data_ptr() : nullptr, got),
          "cudnnConvolution (cached algorithm)", c.ctx);
    return;
  }
  std::vector<Candidate> cands =
      bench ? benchmark_candidates(kind, c, det) : heuristic_candidates(kind, c, det);
  TC_CHECK_AS(NotImplementedError, !cands.empty(), c.ctx, ": cuDNN offers no ",
              det ? "deterministic " : "", "algorithm for this convolution");
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  bool workspace_failed = false;
  for (Candidate& cand : cands) {
    last = query_workspace(kind, c, cand);
    if (last != CUDNN_STATUS_SUCCESS) continue;  // not usable with these descriptors
    size_t got = 0;
    Tensor ws = workspace_at_most(cand.workspace, c.plan.device, got);
    if (got != cand.workspace) {  // too hungry for the memory left: try the next one
      workspace_failed = true;
      continue;
    }
    last = execute(kind, c, cand, ws.defined() ? ws.data_ptr() : nullptr, got);
    if (last == CUDNN_STATUS_SUCCESS) {
      AlgoCache& cache = algo_cache();
      std::lock_guard<std::mutex> lock(cache.mu);
      cache.map[key] = cand;
      return;
    }
    // cuDNN 9 status codes are grouped by thousands: 2xxx bad parameter, 3xxx not supported.
    int category = int(last) / 1000;
    if (category != 2 && category != 3) break;
  }
  // Every usable candidate was skipped for its workspace (the others cuDNN rejected): memory.
  int category = int(last) / 1000;
  bool memory_bound =
      last == CUDNN_STATUS_SUCCESS || (workspace_failed && (category == 2 || category == 3));
  TC_CHECK_AS(cuda::OutOfMemoryError, !memory_bound, c.ctx,
              ": CUDA out of memory: no candidate algorithm's workspace could be allocated");
  check(last, "cudnnConvolution (every candidate algorithm failed)", c.ctx);
}

void require_cudnn(const char* op) {
  TC_CHECK_AS(NotImplementedError, cudnn::enabled(), op,
              ": CUDA convolution needs cuDNN, but tc.backends.cudnn.enabled is False");
}

int device_of(const Tensor& t) {
  return t.device().index < 0 ? cuda::current_device() : t.device().index;
}

void check_operand(const char* op, const Tensor& t, const Tensor& ref) {
  TC_CHECK(t.device() == ref.device(), op,
           ": expected all tensors to be on the same device, but found ", ref.device().str(),
           " and ", t.device().str());
  TC_CHECK_TYPE(t.dtype() == ref.dtype(), op, ": expected all tensors to have dtype ",
                dtype_name(ref.dtype()), ", got ", dtype_name(t.dtype()));
}

}  // namespace

namespace {

Tensor forward_impl(const Tensor& x_in, const Tensor& w_in, const Tensor& b, const ConvGeometry& g0,
                    bool channels_last) {
  require_cudnn("conv");
  check_operand("conv", w_in, x_in);
  if (b.defined()) check_operand("conv", b, x_in);
  int dev = device_of(x_in);
  cuda::DeviceGuard guard(dev);
  Plan p = make_plan(g0, x_in.dtype(), dev, channels_last);
  if (x_in.numel() == 0 || shape_numel(g0.output_shape()) == 0) {
    Tensor y = zeros(g0.output_shape(), TensorOptions(x_in.dtype()).device(x_in.device()));
    if (b.defined() && y.numel() > 0) {
      Shape bs(size_t(g0.nd + 2), 1);
      bs[1] = g0.out_channels;
      copy_(y, reshape(b, bs));
    }
    return y;
  }
  Tensor x = p.lift(x_in);
  if (p.padded_input()) x = p.zero_extend(x, p.g.input);
  x = p.arrange(x);
  Tensor w = p.arrange(p.lift(w_in));
  Tensor y = p.alloc(p.g.output_shape());
  Descs d = make_descs(p, p.describe(Kind::Forward));
  Call c{p,
         d,
         handle(dev, cuda::stream_of(dev)),
         x.data_ptr(),
         w.data_ptr(),
         y.data_ptr(),
         p.describe(Kind::Forward)};
  run(Kind::Forward, c);
  if (b.defined()) {
    Shape bs(size_t(p.g.nd + 2), 1);
    bs[1] = p.g.out_channels;
    Tensor bc = contiguous(b);
    auto bd = cudnn::detail::make_tensor_desc(p.type, bs, contiguous_strides(bs), c.ctx);
    float one_f = 1;
    double one_d = 1;
    const void* one = p.dtype == DType::Float64 ? static_cast<const void*>(&one_d) : &one_f;
    check(cudnnAddTensor(c.h, one, bd.get(), bc.data_ptr(), one, d.y.get(), y.data_ptr()),
          "cudnnAddTensor (bias)", c.ctx);
  }
  if (p.cropped_output()) y = p.crop(y, p.orig_output);
  return p.unlift(y);
}

Tensor backward_data_impl(const Tensor& gy_in, const Tensor& w_in, const ConvGeometry& g0,
                          bool channels_last) {
  require_cudnn("conv backward");
  check_operand("conv backward", w_in, gy_in);
  int dev = device_of(gy_in);
  cuda::DeviceGuard guard(dev);
  Plan p = make_plan(g0, gy_in.dtype(), dev, channels_last);
  if (gy_in.numel() == 0 || shape_numel(g0.input_shape()) == 0)
    return zeros(g0.input_shape(), TensorOptions(gy_in.dtype()).device(gy_in.device()));
  Tensor gy = p.lift(gy_in);
  if (p.cropped_output()) gy = p.zero_extend(gy, p.g.output);
  gy = p.arrange(gy);
  Tensor w = p.arrange(p.lift(w_in));
  Tensor gx = p.alloc(p.g.input_shape());
  Descs d = make_descs(p, p.describe(Kind::BackwardData));
  Call c{p,
         d,
         handle(dev, cuda::stream_of(dev)),
         gx.data_ptr(),
         w.data_ptr(),
         gy.data_ptr(),
         p.describe(Kind::BackwardData)};
  run(Kind::BackwardData, c);
  if (p.padded_input()) gx = p.crop(gx, p.orig_input);
  return p.unlift(gx);
}

Tensor backward_weight_impl(const Tensor& x_in, const Tensor& gy_in, const ConvGeometry& g0,
                            bool channels_last) {
  require_cudnn("conv backward");
  check_operand("conv backward", gy_in, x_in);
  int dev = device_of(x_in);
  cuda::DeviceGuard guard(dev);
  Plan p = make_plan(g0, x_in.dtype(), dev, channels_last);
  if (x_in.numel() == 0 || gy_in.numel() == 0)
    return zeros(g0.weight_shape(), TensorOptions(x_in.dtype()).device(x_in.device()));
  Tensor x = p.lift(x_in);
  if (p.padded_input()) x = p.zero_extend(x, p.g.input);
  x = p.arrange(x);
  Tensor gy = p.lift(gy_in);
  if (p.cropped_output()) gy = p.zero_extend(gy, p.g.output);
  gy = p.arrange(gy);
  Tensor gw = p.alloc(p.g.weight_shape());
  Descs d = make_descs(p, p.describe(Kind::BackwardFilter));
  Call c{p,
         d,
         handle(dev, cuda::stream_of(dev)),
         x.data_ptr(),
         gw.data_ptr(),
         gy.data_ptr(),
         p.describe(Kind::BackwardFilter)};
  run(Kind::BackwardFilter, c);
  return p.unlift(gw);
}

// Channels-last inputs run NHWC; should cuDNN support no NHWC algorithm for the case (e.g.
// float64), the same convolution runs NCHW instead.
template <typename Body>
Tensor with_layout_fallback(bool channels_last, Body&& body) {
  if (!channels_last) return body(false);
  try {
    return body(true);
  } catch (const NotImplementedError&) {
    return body(false);
  }
}

}  // namespace

Tensor conv_forward_cudnn(const Tensor& x, const Tensor& w, const Tensor& b,
                          const ConvGeometry& g) {
  return with_layout_fallback(is_channels_last(x),
                              [&](bool cl) { return forward_impl(x, w, b, g, cl); });
}

Tensor conv_backward_data_cudnn(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  return with_layout_fallback(is_channels_last(gy),
                              [&](bool cl) { return backward_data_impl(gy, w, g, cl); });
}

Tensor conv_backward_weight_cudnn(const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  return with_layout_fallback(is_channels_last(x) || is_channels_last(gy),
                              [&](bool cl) { return backward_weight_impl(x, gy, g, cl); });
}

}  // namespace tc::nn::detail

namespace tc::cudnn {
void clear_algorithm_cache() {
  auto& cache = nn::detail::algo_cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.map.clear();
}
int64_t algorithm_cache_size() {
  auto& cache = nn::detail::algo_cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return int64_t(cache.map.size());
}
}  // namespace tc::cudnn

#else  // no cuDNN: CUDA convolutions raise

namespace tc::nn::detail {
namespace {
[[noreturn]] void no_cudnn() {
  throw NotImplementedError(
      "conv: convolution on CUDA tensors needs cuDNN, and tensorcore was not compiled with cuDNN");
}
}  // namespace
Tensor conv_forward_cudnn(const Tensor&, const Tensor&, const Tensor&, const ConvGeometry&) {
  no_cudnn();
}
Tensor conv_backward_data_cudnn(const Tensor&, const Tensor&, const ConvGeometry&) { no_cudnn(); }
Tensor conv_backward_weight_cudnn(const Tensor&, const Tensor&, const ConvGeometry&) { no_cudnn(); }
}  // namespace tc::nn::detail

namespace tc::cudnn {
void clear_algorithm_cache() {}
int64_t algorithm_cache_size() { return 0; }
}  // namespace tc::cudnn

#endif

// cuDNN is the CUDA convolution kernel (or, compiled without cuDNN, the functions above that say
// so); a build without CUDA leaves the device empty and KernelTable raises.
#ifdef TC_WITH_CUDA
namespace tc::nn::detail {
TC_REGISTER_KERNEL(conv_forward_kernel, CUDA, conv_forward_cudnn);
TC_REGISTER_KERNEL(conv_backward_data_kernel, CUDA, conv_backward_data_cudnn);
TC_REGISTER_KERNEL(conv_backward_weight_kernel, CUDA, conv_backward_weight_cudnn);
}  // namespace tc::nn::detail
#endif
