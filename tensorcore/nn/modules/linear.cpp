#include "tensorcore/nn/modules/linear.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nnfused/activation.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace {

std::string list_str(const IntList& v) {
  if (v.size() == 1) return std::to_string(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// One value per spatial dim (a single value is repeated).
IntList expand_list(const char* layer, const char* what, IntList v, int n) {
  if (v.size() == 1) v.assign(n, v[0]);
  TC_CHECK(int(v.size()) == n, layer, ": ", what, " needs 1 or ", n, " values, got ", v.size());
  return v;
}

void init_bias_uniform(Tensor& bias, int64_t fan_in) {
  if (!bias.defined()) return;
  double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
  init::uniform_(bias, -bound, bound);
}

}  // namespace

namespace functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  TC_AUTOCAST("linear", linear, x, weight, bias);
  TC_CHECK(x.dim() >= 1 && x.size(-1) == weight.size(1),
           "linear: expected input with last dimension ", weight.size(1),
           " (in_features of weight ", shape_str(weight.sizes()), "), but got input of size ",
           shape_str(x.sizes()));
  if (x.dim() == 2 && bias.defined()) return addmm(bias, x, t(weight));
  Tensor y = matmul(x, t(weight));
  return bias.defined() ? add(y, bias) : y;
}
Tensor relu(const Tensor& x) { return tc::relu(x); }
Tensor gelu(const Tensor& x, const std::string& approximate) {
  TC_CHECK(approximate == "none" || approximate == "tanh",
           "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return nnfused::gelu(x, approximate == "tanh");
}
Tensor silu(const Tensor& x) { return mul(x, sigmoid(x)); }
Tensor softmax(const Tensor& x, int64_t dim) { return nnfused::softmax(x, dim); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return nnfused::log_softmax(x, dim); }

}  // namespace functional

// ---- Linear ----
LinearImpl::LinearImpl(int64_t in, int64_t out, bool has_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  TC_CHECK(in >= 0 && out >= 0, "Linear: in_features and out_features must be >= 0, got ", in,
           " and ", out);
  weight = register_parameter("weight", empty({out, in}));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  init_bias_uniform(bias, in_features);
}

Tensor LinearImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 1 && x.size(-1) == in_features, "Linear: expected input with last dimension ",
           in_features, " (in_features), but got input of size ", shape_str(x.sizes()));
  return functional::linear(x, weight, bias);
}

void LinearImpl::pretty_print(std::ostream& os) const {
  os << "Linear(in_features=" << in_features << ", out_features=" << out_features
     << ", bias=" << (bias.defined() ? "true" : "false") << ")";
}

// ---- Convolutions ----
ConvNdImpl::ConvNdImpl(std::string type, int n, int64_t in, int64_t out, IntList k, IntList s,
                       IntList p, IntList d, int64_t g, bool has_bias, bool tr, IntList op,
                       std::string pm, std::string ps)
    : Module(type),
      spatial(n),
      in_channels(in),
      out_channels(out),
      groups(g),
      transposed(tr),
      padding_mode(std::move(pm)),
      padding_string(std::move(ps)) {
  const char* name = this->name().c_str();
  kernel_size = expand_list(name, "kernel_size", std::move(k), n);
  stride = expand_list(name, "stride", std::move(s), n);
  padding = expand_list(name, "padding", std::move(p), n);
  dilation = expand_list(name, "dilation", std::move(d), n);
  output_padding = expand_list(name, "output_padding", std::move(op), n);
  TC_CHECK(in > 0 && out > 0, name, ": in_channels and out_channels must be positive, got ", in,
           " and ", out);
  TC_CHECK(g > 0 && in % g == 0 && out % g == 0, name, ": in_channels (", in,
           ") and out_channels (", out, ") must be divisible by groups (", g, ")");
  for (int i = 0; i < n; ++i)
    TC_CHECK(kernel_size[size_t(i)] > 0 && stride[size_t(i)] > 0 && dilation[size_t(i)] > 0 &&
                 padding[size_t(i)] >= 0,
             name,
             ": kernel_size, stride and dilation must be positive and padding non-negative, got "
             "kernel_size ",
             shape_str(kernel_size), ", stride ", shape_str(stride), ", dilation ",
             shape_str(dilation), ", padding ", shape_str(padding));
  TC_CHECK(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
               padding_mode == "circular",
           name, ": padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got '",
           padding_mode, "'");
  TC_CHECK(!tr || padding_mode == "zeros", name, ": only 'zeros' padding_mode is supported, got '",
           padding_mode, "'");
  TC_CHECK(padding_string.empty() || padding_string == "same" || padding_string == "valid", name,
           ": padding must be numbers, 'same' or 'valid', got '", padding_string, "'");
  if (!padding_string.empty()) {
    padding.assign(size_t(n), 0);
    if (padding_string == "same")
      for (auto v : stride)
        TC_CHECK(v == 1, name,
                 ": padding='same' is not supported for strided convolutions (stride ",
                 shape_str(stride), ")");
  }
  Shape wshape = tr ? Shape{in, out / g} : Shape{out, in / g};
  for (auto v : kernel_size) wshape.push_back(v);
  weight = register_parameter("weight", empty(wshape));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void ConvNdImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  init_bias_uniform(bias, init::calculate_fan_in_and_fan_out(weight).first);
}

void ConvNdImpl::check_input(const Tensor& x) const {
  TC_CHECK((x.dim() == spatial + 2 || x.dim() == spatial + 1) &&
               x.size(x.dim() - spatial - 1) == in_channels,
           name(), ": expected input of shape [N, ", in_channels, ", *] with ", spatial,
           " spatial dims, but got input of size ", shape_str(x.sizes()));
}

Tensor ConvNdImpl::run(const Tensor& x, const IntList& output_size) const {
  namespace F = functional;
  check_input(x);
  if (transposed) {
    IntList op = output_padding;
    if (!output_size.empty()) {
      TC_CHECK(int(output_size.size()) == spatial || int(output_size.size()) == x.dim(), name(),
               ": output_size must have ", spatial, " or ", x.dim(), " entries, got ",
               shape_str(output_size));
      for (int i = 0; i < spatial; ++i) {
        const size_t u = size_t(i);
        const int64_t in = x.size(x.dim() - spatial + i);
        const int64_t lo =
            (in - 1) * stride[u] - 2 * padding[u] + dilation[u] * (kernel_size[u] - 1) + 1;
        const int64_t hi = lo + std::max(stride[u], dilation[u]) - 1;
        const int64_t want = output_size[output_size.size() - size_t(spatial) + u];
        TC_CHECK(want >= lo && want <= hi, name(), ": requested an output size of ",
                 shape_str(output_size), ", but valid sizes of spatial dim ", i, " range from ", lo,
                 " to ", hi, " (for an input of ", shape_str(x.sizes()), ")");
        op[u] = want - lo;
      }
    }
    if (spatial == 1)
      return F::conv_transpose1d(x, weight, bias, stride, padding, op, groups, dilation);
    if (spatial == 2)
      return F::conv_transpose2d(x, weight, bias, stride, padding, op, groups, dilation);
    return F::conv_transpose3d(x, weight, bias, stride, padding, op, groups, dilation);
  }
  auto conv = [&](const Tensor& in, const IntList& pad) {
    if (spatial == 1) return F::conv1d(in, weight, bias, stride, pad, dilation, groups);
    if (spatial == 2) return F::conv2d(in, weight, bias, stride, pad, dilation, groups);
    return F::conv3d(in, weight, bias, stride, pad, dilation, groups);
  };
  const bool same = padding_string == "same";
  if (padding_mode == "zeros") {
    if (!same) return conv(x, padding);
    if (spatial == 1) return F::conv1d(x, weight, bias, stride, "same", dilation, groups);
    if (spatial == 2) return F::conv2d(x, weight, bias, stride, "same", dilation, groups);
    return F::conv3d(x, weight, bias, stride, "same", dilation, groups);
  }
  // Non-zero modes pad the input first: (left, right) pairs from the last spatial dim, as F.pad.
  IntList pads;
  for (int i = spatial - 1; i >= 0; --i) {
    const size_t u = size_t(i);
    const int64_t total = same ? dilation[u] * (kernel_size[u] - 1) : 2 * padding[u];
    pads.push_back(total / 2);
    pads.push_back(total - total / 2);
  }
  return conv(F::pad(x, pads, padding_mode), IntList(size_t(spatial), 0));
}

ModulePtr ConvNdImpl::finish_clone(std::shared_ptr<ConvNdImpl> copy) const {
  copy->padding_mode = padding_mode;
  copy->padding_string = padding_string;
  copy->padding = padding;
  copy->copy_state_from(*this);
  return copy;
}

void ConvNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << in_channels << ", " << out_channels
     << ", kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride);
  if (!padding_string.empty())
    os << ", padding=" << padding_string;
  else if (padding != IntList(size_t(spatial), 0))
    os << ", padding=" << list_str(padding);
  if (dilation != IntList(size_t(spatial), 1)) os << ", dilation=" << list_str(dilation);
  if (transposed && output_padding != IntList(size_t(spatial), 0))
    os << ", output_padding=" << list_str(output_padding);
  if (groups != 1) os << ", groups=" << groups;
  if (!bias.defined()) os << ", bias=false";
  if (padding_mode != "zeros") os << ", padding_mode=" << padding_mode;
  os << ")";
}

Conv1dImpl::Conv1dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv1d", 1, in, out, std::move(k), std::move(s), std::move(p), std::move(d), g, b,
                 false, {0}, std::move(pm)) {}
Conv1dImpl::Conv1dImpl(int64_t in, int64_t out, IntList k, IntList s, ConvPadding p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv1d", 1, in, out, std::move(k), std::move(s), {0}, std::move(d), g, b, false,
                 {0}, std::move(pm), conv_padding_name(p)) {}
Tensor Conv1dImpl::forward(const Tensor& x) { return run(x); }

Conv2dImpl::Conv2dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv2d", 2, in, out, std::move(k), std::move(s), std::move(p), std::move(d), g, b,
                 false, {0}, std::move(pm)) {}
Conv2dImpl::Conv2dImpl(int64_t in, int64_t out, IntList k, IntList s, ConvPadding p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv2d", 2, in, out, std::move(k), std::move(s), {0}, std::move(d), g, b, false,
                 {0}, std::move(pm), conv_padding_name(p)) {}
Tensor Conv2dImpl::forward(const Tensor& x) { return run(x); }

ConvTranspose2dImpl::ConvTranspose2dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p,
                                         IntList op, int64_t g, bool b, IntList d)
    : ConvNdImpl("ConvTranspose2d", 2, in, out, std::move(k), std::move(s), std::move(p),
                 std::move(d), g, b, true, std::move(op)) {}
Tensor ConvTranspose2dImpl::forward(const Tensor& x) { return run(x); }
Tensor ConvTranspose2dImpl::forward(const Tensor& x, const IntList& output_size) {
  return run(x, output_size);
}

// ---- BatchNorm ----
BatchNormImpl::BatchNormImpl(std::string type, int64_t nf, double eps, double momentum, bool affine,
                             bool track)
    : Module(std::move(type)),
      num_features(nf),
      eps(eps),
      momentum(momentum),
      affine(affine),
      track_running_stats(track) {
  TC_CHECK(nf > 0, name(), ": num_features must be positive, got ", nf);
  weight = register_parameter("weight", affine ? ones({nf}) : Tensor());
  bias = register_parameter("bias", affine ? zeros({nf}) : Tensor());
  if (track) {
    running_mean = register_buffer("running_mean", zeros({nf}));
    running_var = register_buffer("running_var", ones({nf}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
  }
}

void BatchNormImpl::reset_running_stats() {
  if (!track_running_stats) return;
  autograd::NoGradGuard g;
  zero_(running_mean);
  fill_(running_var, 1);
  zero_(num_batches_tracked);
}

Tensor BatchNormImpl::forward(const Tensor& x) {
  bool dim_ok = false;
  for (auto d : allowed_dims_) dim_ok |= x.dim() == d;
  if (!dim_ok || x.size(1) != num_features) {
    static const char* layouts[] = {
        "", "", "[N, C]", "[N, C, L]", "[N, C, H, W]", "[N, C, D, H, W]"};
    std::string expect;
    for (auto d : allowed_dims_) expect += std::string(expect.empty() ? "" : " or ") + layouts[d];
    TC_CHECK(false, name(), ": expected input of shape ", expect, " with C = ", num_features,
             ", but got input of size ", shape_str(x.sizes()));
  }
  double factor = momentum < 0 ? 0.0 : momentum;
  if (training_ && track_running_stats) {
    autograd::NoGradGuard g;
    Tensor nbt = num_batches_tracked;
    add_(nbt, 1);
    if (momentum < 0) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
  }
  bool use_batch_stats = training_ || !track_running_stats;
  return functional::batch_norm(x, use_batch_stats && !training_ ? Tensor() : running_mean,
                                use_batch_stats && !training_ ? Tensor() : running_var, weight,
                                bias, use_batch_stats, factor, eps);
}

void BatchNormImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << num_features << ", eps=" << eps << ", momentum=" << momentum
     << ", affine=" << (affine ? "true" : "false")
     << ", track_running_stats=" << (track_running_stats ? "true" : "false") << ")";
}

BatchNorm1dImpl::BatchNorm1dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm1d", nf, eps, m, a, t) {
  allowed_dims_ = {2, 3};
}
BatchNorm2dImpl::BatchNorm2dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm2d", nf, eps, m, a, t) {
  allowed_dims_ = {4};
}

// ---- LayerNorm / GroupNorm ----
LayerNormImpl::LayerNormImpl(IntList shape, double eps, bool affine)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps) {
  weight = register_parameter("weight", affine ? ones(normalized_shape) : Tensor());
  bias = register_parameter("bias", affine ? zeros(normalized_shape) : Tensor());
}
Tensor LayerNormImpl::forward(const Tensor& x) {
  return functional::layer_norm(x, normalized_shape, weight, bias, eps);
}
void LayerNormImpl::pretty_print(std::ostream& os) const {
  os << "LayerNorm(" << shape_str(normalized_shape) << ", eps=" << eps
     << ", elementwise_affine=" << (weight.defined() ? "true" : "false") << ")";
}

GroupNormImpl::GroupNormImpl(int64_t g, int64_t c, double eps, bool affine)
    : Module("GroupNorm"), num_groups(g), num_channels(c), eps(eps) {
  TC_CHECK(g > 0 && c % g == 0, "GroupNorm: num_channels (", c,
           ") must be divisible by num_groups (", g, ")");
  weight = register_parameter("weight", affine ? ones({c}) : Tensor());
  bias = register_parameter("bias", affine ? zeros({c}) : Tensor());
}
Tensor GroupNormImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 2 && x.size(1) == num_channels, "GroupNorm: expected input of shape [N, ",
           num_channels, ", *], but got input of size ", shape_str(x.sizes()));
  return functional::group_norm(x, num_groups, weight, bias, eps);
}
void GroupNormImpl::pretty_print(std::ostream& os) const {
  os << "GroupNorm(" << num_groups << ", " << num_channels << ", eps=" << eps
     << ", affine=" << (weight.defined() ? "true" : "false") << ")";
}

// ---- Dropout / Embedding ----
DropoutImpl::DropoutImpl(double p) : Module("Dropout"), p(p) {
  TC_CHECK(p >= 0 && p <= 1, "Dropout: p must be in [0, 1], got ", p);
}
Tensor DropoutImpl::forward(const Tensor& x) { return functional::dropout(x, p, training_); }
void DropoutImpl::pretty_print(std::ostream& os) const { os << "Dropout(p=" << p << ")"; }

EmbeddingImpl::EmbeddingImpl(int64_t n, int64_t d, std::optional<int64_t> pad,
                             std::optional<double> mn, double nt, bool sgf)
    : Module("Embedding"),
      num_embeddings(n),
      embedding_dim(d),
      padding_idx(pad),
      max_norm(mn),
      norm_type(nt),
      scale_grad_by_freq(sgf) {
  if (pad) {
    TC_CHECK(*pad >= -n && *pad < n, "Embedding: padding_idx must be within num_embeddings (", n,
             "), got ", *pad);
    if (*pad < 0) padding_idx = *pad + n;
  }
  weight = register_parameter("weight", empty({n, d}));
  init::normal_(weight);
  if (padding_idx) {
    autograd::NoGradGuard g;
    Tensor row = select(weight, 0, *padding_idx);
    zero_(row);
  }
}
Tensor EmbeddingImpl::forward(const Tensor& idx) {
  TC_CHECK_TYPE(idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32,
                "Embedding: expected integer indices (int64 or int32), got ",
                dtype_name(idx.dtype()));
  return functional::embedding(idx, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq);
}
void EmbeddingImpl::pretty_print(std::ostream& os) const {
  os << "Embedding(" << num_embeddings << ", " << embedding_dim;
  if (padding_idx) os << ", padding_idx=" << *padding_idx;
  if (max_norm) os << ", max_norm=" << *max_norm;
  if (scale_grad_by_freq) os << ", scale_grad_by_freq=true";
  os << ")";
}

// ---- Pooling / Flatten ----
MaxPool2dImpl::MaxPool2dImpl(IntList k, IntList s, IntList p, IntList d, bool c)
    : Module("MaxPool2d"),
      kernel_size(std::move(k)),
      stride(s.empty() ? kernel_size : std::move(s)),
      padding(std::move(p)),
      dilation(std::move(d)),
      ceil_mode(c) {}
Tensor MaxPool2dImpl::forward(const Tensor& x) {
  return functional::max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& x) {
  return functional::max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode);
}
void MaxPool2dImpl::pretty_print(std::ostream& os) const {
  os << "MaxPool2d(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding) << ", dilation=" << list_str(dilation)
     << ", ceil_mode=" << (ceil_mode ? "true" : "false") << ")";
}

AvgPool2dImpl::AvgPool2dImpl(IntList k, IntList s, IntList p, bool c, bool cip,
                             std::optional<int64_t> div)
    : Module("AvgPool2d"),
      kernel_size(std::move(k)),
      stride(s.empty() ? kernel_size : std::move(s)),
      padding(std::move(p)),
      ceil_mode(c),
      count_include_pad(cip),
      divisor_override(div) {
  TC_CHECK(!div || *div != 0, "AvgPool2d: divisor_override must be non-zero");
}
Tensor AvgPool2dImpl::forward(const Tensor& x) {
  return functional::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                divisor_override);
}
void AvgPool2dImpl::pretty_print(std::ostream& os) const {
  os << "AvgPool2d(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding) << ")";
}

AdaptiveAvgPool2dImpl::AdaptiveAvgPool2dImpl(IntList o)
    : Module("AdaptiveAvgPool2d"), output_size(std::move(o)) {
  if (output_size.size() == 1) output_size.push_back(output_size[0]);
}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& x) {
  return functional::adaptive_avg_pool2d(x, output_size);
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& os) const {
  os << "AdaptiveAvgPool2d(output_size=" << list_str(output_size) << ")";
}

FlattenImpl::FlattenImpl(int64_t s, int64_t e) : Module("Flatten"), start_dim(s), end_dim(e) {}
Tensor FlattenImpl::forward(const Tensor& x) { return flatten(x, start_dim, end_dim); }
void FlattenImpl::pretty_print(std::ostream& os) const {
  os << "Flatten(start_dim=" << start_dim << ", end_dim=" << end_dim << ")";
}

// ---- Activations ----
Tensor ReLUImpl::forward(const Tensor& x) { return tc::relu(x); }
GELUImpl::GELUImpl(std::string a) : Module("GELU"), approximate(std::move(a)) {
  TC_CHECK(approximate == "none" || approximate == "tanh",
           "GELU: approximate must be 'none' or 'tanh', got '", approximate, "'");
}
Tensor GELUImpl::forward(const Tensor& x) { return functional::gelu(x, approximate); }
Tensor SiLUImpl::forward(const Tensor& x) { return functional::silu(x); }
Tensor TanhImpl::forward(const Tensor& x) { return tc::tanh(x); }
Tensor SigmoidImpl::forward(const Tensor& x) { return tc::sigmoid(x); }
Tensor SoftmaxImpl::forward(const Tensor& x) { return functional::softmax(x, dim); }
void SoftmaxImpl::pretty_print(std::ostream& os) const { os << "Softmax(dim=" << dim << ")"; }
Tensor LogSoftmaxImpl::forward(const Tensor& x) { return functional::log_softmax(x, dim); }
void LogSoftmaxImpl::pretty_print(std::ostream& os) const { os << "LogSoftmax(dim=" << dim << ")"; }

}  // namespace tc::nn
