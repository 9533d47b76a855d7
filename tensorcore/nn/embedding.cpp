// embedding and embedding_bag. Lookups are direct row copies/reductions; gradients are index_add
// of the (scaled) output gradient into the weight's rows, written in tensor ops so double
// backward works. max_norm renormalizes the referenced rows of the weight in place, as torch.
#include <cmath>
#include <vector>

#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/ops/sort.h"

namespace tc::nn {
namespace {
// zeros(shape).index_add(dim, index, source) without index_add's clone of the zero tensor: the
// same autograd record, but the V x D table is written once, not cloned (a second full pass).
Tensor add_into_zeros(const Shape& shape, TensorOptions opts, int64_t dim, const Tensor& index,
                      const Tensor& source) {
  Tensor z = zeros(shape, opts);
  index_add_(z, dim, index, source);
  return z;
}

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

Tensor checked_indices(const char* op, const Tensor& input, int64_t num_weights) {
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  TC_CHECK_TYPE(input.dtype() == DType::Int64 || input.dtype() == DType::Int32, op,
                ": expected int64 or int32 indices, got ", dtype_name(input.dtype()));
  Tensor idx = contiguous(to_dtype(input, DType::Int64));
  if (idx.is_cuda()) {  // two device reductions instead of a host loop
    if (idx.numel() == 0) return idx;
    int64_t lo = min(idx).item<int64_t>(), hi = max(idx).item<int64_t>();
    TC_CHECK_INDEX(lo >= 0 && hi < num_weights, op, ": index ", lo < 0 ? lo : hi,
                   " is out of range for a weight with ", num_weights, " rows");
    return idx;
  }
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    TC_CHECK_INDEX(p[i] >= 0 && p[i] < num_weights, op, ": index ", p[i],
                   " is out of range for a weight with ", num_weights, " rows");
  return idx;
}

void check_weight(const char* op, const Tensor& weight) {
  TC_CHECK(weight.defined() && weight.dim() == 2, op,
           ": expected a 2-d weight (num_embeddings, embedding_dim), got ",
           weight.defined() ? shape_str(weight.sizes()) : "None");
  TC_CHECK_TYPE(weight.dtype() == DType::Float32 || weight.dtype() == DType::Float64, op,
                ": expected a float32 or float64 weight, got ", dtype_name(weight.dtype()));
}

int64_t normalize_padding_idx(const char* op, std::optional<int64_t> padding_idx,
                              int64_t num_weights) {
  if (!padding_idx) return -1;
  int64_t p = *padding_idx;
  TC_CHECK_INDEX(p >= -num_weights && p < num_weights, op, ": padding_idx ", p, " must be within [",
                 -num_weights, ", ", num_weights, ")");
  return p < 0 ? p + num_weights : p;
}

// Rows referenced by idx whose norm exceeds max_norm are scaled down to it, in place.
void renorm_rows(const Tensor& weight, const Tensor& idx, double max_norm, double norm_type) {
  TC_CHECK(weight.is_contiguous(), "embedding: max_norm needs a contiguous weight");
  const int64_t D = weight.size(1);
  std::vector<int64_t> rows(idx.data<int64_t>(), idx.data<int64_t>() + idx.numel());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  dispatch_dtype<kF32F64>(weight.dtype(), "embedding", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* w = weight.data<T>();
    for (int64_t r : rows) {
      T* row = w + r * D;
      double norm = 0;
      if (norm_type == 1) {
        for (int64_t j = 0; j < D; ++j) norm += std::abs(double(row[j]));
      } else if (std::isinf(norm_type)) {
        for (int64_t j = 0; j < D; ++j) norm = std::max(norm, std::abs(double(row[j])));
      } else {
        for (int64_t j = 0; j < D; ++j) norm += std::pow(std::abs(double(row[j])), norm_type);
        norm = std::pow(norm, 1.0 / norm_type);
      }
      if (norm > max_norm) {
        T scale = T(max_norm / (norm + 1e-7));
        for (int64_t j = 0; j < D; ++j) row[j] *= scale;
      }
    }
  });
  weight.bump_version();
}

// renorm_rows for a CUDA weight, in core ops on the device: the referenced rows' norms in
// float64 (as the CPU loop), then each row whose norm exceeds max_norm scaled by
// T(max_norm / (norm + 1e-7)) and written back in place.
[[maybe_unused]] void renorm_rows_device(const Tensor& weight_in, const Tensor& idx,
                                         double max_norm, double norm_type) {
  autograd::NoGradGuard no_grad;
  Tensor weight = weight_in;  // a handle: index_copy_ writes the caller's storage
  Tensor rows = std::get<0>(unique(reshape(idx, {-1}), /*sorted=*/true));
  if (rows.numel() == 0) return;
  Tensor sel = index_select(weight, 0, rows);
  Tensor mag = abs(to_dtype(sel, DType::Float64));
  Tensor norms = std::isinf(norm_type) ? amax(mag, {1}) : norm(mag, norm_type, {1});
  Tensor limit = full({}, Scalar(max_norm), TensorOptions(DType::Float64).device(norms.device()));
  Tensor scale = where(gt(norms, limit), div(limit, add(norms, Scalar(1e-7))), ones_like(norms));
  Tensor scaled = mul(sel, unsqueeze(to_dtype(scale, weight.dtype()), 1));
  index_copy_(weight, 0, rows, scaled);
}

// The CPU kernel of embedding_bag_forward (device_kernels.h): bags in parallel, entries in order.
void embedding_bag_forward_cpu(const Tensor& w, const Tensor& idx,
                               const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                               const std::vector<double>& scale, const Tensor& psw, int64_t pad,
                               bool max_mode, const Tensor& out, const Tensor& max_idx) {
  const int64_t B = int64_t(starts.size()), D = w.size(1), n = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  dispatch_dtype<kF32F64>(w.dtype(), "embedding_bag", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = w.data<T>();
    T* op_ = out.data<T>();
    const T* sp = psw.defined() ? psw.data<T>() : nullptr;
    int64_t* mp = max_mode ? max_idx.data<int64_t>() : nullptr;
    parallel_for(0, B,
                 std::max<int64_t>(
                     1, kGrainSize / std::max<int64_t>(
                                         D * std::max<int64_t>(n / std::max<int64_t>(B, 1), 1), 1)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b) {
                     T* o = op_ + b * D;
                     for (int64_t j = starts[size_t(b)]; j < ends[size_t(b)]; ++j) {
                       if (ip[j] == pad) continue;
                       const T* row = wp + ip[j] * D;
                       if (mp) {
                         int64_t* m = mp + b * D;
                         for (int64_t d = 0; d < D; ++d)
                           if (m[d] < 0 || row[d] > o[d]) {
                             o[d] = row[d];
                             m[d] = ip[j];
                           }
                       } else {
                         T s = T(scale[size_t(j)]) * (sp ? sp[j] : T(1));
                         for (int64_t d = 0; d < D; ++d) o[d] += s * row[d];
                       }
                     }
                   }
                 });
  });
}

TC_REGISTER_KERNEL(embedding_bag_forward_kernel, CPU, embedding_bag_forward_cpu);
TC_REGISTER_KERNEL(embedding_renorm_kernel, CPU, renorm_rows);
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(embedding_renorm_kernel, CUDA, renorm_rows_device);
#endif

}  // namespace

namespace functional {

Tensor embedding(const Tensor& input, const Tensor& weight_in, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq) {
  TC_REDUCED_FLOAT_VIA_FLOAT32(weight_in, embedding, input, weight_in, padding_idx, max_norm,
                               norm_type, scale_grad_by_freq);
  const char* op = "embedding";
  check_weight(op, weight_in);
  detail::require_same_device(op, {&input, &weight_in});
  const int64_t V = weight_in.size(0), D = weight_in.size(1);
  Tensor idx = checked_indices(op, input, V);
  int64_t pad = normalize_padding_idx(op, padding_idx, V);
  if (max_norm) {
    Tensor w = weight_in;
    embedding_renorm_kernel.get(w.device().type)(w, idx, *max_norm, norm_type);
  }
  Tensor flat = reshape(idx, {idx.numel()});
  Tensor out = index_select(weight_in.detach(), 0, flat);
  Shape out_shape = input.sizes();
  out_shape.push_back(D);
  out = reshape(out, out_shape);
  if (autograd::needs_grad({weight_in})) {
    // Entries equal to padding_idx contribute no gradient.
    Tensor keep;
    if (pad >= 0)
      keep = to_dtype(unsqueeze(ne(flat, full({}, Scalar(pad),
                                              TensorOptions(DType::Int64).device(flat.device()))),
                                1),
                      weight_in.dtype());
    autograd::record(
        "EmbeddingBackward0", {weight_in}, {out}, {flat, keep},
        [V, D, scale_grad_by_freq](const TensorList& s, const TensorList& g) -> TensorList {
          const Tensor& ids = s[0];
          TensorOptions opts = TensorOptions(g[0].dtype()).device(g[0].device());
          Tensor g2 = reshape(g[0], {ids.numel(), D});
          if (s[1].defined()) g2 = mul(g2, s[1]);
          if (scale_grad_by_freq) {
            Tensor counts = add_into_zeros({V}, opts, 0, ids, ones({ids.numel()}, opts));
            g2 = div(g2, unsqueeze(index_select(counts, 0, ids), 1));
          }
          return {add_into_zeros({V, D}, opts, 0, ids, g2)};
        });
  }
  return out;
}

// Bags: rows of a 2-d input, or segments of a 1-d input starting at `offsets`.
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& input, const Tensor& weight_in, const Tensor& offsets_in,
    std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
    const std::string& mode, const Tensor& per_sample_weights, bool include_last_offset,
    std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  check_weight(op, weight_in);
  detail::require_same_device(op, {&weight_in, &input, &offsets_in, &per_sample_weights});
  // CUDA: the bag bookkeeping below runs on host copies of the (small) index tensors; the
  // reduction runs on the device (nn/kernels_cuda.cu) and backward is device tensor ops.
  const Device dev = weight_in.device();
  auto host = [](const Tensor& t) { return to_device(t, Device(DeviceType::CPU)); };
  auto on_dev = [&](const Tensor& t) { return to_device(t, dev); };
  TC_CHECK(mode == "sum" || mode == "mean" || mode == "max", op,
           ": mode must be 'sum', 'mean' or 'max', got '", mode, "'");
  const int64_t V = weight_in.size(0), D = weight_in.size(1);
  Tensor idx = checked_indices(op, input, V);
  const Tensor idx_host = host(idx);
  int64_t pad = normalize_padding_idx(op, padding_idx, V);
  TC_CHECK(input.dim() == 1 || input.dim() == 2, op, ": expected a 1-d or 2-d input, got shape ",
           shape_str(input.sizes()));
  std::vector<int64_t> starts;
  const int64_t n = idx.numel();
  if (input.dim() == 2) {
    TC_CHECK(!offsets_in.defined(), op,
             ": offsets has to be None if input is 2-d, but got offsets of shape ",
             shape_str(offsets_in.sizes()));
    for (int64_t b = 0; b < input.size(0); ++b) starts.push_back(b * input.size(1));
  } else {
    TC_CHECK(offsets_in.defined() && offsets_in.dim() == 1, op,
             ": offsets must be a 1-d tensor when input is 1-d");
    Tensor off = contiguous(host(to_dtype(offsets_in, DType::Int64)));
    starts.assign(off.data<int64_t>(), off.data<int64_t>() + off.numel());
    if (include_last_offset) {
      TC_CHECK(!starts.empty(), op, ": include_last_offset needs at least one offset");
      starts.pop_back();
    }
    TC_CHECK(starts.empty() || starts[0] == 0, op, ": offsets[0] must be 0, got ",
             starts.empty() ? 0 : starts[0]);
    for (size_t b = 1; b < starts.size(); ++b)
      TC_CHECK(starts[b] >= starts[b - 1] && starts[b] <= n, op,
               ": offsets must be non-decreasing and at most ", n, ", got offsets[", b,
               "] = ", starts[b]);
  }
  const int64_t B = int64_t(starts.size());
  auto bag_end = [&](int64_t b) { return b + 1 < B ? starts[size_t(b + 1)] : n; };
  if (input.dim() == 1 && include_last_offset && offsets_in.numel() > 0) {
    Tensor off = contiguous(host(to_dtype(offsets_in, DType::Int64)));
    int64_t last = off.data<int64_t>()[off.numel() - 1];
    TC_CHECK(last <= n, op, ": the last offset (", last, ") exceeds the number of indices (", n,
             ")");
  }
  Tensor psw;
  if (per_sample_weights.defined()) {
    TC_CHECK(mode == "sum", op,
             ": per_sample_weights was not None. per_sample_weights is only supported for "
             "mode='sum' (got mode='",
             mode, "')");
    TC_CHECK(per_sample_weights.sizes() == input.sizes(), op,
             ": expected per_sample_weights of shape ", shape_str(input.sizes()), ", got ",
             shape_str(per_sample_weights.sizes()));
    TC_CHECK_TYPE(per_sample_weights.dtype() == weight_in.dtype(), op,
                  ": per_sample_weights dtype ", dtype_name(per_sample_weights.dtype()),
                  " does not match weight dtype ", dtype_name(weight_in.dtype()));
    psw = contiguous(reshape(per_sample_weights, {n}));
  }
  if (max_norm) {
    Tensor w = weight_in;
    embedding_renorm_kernel.get(w.device().type)(w, idx, *max_norm, norm_type);
  }
  Tensor w = contiguous(weight_in.detach());
  const TensorOptions i64 = TensorOptions(DType::Int64).device(dev);
  Tensor out = zeros({B, D}, TensorOptions(w.dtype()).device(dev));
  Tensor max_idx = mode == "max" ? full({B, D}, Scalar(int64_t(-1)), i64) : zeros({0}, i64);
  Tensor bag_size = zeros({B}, TensorOptions(DType::Int64));
  // Per entry: its bag (or -1 when skipped for padding) and its scale in the bag's result.
  std::vector<int64_t> entry_bag(static_cast<size_t>(n), -1);
  std::vector<double> entry_scale(static_cast<size_t>(n), 0.0);
  const int64_t* ip = idx_host.data<int64_t>();
  for (int64_t b = 0; b < B; ++b) {
    int64_t count = 0;
    for (int64_t j = starts[size_t(b)]; j < bag_end(b); ++j)
      if (ip[j] != pad) ++count;
    bag_size.data<int64_t>()[b] = count;
    for (int64_t j = starts[size_t(b)]; j < bag_end(b); ++j) {
      if (ip[j] == pad) continue;
      entry_bag[size_t(j)] = b;
      entry_scale[size_t(j)] = mode == "mean" ? 1.0 / double(count) : 1.0;
    }
  }
  std::vector<int64_t> ends;
  for (int64_t b = 0; b < B; ++b) ends.push_back(bag_end(b));
  embedding_bag_forward_kernel.get(dev.type)(w, reshape(idx, {n}), starts, ends, entry_scale, psw,
                                             pad, mode == "max", out, max_idx);
  bag_size = to_device(bag_size, dev);
  Tensor offsets_out = from_vector(starts, {B}, i64);
  if (autograd::needs_grad({weight_in, psw})) {
    std::vector<int64_t> kept_entry, kept_bag;
    std::vector<double> kept_scale;
    for (int64_t j = 0; j < n; ++j)
      if (entry_bag[size_t(j)] >= 0) {
        kept_entry.push_back(j);
        kept_bag.push_back(entry_bag[size_t(j)]);
        kept_scale.push_back(entry_scale[size_t(j)]);
      }
    int64_t k = int64_t(kept_entry.size());
    Tensor e_idx = from_vector(kept_entry, {k}, i64), e_bag = from_vector(kept_bag, {k}, i64);
    Tensor e_scale = to_dtype(on_dev(from_vector(kept_scale, {k, 1})), w.dtype());
    Tensor e_rows = index_select(reshape(idx, {n}), 0, e_idx);
    bool is_max = mode == "max";
    Tensor win_pos, out_pos;
    if (is_max) {
      std::vector<int64_t> wp, opos;
      const Tensor max_idx_host = host(max_idx);
      const int64_t* mp = max_idx_host.data<int64_t>();
      for (int64_t i = 0; i < B * D; ++i)
        if (mp[i] >= 0) {
          wp.push_back(mp[i] * D + i % D);
          opos.push_back(i);
        }
      win_pos = from_vector(wp, {int64_t(wp.size())}, i64);
      out_pos = from_vector(opos, {int64_t(opos.size())}, i64);
    }
    autograd::record(
        "EmbeddingBagBackward0", {weight_in, psw}, {out},
        {e_rows, e_bag, e_scale, e_idx, win_pos, psw, weight_in, out_pos},
        [V, D, is_max, scale_grad_by_freq](const TensorList& s, const TensorList& g) -> TensorList {
          const Tensor &rows = s[0], &bags = s[1], &scale = s[2], &entries = s[3];
          const TensorOptions opts = TensorOptions(g[0].dtype()).device(g[0].device());
          Tensor gw, gpsw;
          if (is_max) {
            // Route each output element's gradient to the row that won it (s[4]: weight position,
            // s[7]: output position; empty bags send nothing).
            Tensor picked = index_select(reshape(g[0], {-1}), 0, s[7]);
            Tensor gflat = add_into_zeros({V * D}, opts, 0, s[4], picked);
            return {reshape(gflat, {V, D}), Tensor()};
          }
          Tensor ge_rows = mul(index_select(g[0], 0, bags), scale);  // [k, D]
          if (s[5].defined()) {
            Tensor wsel = index_select(s[5], 0, entries);
            gpsw = add_into_zeros(s[5].sizes(), opts, 0, entries,
                                  sum(mul(ge_rows, index_select(s[6], 0, rows)), {1}));
            ge_rows = mul(ge_rows, unsqueeze(wsel, 1));
          }
          if (scale_grad_by_freq) {
            Tensor counts = add_into_zeros({V}, opts, 0, rows, ones({rows.numel()}, opts));
            ge_rows = div(ge_rows, unsqueeze(index_select(counts, 0, rows), 1));
          }
          gw = add_into_zeros({V, D}, opts, 0, rows, ge_rows);
          return {gw, gpsw};
        });
  }
  return {out, offsets_out, bag_size, max_idx};
}

}  // namespace functional
}  // namespace tc::nn

namespace tc::nn::functional {

Tensor one_hot(const Tensor& t, int64_t num_classes) {
  TC_CHECK_TYPE(t.dtype() == DType::Int64, "one_hot: expected an int64 index tensor, got ",
                dtype_name(t.dtype()));
  if (t.numel() > 0) {
    const int64_t lo = min(t).item<int64_t>(), hi = max(t).item<int64_t>();
    TC_CHECK(lo >= 0, "one_hot: class values must be non-negative, got ", lo);
    if (num_classes == -1) num_classes = hi + 1;
    TC_CHECK(hi < num_classes, "one_hot: class values must be smaller than num_classes (",
             num_classes, "), got ", hi);
  } else if (num_classes == -1) {
    num_classes = 0;
  }
  TC_CHECK(num_classes >= 0, "one_hot: num_classes must be -1 or non-negative, got ", num_classes);
  Shape shape = t.sizes();
  shape.push_back(num_classes);
  return scatter(zeros(shape, TensorOptions(DType::Int64).device(t.device())), -1, unsqueeze(t, -1),
                 Scalar(1));
}

}  // namespace tc::nn::functional
