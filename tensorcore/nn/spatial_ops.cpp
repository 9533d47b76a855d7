// pad, pixel_shuffle/unshuffle and unfold/fold.
// pad's reflect/replicate/circular modes are an index map per padded dim applied with
// index_select (whose backward is index_add), constant padding is a concatenation; unfold/fold
// are im2col/col2im and each other's vjp.
#include <vector>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/im2col.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// Source index for each padded position of one dim.
std::vector<int64_t> pad_index(const std::string& mode, int64_t n, int64_t left, int64_t right) {
  std::vector<int64_t> idx;
  for (int64_t o = -left; o < n + right; ++o) {
    int64_t i = o;
    if (mode == "reflect") {
      int64_t period = 2 * (n - 1);
      i = period == 0 ? 0 : ((o % period) + period) % period;
      if (i >= n) i = period - i;
    } else if (mode == "replicate") {
      i = std::clamp<int64_t>(o, 0, n - 1);
    } else {  // circular
      i = ((o % n) + n) % n;
    }
    idx.push_back(i);
  }
  return idx;
}

struct UnfoldGeom {
  detail::Geo3 g;
  int64_t N, C;
};

Tensor fold_op(const Tensor& cols, const UnfoldGeom& u);
Tensor unfold_op(const Tensor& x, const UnfoldGeom& u);

Tensor unfold_cpu(const Tensor& x_in, const detail::Geo3& g) {
  Tensor x = contiguous(x_in);
  const UnfoldGeom u{g, x.size(0), x.size(1)};
  const int64_t K = u.C * u.g.k_size(), L = u.g.out_size();
  Tensor cols = empty({u.N, K, L}, TensorOptions(x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), "unfold", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < u.N; ++n)
      detail::im2col<T>(x.data<T>() + n * u.C * u.g.in_size(), u.C, u.g,
                        cols.data<T>() + n * K * L);
  });
  if (autograd::needs_grad({x_in}))
    autograd::record(
        "Im2ColBackward0", {x_in}, {cols}, {},
        [u](const TensorList&, const TensorList& g) -> TensorList { return {fold_op(g[0], u)}; });
  return cols;
}

Tensor fold_cpu(const Tensor& cols_in, int64_t channels, const detail::Geo3& g) {
  Tensor cols = contiguous(cols_in);
  const UnfoldGeom u{g, cols.size(0), channels};
  const int64_t K = u.C * u.g.k_size(), L = u.g.out_size();
  Tensor x = zeros({u.N, u.C, u.g.in[1], u.g.in[2]}, TensorOptions(cols.dtype()));
  dispatch_dtype<kF32F64>(cols.dtype(), "fold", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < u.N; ++n)
      detail::col2im<T>(cols.data<T>() + n * K * L, u.C, u.g,
                        x.data<T>() + n * u.C * u.g.in_size());
  });
  if (autograd::needs_grad({cols_in}))
    autograd::record(
        "Col2ImBackward0", {cols_in}, {x}, {},
        [u](const TensorList&, const TensorList& g) -> TensorList { return {unfold_op(g[0], u)}; });
  return x;
}

TC_REGISTER_KERNEL(unfold_kernel, CPU, unfold_cpu);
TC_REGISTER_KERNEL(fold_kernel, CPU, fold_cpu);

Tensor unfold_op(const Tensor& x, const UnfoldGeom& u) {
  return unfold_kernel.get(x.device().type)(x, u.g);
}

Tensor fold_op(const Tensor& cols, const UnfoldGeom& u) {
  return fold_kernel.get(cols.device().type)(cols, u.C, u.g);
}

Shape pair_param(const functional::IntList& v, const char* op, const char* what) {
  if (v.size() == 2) return v;
  TC_CHECK(v.size() == 1, op, ": ", what, " must be one int or 2 ints, got ", v.size(), " values");
  return {v[0], v[0]};
}

detail::Geo3 geo_for(const char* op, int64_t H, int64_t W, const functional::IntList& kernel_size,
                     const functional::IntList& dilation, const functional::IntList& padding,
                     const functional::IntList& stride) {
  Shape k = pair_param(kernel_size, op, "kernel_size"), d = pair_param(dilation, op, "dilation");
  Shape p = pair_param(padding, op, "padding"), s = pair_param(stride, op, "stride");
  detail::Geo3 g{};
  g.in[0] = 1;
  g.k[0] = 1;
  g.out[0] = 1;
  g.s[0] = 1;
  g.p[0] = 0;
  g.d[0] = 1;
  int64_t in[2] = {H, W};
  for (int i = 0; i < 2; ++i) {
    TC_CHECK(k[i] > 0 && d[i] > 0 && s[i] > 0 && p[i] >= 0, op,
             ": kernel_size, dilation and stride must be positive and padding non-negative");
    g.in[i + 1] = in[i];
    g.k[i + 1] = k[i];
    g.d[i + 1] = d[i];
    g.p[i + 1] = p[i];
    g.s[i + 1] = s[i];
    g.out[i + 1] = (in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
    TC_CHECK(in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1 >= 0, op, ": the (dilated) kernel ",
             shape_str(k), " does not fit in the padded input of spatial size [", H, ", ", W, "]");
  }
  return g;
}

// Constant padding (negative amounts crop): one output, filled where padding lands, the kept
// input copied into its interior. The gradient is the same op with the amounts negated.
Tensor constant_pad(const Tensor& input, const functional::IntList& pad, double value) {
  const char* op = "pad";
  const int64_t npad = int64_t(pad.size()) / 2;
  Shape out_shape = input.sizes();
  Tensor src = input.detach();  // narrowed to the part that survives negative amounts
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t dim = input.dim() - 1 - i, l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
    const int64_t n = input.size(dim);
    TC_CHECK(n + l + r >= 0, op, ": padding ", shape_str(pad),
             " would give a negative size for input ", shape_str(input.sizes()));
    out_shape[size_t(dim)] = n + l + r;
    const int64_t cut_l = std::min(std::max<int64_t>(-l, 0), n), cut_r = std::max<int64_t>(-r, 0);
    src = narrow(src, dim, cut_l, std::max<int64_t>(n - cut_l - cut_r, 0));
  }
  Tensor out = empty(out_shape, TensorOptions(input.dtype()).device(input.device()));
  Tensor dst = out;  // where src lands: after the left padding of each dim
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t dim = input.dim() - 1 - i;
    dst = narrow(dst, dim, std::max<int64_t>(pad[size_t(2 * i)], 0), src.size(dim));
  }
  {
    autograd::GradModeGuard no_grad(false);
    if (dst.numel() != out.numel()) fill_(out, value);
    if (dst.numel() > 0) copy_(dst, src);
  }
  if (autograd::needs_grad({input})) {
    Shape negated(pad.begin(), pad.end());
    for (auto& v : negated) v = -v;
    autograd::record("ConstantPadNdBackward0", {input}, {out}, {},
                     [negated](const TensorList&, const TensorList& g) -> TensorList {
                       return {functional::pad(g[0], negated, "constant", 0.0)};
                     });
  }
  return out;
}

}  // namespace

namespace functional {

Tensor pad(const Tensor& input, const IntList& pad, const std::string& mode, double value) {
  if (amp::hook_armed() && (mode == "reflect" || mode == "replicate")) {
    // torch lists these per mode and padded dims (reflection_pad2d, replication_pad3d, ...).
    std::string name = std::string(mode == "reflect" ? "reflection_pad" : "replication_pad") +
                       std::to_string(pad.size() / 2) + "d";
    TC_AUTOCAST(name, ::tc::nn::functional::pad, input, pad, mode, value);
  }
  const char* op = "pad";
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  TC_CHECK(pad.size() % 2 == 0, op, ": padding length must be divisible by 2, got ", pad.size());
  int64_t npad = int64_t(pad.size()) / 2;
  TC_CHECK(npad <= input.dim(), op, ": padding length ", pad.size(), " is too large for a ",
           input.dim(), "-d input");
  TC_CHECK(mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular", op,
           ": mode must be 'constant', 'reflect', 'replicate' or 'circular', got '", mode, "'");
  if (mode == "constant") return constant_pad(input, pad, value);
  TC_CHECK(value == 0, op, ": padding mode '", mode, "' doesn't take in value argument");
  TC_CHECK(npad <= 3 && input.dim() >= npad + 1, op, ": ", mode, " padding of ", npad,
           " dims expects a ", npad + 1, "-d or ", npad + 2, "-d input, got shape ",
           shape_str(input.sizes()));
  Tensor y = input;
  for (int64_t i = 0; i < npad; ++i) {
    int64_t dim = input.dim() - 1 - i, l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
    int64_t n = input.size(dim);
    if (mode == "reflect")
      TC_CHECK(l < n && r < n && l >= 0 && r >= 0, op, ": reflect padding (", l, ", ", r,
               ") must be non-negative and smaller than the input dim ", dim, " of size ", n);
    else if (mode == "circular")
      TC_CHECK(l <= n && r <= n && l >= 0 && r >= 0, op, ": circular padding (", l, ", ", r,
               ") must be non-negative and at most the input dim ", dim, " of size ", n);
    else
      TC_CHECK(l >= 0 && r >= 0 && n > 0, op,
               ": replicate padding must be non-negative on a non-empty dim");
    if (l == 0 && r == 0) continue;
    std::vector<int64_t> idx = pad_index(mode, n, l, r);
    y = index_select(y, dim, to_device(from_vector(idx, {int64_t(idx.size())}), input.device()));
  }
  return y.is_same(input) ? clone(input) : y;
}

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  const char* op = "pixel_shuffle";
  TC_CHECK(input.defined() && input.dim() >= 3, op,
           ": expected an input of at least 3 dims (*, C, H, W), got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  TC_CHECK(r > 0, op, ": upscale_factor must be positive, got ", r);
  int64_t d = input.dim(), C = input.size(d - 3), H = input.size(d - 2), W = input.size(d - 1);
  TC_CHECK(C % (r * r) == 0, op, ": channels (", C,
           ") must be divisible by upscale_factor squared (", r * r, ")");
  Shape lead(input.sizes().begin(), input.sizes().end() - 3);
  int64_t B = shape_numel(lead);
  Tensor x = reshape(input, {B, C / (r * r), r, r, H, W});
  x = permute(x, {0, 1, 4, 2, 5, 3});
  Shape out = lead;
  out.insert(out.end(), {C / (r * r), H * r, W * r});
  return reshape(x, out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  const char* op = "pixel_unshuffle";
  TC_CHECK(input.defined() && input.dim() >= 3, op,
           ": expected an input of at least 3 dims (*, C, H, W), got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  TC_CHECK(r > 0, op, ": downscale_factor must be positive, got ", r);
  int64_t d = input.dim(), C = input.size(d - 3), H = input.size(d - 2), W = input.size(d - 1);
  TC_CHECK(H % r == 0 && W % r == 0, op, ": spatial size [", H, ", ", W,
           "] must be divisible by downscale_factor (", r, ")");
  Shape lead(input.sizes().begin(), input.sizes().end() - 3);
  int64_t B = shape_numel(lead);
  Tensor x = reshape(input, {B, C, H / r, r, W / r, r});
  x = permute(x, {0, 1, 3, 5, 2, 4});
  Shape out = lead;
  out.insert(out.end(), {C * r * r, H / r, W / r});
  return reshape(x, out);
}

Tensor unfold(const Tensor& input, const IntList& kernel_size, const IntList& dilation,
              const IntList& padding, const IntList& stride) {
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, unfold, input, kernel_size, dilation, padding, stride);
  const char* op = "unfold";
  TC_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), op,
           ": expected a 3-d (unbatched) or 4-d input (N, C, H, W), got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  bool unbatched = input.dim() == 3;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  UnfoldGeom u{geo_for(op, x.size(2), x.size(3), kernel_size, dilation, padding, stride), x.size(0),
               x.size(1)};
  Tensor y = unfold_op(x, u);
  return unbatched ? squeeze(y, 0) : y;
}

Tensor fold(const Tensor& input, const IntList& output_size, const IntList& kernel_size,
            const IntList& dilation, const IntList& padding, const IntList& stride) {
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, fold, input, output_size, kernel_size, dilation, padding,
                               stride);
  const char* op = "fold";
  TC_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), op,
           ": expected a 2-d (unbatched) or 3-d input (N, C*prod(kernel_size), L), got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  bool unbatched = input.dim() == 2;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  Shape o = pair_param(output_size, op, "output_size");
  detail::Geo3 g = geo_for(op, o[0], o[1], kernel_size, dilation, padding, stride);
  int64_t ks = g.k_size();
  TC_CHECK(x.size(1) % ks == 0, op, ": expected size of input's dimension 1 (", x.size(1),
           ") to be divisible by the product of kernel_size (", ks, ")");
  TC_CHECK(x.size(2) == g.out_size(), op,
           ": expected input's dimension 2 to match the calculated number of sliding blocks ",
           g.out[1], " * ", g.out[2], " = ", g.out_size(), ", but got ", x.size(2));
  UnfoldGeom u{g, x.size(0), x.size(1) / ks};
  Tensor y = fold_op(x, u);
  return unbatched ? squeeze(y, 0) : y;
}

}  // namespace functional
}  // namespace tc::nn

namespace tc::nn::functional {

Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  TC_CHECK(
      x.dim() >= 3,
      "channel_shuffle: expected an input [N, C, *] with at least 3 dims, but got input of size ",
      shape_str(x.sizes()));
  TC_CHECK(groups > 0 && x.size(1) % groups == 0, "channel_shuffle: the number of channels (",
           x.size(1), ") must be divisible by groups (", groups, ")");
  Shape split{x.size(0), groups, x.size(1) / groups};
  split.insert(split.end(), x.sizes().begin() + 2, x.sizes().end());
  return reshape(transpose(reshape(x, split), 1, 2), x.sizes());
}

}  // namespace tc::nn::functional
