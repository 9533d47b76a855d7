// Fractional max pooling as a gather over the windows and a max: differentiable through gather
// (the gradient lands on each window's maximum), on every device the core ops run on.
#include "tensorcore/nn/fractional_pool.h"

#include <string>

#include "tensorcore/core/error.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::functional {
namespace {

std::vector<int64_t> expand_arg(const std::vector<int64_t>& v, size_t dims, const char* op,
                                const char* what) {
  TC_CHECK(v.size() == 1 || v.size() == dims, op, ": ", what, " must be an int or ", dims,
           " ints, got ", v.size());
  return v.size() == 1 ? std::vector<int64_t>(dims, v[0]) : v;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// {n, c, a..., b...}.
Shape nc_shape(int64_t n, int64_t c, const std::vector<int64_t>& a,
               const std::vector<int64_t>& b = {}) {
  Shape s{n, c};
  s.insert(s.end(), a.begin(), a.end());
  s.insert(s.end(), b.begin(), b.end());
  return s;
}

// Window start positions (N, C, out) along one dimension, computed in the samples' dtype as
// torch does, so the windows (and results) agree with torch's for the same samples.
Tensor window_starts(const Tensor& u, int64_t in, int64_t out, int64_t k) {
  if (out == 1) return unsqueeze(to_dtype(full_like(u, double(in - k)), DType::Int64), -1);
  const double alpha_value = double(in - k) / double(out - 1);
  Tensor alpha = full({}, alpha_value, TensorOptions(u.dtype()).device(u.device()));
  Tensor i = arange(out - 1, TensorOptions(u.dtype()).device(u.device()));
  Tensor us = unsqueeze(u, -1);
  Tensor starts = to_dtype(sub(trunc(mul(add(i, us), alpha)), trunc(mul(us, alpha))), DType::Int64);
  Tensor last = unsqueeze(to_dtype(full_like(u, double(in - k)), DType::Int64), -1);
  return cat({starts, last}, -1);
}

std::pair<Tensor, Tensor> fractional_pool(const char* op, size_t dims, const Tensor& input_in,
                                          const std::vector<int64_t>& kernel_in,
                                          const std::vector<int64_t>& size_in,
                                          const std::vector<double>& ratio_in,
                                          const Tensor& samples_in) {
  const int64_t nd = int64_t(dims);
  TC_CHECK(input_in.dim() == nd + 1 || input_in.dim() == nd + 2, op, ": expected a ", nd + 1,
           "-D or ", nd + 2, "-D input, got ", input_in.dim(), "-D ", shape_str(input_in.sizes()));
  TC_CHECK_TYPE(input_in.is_floating_point(), op, ": expected a floating-point input, got ",
                dtype_name(input_in.dtype()));
  const bool batched = input_in.dim() == nd + 2;
  Tensor input = batched ? input_in : unsqueeze(input_in, 0);
  const int64_t n = input.size(0), c = input.size(1);
  std::vector<int64_t> kernel = expand_arg(kernel_in, dims, op, "kernel_size");
  TC_CHECK(size_in.empty() != ratio_in.empty(), op,
           ": exactly one of output_size and output_ratio must be given");
  std::vector<int64_t> in_sizes, out_sizes;
  for (size_t d = 0; d < dims; ++d) in_sizes.push_back(input.size(2 + int64_t(d)));
  if (!size_in.empty()) {
    out_sizes = expand_arg(size_in, dims, op, "output_size");
  } else {
    TC_CHECK(ratio_in.size() == 1 || ratio_in.size() == dims, op,
             ": output_ratio must be a float "
             "or ",
             dims, " floats");
    for (size_t d = 0; d < dims; ++d) {
      double r = ratio_in.size() == 1 ? ratio_in[0] : ratio_in[d];
      TC_CHECK(r > 0.0 && r < 1.0, op, ": output_ratio must be between 0 and 1 (exclusive), got ",
               r);
      out_sizes.push_back(int64_t(double(in_sizes[d]) * r));
    }
  }
  for (size_t d = 0; d < dims; ++d) {
    TC_CHECK(kernel[d] > 0, op, ": kernel_size must be positive, got ", kernel[d]);
    TC_CHECK(out_sizes[d] > 0, op, ": output size must be positive, got ", out_sizes[d]);
    TC_CHECK(out_sizes[d] + kernel[d] - 1 <= in_sizes[d], op, ": output size ", out_sizes[d],
             " with kernel size ", kernel[d], " is too large for input size ", in_sizes[d],
             " (need output_size + kernel_size - 1 <= input_size)");
  }
  Tensor samples = samples_in;
  if (!samples.defined()) {
    samples = rand({n, c, nd}, {}, TensorOptions(input.dtype()).device(input.device()));
  } else {
    TC_CHECK(
        samples.dim() == 3 && samples.size(0) == n && samples.size(1) == c && samples.size(2) == nd,
        op, ": _random_samples must have shape (", n, ", ", c, ", ", nd, "), got ",
        shape_str(samples.sizes()));
    samples = to_dtype(samples, input.dtype());
  }
  // Flat index of every window element: (N, C, out..., k...) built one dimension at a time.
  // torch's sample order: (w, h) for 2-d pooling but (t, h, w) for 3-d.
  Tensor flat;
  int64_t stride = 1;
  std::vector<Tensor> offsets(dims);
  for (int64_t d = nd - 1; d >= 0; --d) {
    Tensor u = select(samples, 2, nd == 2 ? nd - 1 - d : d);
    Tensor starts = window_starts(u, in_sizes[d], out_sizes[d], kernel[d]);  // (N, C, out)
    Tensor pos = add(unsqueeze(starts, -1),
                     arange(kernel[d], TensorOptions(DType::Int64).device(input.device())));
    offsets[d] = mul(pos, stride);  // (N, C, out_d, k_d)
    stride *= in_sizes[d];
  }
  // Broadcast the per-dimension offsets to (N, C, out_0, ..., out_{D-1}, k_0, ..., k_{D-1}).
  for (int64_t d = 0; d < nd; ++d) {
    Shape shape{n, c};
    for (int64_t e = 0; e < nd; ++e) shape.push_back(e == d ? out_sizes[e] : 1);
    for (int64_t e = 0; e < nd; ++e) shape.push_back(e == d ? kernel[e] : 1);
    // offsets[d] is (N, C, out_d, k_d): move k_d behind the other output dims.
    Tensor o = reshape(offsets[d], shape);
    flat = flat.defined() ? add(flat, o) : o;
  }
  const int64_t outputs = product(out_sizes), taps = product(kernel);
  flat =
      reshape(contiguous(expand(flat, nc_shape(n, c, out_sizes, kernel))), {n, c, outputs, taps});
  Tensor planes = reshape(input, {n, c, product(in_sizes)});
  Tensor taken =
      reshape(gather(planes, 2, reshape(flat, {n, c, outputs * taps})), {n, c, outputs, taps});
  auto [values, which] = max(taken, -1);
  Tensor indices = squeeze(gather(flat, -1, unsqueeze(which, -1)), -1);
  const Shape out_shape = nc_shape(n, c, out_sizes);
  values = reshape(values, out_shape);
  indices = reshape(indices, out_shape);
  if (!batched) {
    values = squeeze(values, 0);
    indices = squeeze(indices, 0);
  }
  return {values, indices};
}

}  // namespace

std::pair<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_size, const std::vector<double>& output_ratio,
    const Tensor& random_samples) {
  return fractional_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                         random_samples);
}

std::pair<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_size, const std::vector<double>& output_ratio,
    const Tensor& random_samples) {
  return fractional_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                         random_samples);
}

}  // namespace tc::nn::functional
