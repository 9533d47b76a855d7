#include "tensorcore/nn/modules/padding.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/modules/linear.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace {

template <typename M>
ModulePtr finish(std::shared_ptr<M> c, const Module& src) {
  c->copy_state_from(src);
  return c;
}

int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  TC_CHECK_INDEX(dim >= -n && dim < n, op, ": dim ", dim, " is out of range for a ", ndim,
                 "-d input");
  return dim < 0 ? dim + n : dim;
}

// torch's broadcasting of two shapes.
Shape broadcast_shape(const char* op, const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i + a.size() >= n ? a[i + a.size() - n] : 1;
    const int64_t y = i + b.size() >= n ? b[i + b.size() - n] : 1;
    TC_CHECK(x == y || x == 1 || y == 1, op, ": shapes ", shape_str(a), " and ", shape_str(b),
             " are not broadcastable");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

}  // namespace

namespace functional {

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  TC_CHECK(x1.dim() >= 1 && x2.dim() == x1.dim() &&
               Shape(x1.sizes().begin(), x1.sizes().end() - 1) ==
                   Shape(x2.sizes().begin(), x2.sizes().end() - 1),
           "bilinear: input1 and input2 must have the same leading dimensions, got ",
           shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  TC_CHECK(weight.dim() == 3 && weight.size(1) == x1.size(-1) && weight.size(2) == x2.size(-1),
           "bilinear: expected weight of shape [out, ", x1.size(-1), ", ", x2.size(-1),
           "], but got ", shape_str(weight.sizes()));
  const int64_t O = weight.size(0), I = weight.size(1), J = weight.size(2);
  TC_CHECK(!bias.defined() || bias.sizes() == Shape{O}, "bilinear: expected bias of shape [", O,
           "], but got ", shape_str(bias.sizes()));
  Shape lead(x1.sizes().begin(), x1.sizes().end() - 1);
  Tensor a = reshape(x1, {-1, I}), b = reshape(x2, {-1, J});
  // (B, I) @ (I, O*J) -> (B, O, J), then contract J with x2 as one batched matrix-vector product.
  Tensor tmp = reshape(matmul(a, reshape(permute(weight, {1, 0, 2}), {I, O * J})), {-1, O, J});
  Tensor out = squeeze(bmm(tmp, unsqueeze(b, 2)), 2);
  if (bias.defined()) out = add(out, bias);
  lead.push_back(O);
  return reshape(out, lead);
}

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

Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  const int64_t d = wrap_dim("normalize", dim, x.dim());
  return div(x, expand_as(clamp(norm(x, p, {d}, true), Scalar(eps), std::nullopt), x));
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  Shape shape = broadcast_shape("cosine_similarity", x1.sizes(), x2.sizes());
  Tensor a = expand(x1, shape), b = expand(x2, shape);
  const int64_t d = wrap_dim("cosine_similarity", dim, int64_t(shape.size()));
  Tensor na = clamp(norm(a, 2.0, {d}, true), Scalar(eps), std::nullopt);
  Tensor nb = clamp(norm(b, 2.0, {d}, true), Scalar(eps), std::nullopt);
  return sum(mul(div(a, na), div(b, nb)), {d});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  broadcast_shape("pairwise_distance", x1.sizes(), x2.sizes());
  const int64_t nd = std::max(x1.dim(), x2.dim());
  return norm(add(sub(x1, x2), eps), p, {nd > 0 ? -1 : 0}, keepdim);
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  TC_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2 && q.size(-1) == k.size(-1) &&
               k.size(-2) == v.size(-2),
           "scaled_dot_product_attention: expected query [*, L, E], key [*, S, E] and value [*, S, "
           "Ev], but got ",
           shape_str(q.sizes()), ", ", shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  const int64_t L = q.size(-2), S = k.size(-2);
  const double s = scale ? *scale : 1.0 / std::sqrt(double(q.size(-1)));
  Tensor scores = mul(matmul(q, transpose(k, -2, -1)), s);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (is_causal)
    scores = masked_fill(scores, logical_not(tril(ones({L, S}, DType::Bool))), neg_inf);
  if (attn_mask.defined())
    scores = attn_mask.dtype() == DType::Bool ? masked_fill(scores, logical_not(attn_mask), neg_inf)
                                              : add(scores, attn_mask);
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = dropout(weights, dropout_p, true);
  return matmul(weights, v);
}

Tensor softmin(const Tensor& x, int64_t dim) { return softmax(neg(x), dim); }

Tensor glu(const Tensor& x, int64_t dim) {
  TC_CHECK(x.dim() > 0, "glu: expected an input with at least 1 dim");
  const int64_t d = wrap_dim("glu", dim, x.dim());
  TC_CHECK(x.size(d) % 2 == 0, "glu: halving dimension ", dim, " of input of size ",
           shape_str(x.sizes()), " must be even");
  const int64_t h = x.size(d) / 2;
  return mul(narrow(x, d, 0, h), sigmoid(narrow(x, d, h, h)));
}

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

Tensor interpolate(const Tensor& x, const IntList& size, const std::vector<double>& scale_factor,
                   const std::string& mode, std::optional<bool> align_corners,
                   bool recompute_scale_factor, bool antialias) {
  const bool linear =
      mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  TC_CHECK(linear || mode == "nearest" || mode == "nearest-exact" || mode == "area",
           "interpolate: unknown mode '", mode, "'");
  TC_CHECK(linear || !align_corners,
           "interpolate: align_corners can only be set with the interpolating modes: "
           "linear | bilinear | bicubic | trilinear");
  const int64_t dim = x.dim() - 2;
  TC_CHECK(dim >= 1 && dim <= 3,
           "interpolate: expected a 3-d, 4-d or 5-d input, got input of size ",
           shape_str(x.sizes()));
  TC_CHECK(size.empty() != scale_factor.empty(),
           "interpolate: exactly one of size and scale_factor must be given");
  TC_CHECK(!recompute_scale_factor || size.empty(),
           "interpolate: recompute_scale_factor is not meaningful with an explicit size");
  IntList out = size;
  std::vector<double> scales;
  if (!size.empty()) {
    if (out.size() == 1) out.assign(size_t(dim), size[0]);
    TC_CHECK(int64_t(out.size()) == dim, "interpolate: expected 1 or ", dim,
             " output sizes for input of size ", shape_str(x.sizes()), ", got ", size.size());
  } else {
    scales =
        scale_factor.size() == 1 ? std::vector<double>(size_t(dim), scale_factor[0]) : scale_factor;
    TC_CHECK(int64_t(scales.size()) == dim, "interpolate: expected 1 or ", dim,
             " scale factors for input of size ", shape_str(x.sizes()), ", got ",
             scale_factor.size());
    for (int64_t i = 0; i < dim; ++i)
      out.push_back(int64_t(std::floor(double(x.size(2 + i)) * scales[size_t(i)])));
    if (recompute_scale_factor || mode == "area") scales.clear();
  }
  TC_CHECK(!antialias || ((mode == "bilinear" || mode == "bicubic") && x.dim() == 4),
           "interpolate: anti-alias is only supported for bilinear and bicubic modes on 4-d input");
  if (mode == "area") {
    if (dim == 1) return adaptive_avg_pool1d(x, out);
    if (dim == 2) return adaptive_avg_pool2d(x, out);
    return adaptive_avg_pool3d(x, out);
  }
  return interpolate_to_size(x, out, mode, align_corners.value_or(false), scales, antialias);
}

}  // namespace functional

// ---- Bilinear ----
BilinearImpl::BilinearImpl(int64_t in1, int64_t in2, int64_t out, bool has_bias)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  TC_CHECK(in1 > 0 && in2 > 0 && out > 0,
           "Bilinear: in1_features, in2_features and out_features must be positive, "
           "got ",
           in1, ", ", in2, ", ", out);
  weight = register_parameter("weight", empty({out, in1, in2}));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}
void BilinearImpl::reset_parameters() {
  const double bound = 1.0 / std::sqrt(double(in1_features));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}
Tensor BilinearImpl::forward(const Tensor& x1, const Tensor& x2) {
  TC_CHECK(x1.dim() >= 1 && x1.size(-1) == in1_features && x2.dim() == x1.dim() &&
               x2.size(-1) == in2_features &&
               Shape(x1.sizes().begin(), x1.sizes().end() - 1) ==
                   Shape(x2.sizes().begin(), x2.sizes().end() - 1),
           "Bilinear: expected inputs [*, ", in1_features, "] and [*, ", in2_features,
           "] with the same leading dims, but got ", shape_str(x1.sizes()), " and ",
           shape_str(x2.sizes()));
  return functional::bilinear(x1, x2, weight, bias);
}
void BilinearImpl::pretty_print(std::ostream& os) const {
  os << "Bilinear(in1_features=" << in1_features << ", in2_features=" << in2_features
     << ", out_features=" << out_features << ", bias=" << (bias.defined() ? "true" : "false")
     << ")";
}
ModulePtr BilinearImpl::clone() const {
  return finish(
      std::make_shared<BilinearImpl>(in1_features, in2_features, out_features, bias.defined()),
      *this);
}

// ---- EmbeddingBag ----
EmbeddingBagImpl::EmbeddingBagImpl(int64_t n, int64_t d, EmbeddingBagOptions o)
    : Module("EmbeddingBag"), num_embeddings(n), embedding_dim(d), options(std::move(o)) {
  TC_CHECK(n > 0 && d > 0, "EmbeddingBag: num_embeddings and embedding_dim must be positive, got ",
           n, " and ", d);
  TC_CHECK(options.mode == "sum" || options.mode == "mean" || options.mode == "max",
           "EmbeddingBag: mode must be 'sum', 'mean' or 'max', got '", options.mode, "'");
  if (options.padding_idx) {
    const int64_t p = *options.padding_idx;
    TC_CHECK(p >= -n && p < n, "EmbeddingBag: padding_idx must be within num_embeddings (", n,
             "), got ", p);
    if (p < 0) options.padding_idx = p + n;
  }
  weight = register_parameter("weight", empty({n, d}));
  init::normal_(weight);
  if (options.padding_idx) {
    autograd::NoGradGuard g;
    Tensor row = select(weight, 0, *options.padding_idx);
    zero_(row);
  }
}
Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& psw) {
  TC_CHECK_TYPE(input.dtype() == DType::Int64 || input.dtype() == DType::Int32,
                "EmbeddingBag: expected integer indices (int64 or int32), got ",
                dtype_name(input.dtype()));
  TC_CHECK(input.dim() == 2 ? !offsets.defined()
                            : (input.dim() == 1 && offsets.defined() && offsets.dim() == 1),
           "EmbeddingBag: expected a 2-d input [B, L] without offsets or a 1-d input with 1-d "
           "offsets, but got input ",
           "of size ", shape_str(input.sizes()), " and ",
           offsets.defined() ? "offsets of size " + shape_str(offsets.sizes())
                             : std::string("no offsets"));
  TC_CHECK(!psw.defined() || psw.sizes() == input.sizes(),
           "EmbeddingBag: expected per_sample_weights of the input's ", "size ",
           shape_str(input.sizes()), ", but got ",
           psw.defined() ? shape_str(psw.sizes()) : std::string());
  TC_CHECK(!psw.defined() || options.mode == "sum",
           "EmbeddingBag: per_sample_weights are only supported with mode "
           "'sum', got mode '",
           options.mode, "'");
  return std::get<0>(functional::embedding_bag(
      input, weight, offsets, options.max_norm, options.norm_type, options.scale_grad_by_freq,
      options.mode, psw, options.include_last_offset, options.padding_idx));
}
void EmbeddingBagImpl::pretty_print(std::ostream& os) const {
  os << "EmbeddingBag(" << num_embeddings << ", " << embedding_dim << ", mode=" << options.mode;
  if (options.padding_idx) os << ", padding_idx=" << *options.padding_idx;
  os << ")";
}
ModulePtr EmbeddingBagImpl::clone() const {
  return finish(std::make_shared<EmbeddingBagImpl>(num_embeddings, embedding_dim, options), *this);
}

// ---- Padding ----
PadNdImpl::PadNdImpl(std::string type, int n, IntList p, std::string m, double v)
    : Module(std::move(type)), spatial(n), padding(std::move(p)), mode(std::move(m)), value(v) {
  if (padding.size() == 1) padding = IntList(size_t(2 * n), padding[0]);
  TC_CHECK(int(padding.size()) == 2 * n, name(), ": padding must be one value or ", 2 * n,
           " values (left, right, ...), got ", padding.size(), " values");
}
Tensor PadNdImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, name(), ": expected a ", spatial + 1,
           "-d or ", spatial + 2, "-d input, but got input of size ", shape_str(x.sizes()));
  return functional::pad(x, padding, mode, value);
}
void PadNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << shape_str(padding);
  if (mode == "constant") os << ", value=" << value;
  os << ")";
}
ModulePtr PadNdImpl::clone() const {
  // The concrete type, so a typed holder's clone() casts back.
  const std::string& n = name();
  if (n == "ReflectionPad1d") return finish(std::make_shared<ReflectionPad1dImpl>(padding), *this);
  if (n == "ReflectionPad3d") return finish(std::make_shared<ReflectionPad3dImpl>(padding), *this);
  if (n == "ReplicationPad1d")
    return finish(std::make_shared<ReplicationPad1dImpl>(padding), *this);
  if (n == "ReplicationPad3d")
    return finish(std::make_shared<ReplicationPad3dImpl>(padding), *this);
  if (n == "ConstantPad1d")
    return finish(std::make_shared<ConstantPad1dImpl>(padding, value), *this);
  if (n == "ConstantPad3d")
    return finish(std::make_shared<ConstantPad3dImpl>(padding, value), *this);
  return finish(std::make_shared<PadNdImpl>(n, spatial, padding, mode, value), *this);
}

// ---- Dropout variants ----
DropoutVariantImpl::DropoutVariantImpl(std::string type, double p) : Module(std::move(type)), p(p) {
  TC_CHECK(p >= 0 && p <= 1, name(), ": p must be in [0, 1], got ", p);
}
Tensor DropoutVariantImpl::forward(const Tensor& x) {
  const std::string& n = name();
  if (n == "AlphaDropout") return functional::alpha_dropout(x, p, training_);
  if (n == "FeatureAlphaDropout") return functional::feature_alpha_dropout(x, p, training_);
  // Channel dropout: [N, C, *spatial] or unbatched [C, *spatial] (masks per (N, C) map).
  const int64_t spatial = n == "Dropout1d" ? 1 : 3;
  TC_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, n, ": expected a ", spatial + 1,
           "-d or ", spatial + 2, "-d input, but got input of size ", shape_str(x.sizes()));
  if (x.dim() == spatial + 2) return functional::feature_dropout(x, p, training_);
  return squeeze(functional::feature_dropout(unsqueeze(x, 0), p, training_), 0);
}
void DropoutVariantImpl::pretty_print(std::ostream& os) const { os << name() << "(p=" << p << ")"; }
ModulePtr DropoutVariantImpl::clone() const {
  const std::string& n = name();
  if (n == "Dropout1d") return finish(std::make_shared<Dropout1dImpl>(p), *this);
  if (n == "Dropout3d") return finish(std::make_shared<Dropout3dImpl>(p), *this);
  if (n == "AlphaDropout") return finish(std::make_shared<AlphaDropoutImpl>(p), *this);
  return finish(std::make_shared<FeatureAlphaDropoutImpl>(p), *this);
}

// ---- Distances ----
CosineSimilarityImpl::CosineSimilarityImpl(int64_t d, double e)
    : Module("CosineSimilarity"), dim(d), eps(e) {}
Tensor CosineSimilarityImpl::forward(const Tensor& a, const Tensor& b) {
  return functional::cosine_similarity(a, b, dim, eps);
}
ModulePtr CosineSimilarityImpl::clone() const {
  return finish(std::make_shared<CosineSimilarityImpl>(dim, eps), *this);
}

PairwiseDistanceImpl::PairwiseDistanceImpl(double pp, double e, bool k)
    : Module("PairwiseDistance"), p(pp), eps(e), keepdim(k) {}
Tensor PairwiseDistanceImpl::forward(const Tensor& a, const Tensor& b) {
  return functional::pairwise_distance(a, b, p, eps, keepdim);
}
ModulePtr PairwiseDistanceImpl::clone() const {
  return finish(std::make_shared<PairwiseDistanceImpl>(p, eps, keepdim), *this);
}

// ---- Softmax2d / ChannelShuffle ----
Tensor Softmax2dImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4,
           "Softmax2d: expected a 3-d or 4-d input, but got input of size ", shape_str(x.sizes()));
  return functional::softmax(x, -3);
}
ModulePtr Softmax2dImpl::clone() const { return finish(std::make_shared<Softmax2dImpl>(), *this); }

ChannelShuffleImpl::ChannelShuffleImpl(int64_t g) : Module("ChannelShuffle"), groups(g) {
  TC_CHECK(g > 0, "ChannelShuffle: groups must be positive, got ", g);
}
ModulePtr ChannelShuffleImpl::clone() const {
  return finish(std::make_shared<ChannelShuffleImpl>(groups), *this);
}

// ---- Fold / Unfold ----
UnfoldImpl::UnfoldImpl(IntList k, IntList d, IntList p, IntList s)
    : Module("Unfold"),
      kernel_size(std::move(k)),
      dilation(std::move(d)),
      padding(std::move(p)),
      stride(std::move(s)) {}
Tensor UnfoldImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4,
           "Unfold: expected a 3-d or 4-d input [N, C, H, W], but got input of size ",
           shape_str(x.sizes()));
  return functional::unfold(x, kernel_size, dilation, padding, stride);
}
ModulePtr UnfoldImpl::clone() const {
  return finish(std::make_shared<UnfoldImpl>(kernel_size, dilation, padding, stride), *this);
}

FoldImpl::FoldImpl(IntList o, IntList k, IntList d, IntList p, IntList s)
    : Module("Fold"),
      output_size(std::move(o)),
      kernel_size(std::move(k)),
      dilation(std::move(d)),
      padding(std::move(p)),
      stride(std::move(s)) {}
Tensor FoldImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 2 || x.dim() == 3,
           "Fold: expected a 2-d or 3-d input [N, C * prod(kernel_size), L], but got ",
           "input of size ", shape_str(x.sizes()));
  return functional::fold(x, output_size, kernel_size, dilation, padding, stride);
}
ModulePtr FoldImpl::clone() const {
  return finish(std::make_shared<FoldImpl>(output_size, kernel_size, dilation, padding, stride),
                *this);
}

}  // namespace tc::nn
