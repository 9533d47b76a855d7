#include "tensorcore/nn/modules/pixelshuffle.h"

#include <cmath>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/linear.h"
#include "tensorcore/nn/modules/padding.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace {
template <typename M>
ModulePtr finish(std::shared_ptr<M> c, const Module& src) {
  c->copy_state_from(src);
  return c;
}
}  // namespace

PixelShuffleImpl::PixelShuffleImpl(int64_t r) : Module("PixelShuffle"), upscale_factor(r) {
  TC_CHECK(r > 0, "PixelShuffle: upscale_factor must be positive, got ", r);
}
Tensor PixelShuffleImpl::forward(const Tensor& x) {
  return functional::pixel_shuffle(x, upscale_factor);
}
ModulePtr PixelShuffleImpl::clone() const {
  return finish(std::make_shared<PixelShuffleImpl>(upscale_factor), *this);
}

PixelUnshuffleImpl::PixelUnshuffleImpl(int64_t r) : Module("PixelUnshuffle"), downscale_factor(r) {
  TC_CHECK(r > 0, "PixelUnshuffle: downscale_factor must be positive, got ", r);
}
Tensor PixelUnshuffleImpl::forward(const Tensor& x) {
  return functional::pixel_unshuffle(x, downscale_factor);
}
ModulePtr PixelUnshuffleImpl::clone() const {
  return finish(std::make_shared<PixelUnshuffleImpl>(downscale_factor), *this);
}

UnflattenImpl::UnflattenImpl(int64_t d, IntList s)
    : Module("Unflatten"), dim(d), sizes(std::move(s)) {
  TC_CHECK(!sizes.empty(), "Unflatten: sizes must not be empty");
}
Tensor UnflattenImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() > 0, "Unflatten: expected an input with at least 1 dim");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  TC_CHECK(d >= 0 && d < x.dim(), "Unflatten: dim ", dim, " is out of range for input of size ",
           shape_str(x.sizes()));
  int64_t prod = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1)
      infer = int64_t(i);
    else
      prod *= sizes[i];
  }
  TC_CHECK(infer >= 0 ? (prod > 0 && x.size(d) % prod == 0) : prod == x.size(d),
           "Unflatten: sizes ", shape_str(sizes), " do not multiply to dim ", d,
           " of input of size ", shape_str(x.sizes()));
  Shape out(x.sizes().begin(), x.sizes().begin() + d);
  for (int64_t s : sizes) out.push_back(s == -1 ? x.size(d) / prod : s);
  out.insert(out.end(), x.sizes().begin() + d + 1, x.sizes().end());
  return reshape(x, out);
}
ModulePtr UnflattenImpl::clone() const {
  return finish(std::make_shared<UnflattenImpl>(dim, sizes), *this);
}

Pad2dImpl::Pad2dImpl(std::string type, IntList p, std::string m, double v)
    : Module(std::move(type)), padding(std::move(p)), mode(std::move(m)), value(v) {
  if (padding.size() == 1) padding = IntList(4, padding[0]);
  TC_CHECK(padding.size() == 4, name(),
           ": padding must be one value or (left, right, top, bottom), got ", padding.size(),
           " values");
}
Tensor Pad2dImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4, name(), ": expected a 3-d or 4-d input, got ",
           shape_str(x.sizes()));
  return functional::pad(x, padding, mode, value);
}
ModulePtr Pad2dImpl::clone() const {
  // The concrete type, so a typed holder's clone() casts back.
  const std::string& n = name();
  if (n == "ZeroPad2d") return finish(std::make_shared<ZeroPad2dImpl>(padding), *this);
  if (n == "ReflectionPad2d") return finish(std::make_shared<ReflectionPad2dImpl>(padding), *this);
  if (n == "ReplicationPad2d")
    return finish(std::make_shared<ReplicationPad2dImpl>(padding), *this);
  if (n == "ConstantPad2d")
    return finish(std::make_shared<ConstantPad2dImpl>(padding, value), *this);
  return finish(std::make_shared<Pad2dImpl>(n, padding, mode, value), *this);
}

Dropout2dImpl::Dropout2dImpl(double p) : Module("Dropout2d"), p(p) {
  TC_CHECK(p >= 0 && p <= 1, "Dropout2d: p must be in [0, 1], got ", p);
}
Tensor Dropout2dImpl::forward(const Tensor& x) {
  return functional::feature_dropout(x, p, training_);
}
ModulePtr Dropout2dImpl::clone() const { return finish(std::make_shared<Dropout2dImpl>(p), *this); }

UpsampleImpl::UpsampleImpl(UpsampleOptions o) : Module("Upsample"), options(std::move(o)) {
  TC_CHECK(options.size.empty() != options.scale_factor.empty(),
           "Upsample: exactly one of size and scale_factor must be given");
}
Tensor UpsampleImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 3 && x.dim() <= 5, "Upsample: expected a 3-d, 4-d or 5-d input, got ",
           shape_str(x.sizes()));
  const bool linear = options.mode == "linear" || options.mode == "bilinear" ||
                      options.mode == "bicubic" || options.mode == "trilinear";
  // torch's Upsample passes align_corners=None to the nearest modes.
  return functional::interpolate(
      x, options.size, options.scale_factor, options.mode,
      linear ? std::optional<bool>(options.align_corners) : std::nullopt);
}
ModulePtr UpsampleImpl::clone() const {
  return finish(std::make_shared<UpsampleImpl>(options), *this);
}

AdaptiveMaxPool2dImpl::AdaptiveMaxPool2dImpl(IntList o)
    : Module("AdaptiveMaxPool2d"), output_size(std::move(o)) {}
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& x) { return forward_with_indices(x).first; }
std::pair<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& x) {
  return functional::adaptive_max_pool2d_with_indices(x, output_size);
}
ModulePtr AdaptiveMaxPool2dImpl::clone() const {
  return finish(std::make_shared<AdaptiveMaxPool2dImpl>(output_size), *this);
}

SoftminImpl::SoftminImpl(int64_t d) : Module("Softmin"), dim(d) {}
Tensor SoftminImpl::forward(const Tensor& x) { return functional::softmax(neg(x), dim); }
ModulePtr SoftminImpl::clone() const { return finish(std::make_shared<SoftminImpl>(dim), *this); }

GLUImpl::GLUImpl(int64_t d) : Module("GLU"), dim(d) {}
Tensor GLUImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() > 0, "GLU: expected an input with at least 1 dim");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  TC_CHECK(d >= 0 && d < x.dim() && x.size(d) % 2 == 0, "GLU: dim ", dim, " of input of size ",
           shape_str(x.sizes()), " must exist and have an even size");
  const int64_t h = x.size(d) / 2;
  return mul(narrow(x, d, 0, h), sigmoid(narrow(x, d, h, h)));
}
ModulePtr GLUImpl::clone() const { return finish(std::make_shared<GLUImpl>(dim), *this); }

}  // namespace tc::nn
