// C++ replay of RandomRotation, RandomAffine, RandomPerspective, GaussianBlur, RandomErasing and
// the RandomApply / RandomChoice / RandomOrder containers (Python: _geometric_transforms.py,
// _color_transforms.py, transforms.py). Draws follow Python's order and amount exactly, and the
// images go through the same kernels (warp matrices from geometry.cpp, kernels::warp,
// kernels::gaussian_blur, kernels::erase) that the Python transforms call.
#include "vision/transforms/no_fp_contract.h"

#include <cmath>
#include <functional>
#include <set>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/shape.h"
#include "vision/transforms/geometry.h"
#include "vision/transforms/pipeline_internal.h"

namespace tc::vision::transforms {

namespace {

std::pair<double, double> range2(const json::Value& v, const std::string& what) {
  auto r = numbers(v, what);
  TC_CHECK(r.size() == 2, "Pipeline: ", what, " needs [min, max], got ", r.size(), " values");
  return {r[0], r[1]};
}

std::optional<std::array<double, 2>> optional_pair(const json::Value& params, const char* key,
                                                   const std::string& where) {
  const json::Value* v = params.find(key);
  if (is_null(v)) return std::nullopt;
  auto [a, b] = range2(*v, where + "." + key);
  return std::array<double, 2>{a, b};
}

void parse_warp_common(Step& s, const json::Value& params, Interpolation fallback) {
  s.interpolation = interp(params, fallback);
  TC_CHECK(s.interpolation != Interpolation::Bicubic, "Pipeline: ", s.name,
           " interpolation must be nearest or bilinear for tensors, got bicubic");
  const json::Value* fill = params.find("fill");
  if (!is_null(fill)) s.warp_fill = numbers(*fill, s.name + ".fill");
}

void parse_children(Step& s, const json::Value& params) {
  const json::Value& list = need(params, "transforms", s.name);
  TC_CHECK(list.kind == json::Value::Kind::kArray, "Pipeline: ", s.name,
           ".transforms should be an array");
  for (const auto& e : list.array) s.children.push_back(std::make_shared<Step>(parse_step(e)));
}

std::vector<double> uniform(const GeneratorPtr& gen, int64_t n, double lo, double hi) {
  auto u = draw(gen, n);
  for (double& v : u) v = lo + (hi - lo) * v;
  return u;
}

// _Warp._fill_for: none, or one value per channel (a single value serves all channels).
std::optional<std::vector<double>> fill_for(const Step& s) { return s.warp_fill; }

// _geometry._warp: uint8/float32/float64 natively, other dtypes through float32.
Tensor warp_image(const Tensor& x, const std::vector<double>& mats, int64_t oh, int64_t ow,
                  const Step& s) {
  auto fill = fill_for(s);
  TC_CHECK(!fill || fill->size() == 1 || int64_t(fill->size()) == x.size(1), s.name, ": fill has ",
           fill ? fill->size() : 0, " values but the image has ", x.size(1), " channels");
  if (x.dtype() == DType::UInt8 || x.dtype() == DType::Float32 || x.dtype() == DType::Float64)
    return kernels::warp(x, mats, oh, ow, s.interpolation, fill);
  Tensor out = kernels::warp(to_dtype(x, DType::Float32), mats, oh, ow, s.interpolation, fill);
  if (s.interpolation != Interpolation::Nearest) out = round(out);
  return to_dtype(out, x.dtype());
}

// apply_where in Python: fn on the flagged samples, the others unchanged.
Tensor apply_where(const Tensor& x, std::vector<uint8_t> flags,
                   const std::function<Tensor(const Tensor&)>& fn) {
  const int64_t n = x.size(0);
  if (flags.size() == 1 && n != 1) flags.assign(size_t(n), flags[0]);
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < n; ++i)
    if (flags[size_t(i)]) idx.push_back(i);
  if (idx.empty()) return x;
  if (int64_t(idx.size()) == n) return fn(x);
  Tensor index = from_vector<int64_t>(idx, {int64_t(idx.size())});
  Tensor done = fn(index_select(x, 0, index));
  Shape a(done.sizes().begin() + 1, done.sizes().end()), b(x.sizes().begin() + 1, x.sizes().end());
  TC_CHECK(done.dtype() == x.dtype() && a == b,
           "a randomly applied transform must keep the image shape and dtype when applied per "
           "sample; use same_on_batch=True");
  return index_copy(x, 0, index, done);
}

Tensor run_children(const std::vector<std::shared_ptr<const Step>>& seq, const Tensor& x,
                    const GeneratorPtr& gen) {
  Tensor out = x;
  for (const auto& c : seq) out = apply_step(*c, out, gen);
  return out;
}

Tensor rotation(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t n = x.size(0), h = x.size(2), w = x.size(3);
  auto angles = uniform(gen, draw_count(s, n), s.degrees[0], s.degrees[1]);
  int64_t oh = h, ow = w;
  if (s.expand) {
    // Per-sample expanded sizes differ: render all into the largest (see RandomRotation).
    oh = ow = 0;
    for (double a : angles) {
      auto [eh, ew] = kernels::expanded_size(
          kernels::affine_for_image(h, w, -a, 0, 0, 1, 0, 0, s.center), h, w);
      oh = std::max(oh, eh), ow = std::max(ow, ew);
    }
  }
  std::vector<double> mats;
  for (double a : angles) {
    auto m = kernels::affine_pixel_matrix(
        kernels::affine_for_image(h, w, -a, 0, 0, 1, 0, 0, s.center), h, w, oh, ow);
    mats.insert(mats.end(), m.begin(), m.end());
  }
  return warp_image(x, mats, oh, ow, s);
}

Tensor affine(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t n = x.size(0), h = x.size(2), w = x.size(3), cnt = draw_count(s, n);
  const int64_t per =
      1 + (s.translate ? 2 : 0) + (s.affine_scale ? 1 : 0) + int64_t(s.shear.size() / 2);
  auto u = draw(gen, cnt * per);
  std::vector<double> mats;
  for (int64_t q = 0; q < cnt; ++q) {
    const double* us = u.data() + q * per;
    double angle = s.degrees[0] + (s.degrees[1] - s.degrees[0]) * *us++;
    double tx = 0, ty = 0;
    if (s.translate) {
      const double mdx = (*s.translate)[0] * double(w), mdy = (*s.translate)[1] * double(h);
      tx = double(int64_t(std::nearbyint(-mdx + 2 * mdx * *us++)));
      ty = double(int64_t(std::nearbyint(-mdy + 2 * mdy * *us++)));
    }
    double sc = 1.0;
    if (s.affine_scale)
      sc = (*s.affine_scale)[0] + ((*s.affine_scale)[1] - (*s.affine_scale)[0]) * *us++;
    double shx = 0, shy = 0;
    if (!s.shear.empty()) {
      shx = s.shear[0] + (s.shear[1] - s.shear[0]) * *us++;
      if (s.shear.size() == 4) shy = s.shear[2] + (s.shear[3] - s.shear[2]) * *us++;
    }
    auto m = kernels::affine_pixel_matrix(
        kernels::affine_for_image(h, w, angle, tx, ty, sc, shx, shy, s.center), h, w, h, w);
    mats.insert(mats.end(), m.begin(), m.end());
  }
  return warp_image(x, mats, h, w, s);
}

Tensor perspective(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t n = x.size(0), h = x.size(2), w = x.size(3), cnt = draw_count(s, n);
  auto u = draw(gen, cnt * 9);
  const int64_t dw = int64_t(s.distortion_scale * double(w / 2));
  const int64_t dh = int64_t(s.distortion_scale * double(h / 2));
  auto rint = [](double v, int64_t lo, int64_t hi) {
    return double(lo + std::min(int64_t(v * double(hi - lo)), hi - lo - 1));
  };
  std::vector<uint8_t> flags;
  std::vector<double> mats;
  const std::array<double, 8> start{
      0, 0, double(w - 1), 0, double(w - 1), double(h - 1), 0, double(h - 1)};
  for (int64_t q = 0; q < cnt; ++q) {
    const double* us = u.data() + q * 9;
    flags.push_back(us[0] < s.p ? 1 : 0);
    if (!flags.back()) continue;
    const std::array<double, 8> end{rint(us[1], 0, dw + 1),     rint(us[2], 0, dh + 1),
                                    rint(us[3], w - dw - 1, w), rint(us[4], 0, dh + 1),
                                    rint(us[5], w - dw - 1, w), rint(us[6], h - dh - 1, h),
                                    rint(us[7], 0, dw + 1),     rint(us[8], h - dh - 1, h)};
    auto m = kernels::perspective_matrix(start, end);
    mats.insert(mats.end(), m.begin(), m.end());
  }
  return apply_where(x, flags, [&](const Tensor& b) {
    std::vector<double> all = mats;
    // One shared draw applies to every sample.
    if (all.size() == 9 && b.size(0) != 1) {
      all.clear();
      for (int64_t q = 0; q < b.size(0); ++q) all.insert(all.end(), mats.begin(), mats.end());
    }
    return warp_image(b, all, b.size(2), b.size(3), s);
  });
}

// _common.max_value for integer dtypes.
int64_t integer_max(DType d) {
  switch (d) {
    case DType::UInt8:
      return 255;
    case DType::Int8:
      return 127;
    case DType::Int16:
      return 32767;
    case DType::UInt16:
      return 65535;
    case DType::Int32:
      return 2147483647;
    default:
      return INT64_MAX;
  }
}

Tensor blur(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  auto sigmas = uniform(gen, draw_count(s, x.size(0)), s.sigma[0], s.sigma[1]);
  // _color.blur_batch: uint8/float32/float64 natively, other dtypes through float32.
  if (x.dtype() == DType::UInt8 || x.dtype() == DType::Float32 || x.dtype() == DType::Float64)
    return kernels::gaussian_blur(x, s.kernel_size[0], s.kernel_size[1], sigmas, sigmas);
  TC_CHECK_TYPE(is_floating(x.dtype()) || is_integral(x.dtype()),
                "GaussianBlur: expected an integer or float image, got ", dtype_name(x.dtype()));
  Tensor out = kernels::gaussian_blur(to_dtype(x, DType::Float32), s.kernel_size[0],
                                      s.kernel_size[1], sigmas, sigmas);
  if (is_floating(x.dtype())) return to_dtype(out, x.dtype());
  return to_dtype(clamp(round(out), Scalar(int64_t(0)), Scalar(integer_max(x.dtype()))), x.dtype());
}

Tensor erasing(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t cnt = draw_count(s, n);
  auto u = draw(gen, cnt * 41);
  const double area = double(h * w), lr0 = std::log(s.ratio[0]), lr1 = std::log(s.ratio[1]);
  std::vector<std::optional<std::array<int64_t, 4>>> params;
  for (int64_t q = 0; q < cnt; ++q) {
    const double* us = u.data() + q * 41;
    if (us[0] >= s.p) {
      params.emplace_back();
      continue;
    }
    std::optional<std::array<int64_t, 4>> found;
    for (int a = 0; a < 10 && !found; ++a) {
      const double* ua = us + 1 + 4 * a;
      double erase_area = area * (s.scale[0] + (s.scale[1] - s.scale[0]) * ua[0]);
      double aspect = std::exp(lr0 + (lr1 - lr0) * ua[1]);
      int64_t eh = int64_t(std::nearbyint(std::sqrt(erase_area * aspect)));
      int64_t ew = int64_t(std::nearbyint(std::sqrt(erase_area / aspect)));
      if (!(eh < h && ew < w)) continue;
      int64_t i = std::min(int64_t(ua[2] * double(h - eh + 1)), h - eh);
      int64_t j = std::min(int64_t(ua[3] * double(w - ew + 1)), w - ew);
      found = std::array<int64_t, 4>{i, j, eh, ew};
    }
    params.push_back(found);
  }
  bool any = false;
  for (const auto& p : params) any = any || p.has_value();
  if (!any) return x;
  TC_CHECK(s.erase_kind != EraseValue::PerChannel || s.erase_values.size() == 1 ||
               int64_t(s.erase_values.size()) == c,
           "RandomErasing: value needs 1 or ", c, " entries, got ", s.erase_values.size());
  Tensor out = clone(x);
  for (int64_t q = 0; q < n; ++q) {
    const auto& p = params[size_t(cnt == 1 ? 0 : q)];
    if (!p) continue;
    auto [i, j, eh, ew] = *p;
    Tensor v;
    if (s.erase_kind == EraseValue::Random)
      v = to_dtype(randn({c, eh, ew}, gen, TensorOptions(DType::Float32)), x.dtype());
    else if (s.erase_kind == EraseValue::PerChannel)
      v = from_vector<double>(s.erase_values, {int64_t(s.erase_values.size()), 1, 1});
    else
      v = from_vector<double>({s.erase_values[0]}, {});
    kernels::erase(select(out, 0, q), i, j, eh, ew, v, true);
  }
  return out;
}

// _RandomApplyOp: the op on each sample with probability p.
Tensor random_op(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  std::vector<uint8_t> flags;
  for (double u : draw(gen, draw_count(s, x.size(0)))) flags.push_back(u < s.p ? 1 : 0);
  return apply_where(x, flags, [&](const Tensor& b) {
    switch (s.kind) {
      case Kind::RandomGrayscale:
        return contiguous(grayscale_image(b, b.size(1)));
      case Kind::RandomInvert:
        return kernels::invert(b);
      case Kind::RandomPosterize:
        return kernels::posterize(b, s.bits);
      case Kind::RandomAutocontrast:
        return kernels::autocontrast(b);
      case Kind::RandomAdjustSharpness:
        return kernels::adjust_sharpness(b, s.sharpness_factor);
      case Kind::RandomEqualize:
        return kernels::equalize(b);
      default:
        return kernels::solarize(b, s.threshold);
    }
  });
}

Tensor random_apply(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  std::vector<uint8_t> flags;
  for (double u : draw(gen, draw_count(s, x.size(0)))) flags.push_back(u < s.p ? 1 : 0);
  return apply_where(x, flags, [&](const Tensor& b) { return run_children(s.children, b, gen); });
}

Tensor random_choice(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  std::vector<size_t> picks;
  for (double u : draw(gen, draw_count(s, x.size(0)))) {
    // RandomChoice._pick: the first cumulative probability above u.
    double acc = 0.0;
    size_t k = 0;
    for (; k < s.probs.size(); ++k) {
      acc += s.probs[k];
      if (u < acc) break;
    }
    picks.push_back(std::min(k, s.probs.size() - 1));
  }
  Tensor out = x;
  for (size_t k = 0; k < s.children.size(); ++k) {
    std::vector<uint8_t> flags;
    for (size_t p : picks) flags.push_back(p == k ? 1 : 0);
    out = apply_where(out, flags,
                      [&](const Tensor& b) { return apply_step(*s.children[k], b, gen); });
  }
  return out;
}

Tensor random_order(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t n = x.size(0), cnt = draw_count(s, n), m = int64_t(s.children.size());
  auto u = draw(gen, cnt * m);
  std::vector<std::vector<int64_t>> orders;
  for (int64_t q = 0; q < cnt; ++q) {
    std::vector<int64_t> order(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) order[size_t(k)] = k;
    const double* us = u.data() + q * m;
    std::stable_sort(order.begin(), order.end(),
                     [us](int64_t a, int64_t b) { return us[a] < us[b]; });
    orders.push_back(order);
  }
  // Python visits the distinct orders sorted lexicographically.
  std::set<std::vector<int64_t>> distinct(orders.begin(), orders.end());
  Tensor out = x;
  for (const auto& order : distinct) {
    std::vector<uint8_t> flags;
    for (const auto& o : orders) flags.push_back(o == order ? 1 : 0);
    out = apply_where(out, flags, [&](const Tensor& b) {
      Tensor y = b;
      for (int64_t k : order) y = apply_step(*s.children[size_t(k)], y, gen);
      return y;
    });
  }
  return out;
}

// The _RandomApplyOp transforms by name.
std::optional<Kind> random_op_kind(const std::string& name) {
  static const std::pair<const char*, Kind> table[] = {
      {"RandomGrayscale", Kind::RandomGrayscale},
      {"RandomInvert", Kind::RandomInvert},
      {"RandomPosterize", Kind::RandomPosterize},
      {"RandomSolarize", Kind::RandomSolarize},
      {"RandomAutocontrast", Kind::RandomAutocontrast},
      {"RandomAdjustSharpness", Kind::RandomAdjustSharpness},
      {"RandomEqualize", Kind::RandomEqualize}};
  for (const auto& [n, k] : table)
    if (name == n) return k;
  return std::nullopt;
}

}  // namespace

bool parse_random_step(Step& s, const json::Value& params) {
  if (s.name == "RandomRotation") {
    s.kind = Kind::RandomRotation;
    auto [lo, hi] = range2(need(params, "degrees", s.name), "RandomRotation.degrees");
    s.degrees = {lo, hi};
    s.expand = flag(params, "expand");
    parse_warp_common(s, params, Interpolation::Nearest);
  } else if (s.name == "RandomAffine") {
    s.kind = Kind::RandomAffine;
    auto [lo, hi] = range2(need(params, "degrees", s.name), "RandomAffine.degrees");
    s.degrees = {lo, hi};
    s.translate = optional_pair(params, "translate", s.name);
    s.affine_scale = optional_pair(params, "scale", s.name);
    const json::Value* shear = params.find("shear");
    if (!is_null(shear)) {
      s.shear = numbers(*shear, "RandomAffine.shear");
      TC_CHECK(s.shear.size() == 2 || s.shear.size() == 4,
               "Pipeline: RandomAffine.shear needs 2 or 4 values, got ", s.shear.size());
    }
    parse_warp_common(s, params, Interpolation::Nearest);
  } else if (s.name == "RandomPerspective") {
    s.kind = Kind::RandomPerspective;
    s.distortion_scale = number(need(params, "distortion_scale", s.name), "distortion_scale");
    s.p = number(need(params, "p", s.name), "p");
    parse_warp_common(s, params, Interpolation::Bilinear);
  } else if (s.name == "GaussianBlur") {
    s.kind = Kind::GaussianBlur;
    auto ks = numbers(need(params, "kernel_size", s.name), "GaussianBlur.kernel_size");
    TC_CHECK(ks.size() == 1 || ks.size() == 2,
             "Pipeline: GaussianBlur.kernel_size needs 1 or 2 values");
    s.kernel_size = {int64_t(ks[0]), int64_t(ks.back())};
    for (int64_t k : s.kernel_size)
      TC_CHECK(k > 0 && k % 2 == 1 && k <= 63,
               "Pipeline: GaussianBlur.kernel_size should be odd, positive and at most 63, got ",
               k);
    auto sg = numbers(need(params, "sigma", s.name), "GaussianBlur.sigma");
    TC_CHECK(sg.size() == 1 || sg.size() == 2, "Pipeline: GaussianBlur.sigma needs 1 or 2 values");
    s.sigma = {sg[0], sg.back()};
    TC_CHECK(s.sigma[0] > 0 && s.sigma[0] <= s.sigma[1],
             "Pipeline: GaussianBlur.sigma should be positive and of the form (min, max)");
  } else if (s.name == "RandomErasing") {
    s.kind = Kind::RandomErasing;
    s.p = number(need(params, "p", s.name), "p");
    auto [s0, s1] = range2(need(params, "scale", s.name), "RandomErasing.scale");
    auto [r0, r1] = range2(need(params, "ratio", s.name), "RandomErasing.ratio");
    s.scale[0] = s0, s.scale[1] = s1, s.ratio[0] = r0, s.ratio[1] = r1;
    const json::Value& v = need(params, "value", s.name);
    if (v.kind == json::Value::Kind::kString) {
      TC_CHECK(v.text == "random", "Pipeline: RandomErasing.value string should be 'random'");
      s.erase_kind = EraseValue::Random;
    } else if (v.kind == json::Value::Kind::kArray) {
      s.erase_kind = EraseValue::PerChannel;
      s.erase_values = numbers(v, "RandomErasing.value");
    } else {
      s.erase_values = {number(v, "RandomErasing.value")};
    }
  } else if (auto op = random_op_kind(s.name)) {
    s.kind = *op;
    s.p = number(need(params, "p", s.name), "p");
    if (s.kind == Kind::RandomPosterize) {
      s.bits = int64_t(number(need(params, "bits", s.name), "RandomPosterize.bits"));
      TC_CHECK(s.bits >= 0 && s.bits <= 8, "Pipeline: RandomPosterize.bits should be in [0, 8]");
    }
    if (s.kind == Kind::RandomSolarize)
      s.threshold = number(need(params, "threshold", s.name), "RandomSolarize.threshold");
    if (s.kind == Kind::RandomAdjustSharpness) {
      s.sharpness_factor = number(need(params, "sharpness_factor", s.name), "sharpness_factor");
      TC_CHECK(s.sharpness_factor >= 0,
               "Pipeline: RandomAdjustSharpness.sharpness_factor should be non-negative");
    }
  } else if (s.name == "RandomApply") {
    s.kind = Kind::RandomApply;
    s.p = number(need(params, "p", s.name), "p");
    parse_children(s, params);
  } else if (s.name == "RandomChoice") {
    s.kind = Kind::RandomChoice;
    parse_children(s, params);
    s.probs = numbers(need(params, "p", s.name), "RandomChoice.p");
    TC_CHECK(s.probs.size() == s.children.size() && !s.children.empty(),
             "Pipeline: RandomChoice needs one probability per transform");
  } else if (s.name == "RandomOrder") {
    s.kind = Kind::RandomOrder;
    parse_children(s, params);
  } else {
    return false;
  }
  if (s.kind == Kind::RandomRotation || s.kind == Kind::RandomAffine) {
    const json::Value* c = params.find("center");
    if (!is_null(c)) {
      auto cv = numbers(*c, s.name + ".center");
      TC_CHECK(cv.size() == 2, "Pipeline: ", s.name, ".center needs 2 values");
      s.center = std::pair<double, double>{cv[0], cv[1]};
    }
  }
  return true;
}

Tensor apply_random_step(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  switch (s.kind) {
    case Kind::RandomRotation:
      return rotation(s, x, gen);
    case Kind::RandomAffine:
      return affine(s, x, gen);
    case Kind::RandomPerspective:
      return perspective(s, x, gen);
    case Kind::GaussianBlur:
      return blur(s, x, gen);
    case Kind::RandomErasing:
      return erasing(s, x, gen);
    case Kind::RandomApply:
      return random_apply(s, x, gen);
    case Kind::RandomChoice:
      return random_choice(s, x, gen);
    case Kind::RandomOrder:
      return random_order(s, x, gen);
    case Kind::RandomGrayscale:
    case Kind::RandomInvert:
    case Kind::RandomPosterize:
    case Kind::RandomSolarize:
    case Kind::RandomAutocontrast:
    case Kind::RandomAdjustSharpness:
    case Kind::RandomEqualize:
      return random_op(s, x, gen);
    default:
      TC_CHECK(false, "Pipeline: step '", s.name, "' has no implementation");
  }
}

}  // namespace tc::vision::transforms
