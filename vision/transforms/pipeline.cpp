// C++ replay of vision/transforms (Python). Every random draw goes through
// tc::rand(n, float64) on the pipeline's generator, exactly as Transform._rand does in Python;
// integer and rounding rules copy Python's (int() truncation, round() half to even).
#include "vision/transforms/no_fp_contract.h"

#include "vision/transforms/pipeline.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/serialize/json.h"
#include "tensorcore/serialize/text_file.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/pipeline_internal.h"

namespace tc::vision::transforms {

namespace {

// Python's _parse_padding: int, or 1, 2 or 4 values -> [left, top, right, bottom].
std::array<int64_t, 4> parse_padding(const json::Value* v) {
  if (is_null(v)) return {0, 0, 0, 0};
  auto d = numbers(*v, "padding");
  if (d.size() == 1) return {int64_t(d[0]), int64_t(d[0]), int64_t(d[0]), int64_t(d[0])};
  if (d.size() == 2) return {int64_t(d[0]), int64_t(d[1]), int64_t(d[0]), int64_t(d[1])};
  TC_CHECK(d.size() == 4, "Pipeline: padding should have 1, 2 or 4 values, got ", d.size());
  return {int64_t(d[0]), int64_t(d[1]), int64_t(d[2]), int64_t(d[3])};
}

void parse_pad_options(const json::Value& params, Step& s) {
  s.padding = parse_padding(params.find("padding"));
  const json::Value* fill = params.find("fill");
  if (!is_null(fill)) {
    auto f = numbers(*fill, "fill");
    TC_CHECK(f.size() == 1, "Pipeline: padding takes a single fill value for tensors");
    s.fill = f[0];
  }
  const json::Value* mode = params.find("padding_mode");
  if (!is_null(mode)) s.padding_mode = mode->text;
  TC_CHECK(s.padding_mode == "constant" || s.padding_mode == "edge" ||
               s.padding_mode == "reflect" || s.padding_mode == "symmetric",
           "Pipeline: unknown padding_mode '", s.padding_mode, "'");
}

}  // namespace

Step parse_step(const json::Value& entry) {
  Step s;
  s.name = need(entry, "name", "transform").text;
  const json::Value& params = need(entry, "params", s.name);
  s.same_on_batch = flag(params, "same_on_batch");
  if (s.name == "Resize") {
    s.kind = Kind::Resize;
    for (double x : numbers(need(params, "size", s.name), "Resize.size"))
      s.size.push_back(int64_t(x));
    TC_CHECK(s.size.size() == 1 || s.size.size() == 2, "Pipeline: Resize.size needs 1 or 2 values");
    if (!is_null(params.find("max_size")))
      s.max_size = int64_t(number(*params.find("max_size"), "max_size"));
    const json::Value* aa = params.find("antialias");
    if (!is_null(aa)) s.antialias = aa->boolean ? 1 : 0;
    s.interpolation = interp(params);
  } else if (s.name == "CenterCrop") {
    s.kind = Kind::CenterCrop;
    s.size = size_pair(need(params, "size", s.name), "CenterCrop.size");
  } else if (s.name == "RandomCrop") {
    s.kind = Kind::RandomCrop;
    s.size = size_pair(need(params, "size", s.name), "RandomCrop.size");
    parse_pad_options(params, s);
    s.pad_if_needed = flag(params, "pad_if_needed");
  } else if (s.name == "Pad") {
    s.kind = Kind::Pad;
    parse_pad_options(params, s);
  } else if (s.name == "RandomHorizontalFlip" || s.name == "RandomVerticalFlip") {
    s.kind = s.name == "RandomHorizontalFlip" ? Kind::HFlip : Kind::VFlip;
    s.p = number(need(params, "p", s.name), "p");
  } else if (s.name == "RandomResizedCrop") {
    s.kind = Kind::RandomResizedCrop;
    s.size = size_pair(need(params, "size", s.name), "RandomResizedCrop.size");
    auto sc = numbers(need(params, "scale", s.name), "scale");
    auto ra = numbers(need(params, "ratio", s.name), "ratio");
    TC_CHECK(sc.size() == 2 && ra.size() == 2,
             "Pipeline: RandomResizedCrop scale/ratio need 2 values");
    s.scale[0] = sc[0], s.scale[1] = sc[1], s.ratio[0] = ra[0], s.ratio[1] = ra[1];
    const json::Value* aa = params.find("antialias");
    if (!is_null(aa)) s.antialias = aa->boolean ? 1 : 0;
    s.interpolation = interp(params);
  } else if (s.name == "Grayscale") {
    s.kind = Kind::Grayscale;
    s.num_output_channels =
        int64_t(number(need(params, "num_output_channels", s.name), "channels"));
    TC_CHECK(s.num_output_channels == 1 || s.num_output_channels == 3,
             "Pipeline: Grayscale num_output_channels should be 1 or 3");
  } else if (s.name == "ColorJitter") {
    s.kind = Kind::ColorJitter;
    const char* names[4] = {"brightness", "contrast", "saturation", "hue"};
    for (int k = 0; k < 4; ++k) {
      const json::Value* v = params.find(names[k]);
      if (is_null(v)) continue;
      auto r = numbers(*v, names[k]);
      TC_CHECK(r.size() == 2, "Pipeline: ColorJitter ", names[k], " needs [min, max]");
      s.jitter_on[size_t(k)] = true;
      s.jitter[size_t(k)] = {r[0], r[1]};
    }
  } else if (s.name == "ConvertImageDtype") {
    s.kind = Kind::ConvertImageDtype;
    TC_CHECK(need(params, "dtype", s.name).text == "float32",
             "Pipeline: ConvertImageDtype supports float32 only in C++");
  } else if (s.name == "Normalize") {
    s.kind = Kind::Normalize;
    s.mean = numbers(need(params, "mean", s.name), "mean");
    s.std = numbers(need(params, "std", s.name), "std");
  } else {
    TC_CHECK(parse_random_step(s, params), "Pipeline: transform '", s.name,
             "' is not supported by the C++ pipeline");
  }
  return s;
}

namespace {

// RandomCrop._pads in Python: the padding applied before drawing the window.
std::array<int64_t, 4> crop_pads(const Step& s, int64_t h, int64_t w) {
  std::array<int64_t, 4> p = s.padding;
  int64_t h2 = h + p[1] + p[3], w2 = w + p[0] + p[2];
  if (s.pad_if_needed && w2 < s.size[1]) p[0] += s.size[1] - w2, p[2] += s.size[1] - w2;
  if (s.pad_if_needed && h2 < s.size[0]) p[1] += s.size[0] - h2, p[3] += s.size[0] - h2;
  return p;
}

// Source index for each output position along one axis (-1: fill), as Python's _pad_index.
std::vector<int64_t> pad_index(int64_t n, int64_t before, int64_t after, const std::string& mode) {
  std::vector<int64_t> idx;
  if (mode == "reflect")
    TC_CHECK(before < n && after < n, "pad: reflect padding (", before, ", ", after,
             ") must be smaller than the dimension size ", n);
  for (int64_t i = -before; i < n + after; ++i) {
    int64_t j = i;
    if (mode == "constant") {
      j = (i < 0 || i >= n) ? -1 : i;
    } else if (mode == "edge") {
      j = std::clamp<int64_t>(i, 0, n - 1);
    } else if (mode == "reflect") {
      int64_t period = n > 1 ? 2 * (n - 1) : 1;
      j = n > 1 ? std::abs(i) % period : 0;
      if (j >= n) j = period - j;
    } else {  // symmetric
      int64_t period = 2 * n;
      j = ((i % period) + period) % period;
      if (j >= n) j = period - 1 - j;
    }
    idx.push_back(j);
  }
  return idx;
}

// pad_image's CUDA kernel: the same row/column maps as index_select gathers on the device, then
// the fill value where a map is -1 (constant mode).
[[maybe_unused]] Tensor pad_image_gather(const Tensor& x, const std::vector<int64_t>& rows,
                                         const std::vector<int64_t>& cols, int64_t top,
                                         int64_t left, double fill) {
  const Device dev = x.device();
  auto gather_index = [&](const std::vector<int64_t>& map, int64_t offset) {
    std::vector<int64_t> idx;
    for (int64_t v : map) idx.push_back(v < 0 ? 0 : v + offset);
    return from_vector(idx, {int64_t(idx.size())}, TensorOptions(DType::Int64).device(dev));
  };
  Tensor out =
      index_select(index_select(x, 2, gather_index(rows, top)), 3, gather_index(cols, left));
  std::vector<uint8_t> outside;
  bool any = false;
  for (int64_t r : rows)
    for (int64_t c : cols) {
      outside.push_back(r < 0 || c < 0);
      any = any || r < 0 || c < 0;
    }
  if (!any) return out;
  Tensor mask = from_vector(outside, {int64_t(rows.size()), int64_t(cols.size())},
                            TensorOptions(DType::Bool).device(dev));
  return masked_fill(out, mask, Scalar(static_cast<double>(fill)));
}

// pad_image's CPU kernel: one pass over the output rows.
Tensor pad_image_cpu(const Tensor& x, const std::vector<int64_t>& rows,
                     const std::vector<int64_t>& cols, int64_t top, int64_t left, double fill) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t oh = int64_t(rows.size()), ow = int64_t(cols.size());
  Tensor src = contiguous(x);
  Tensor out = empty({N, C, oh, ow}, TensorOptions(x.dtype()));
  dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32)) |
                 (1u << int(DType::Float64))>(x.dtype(), "pad", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    const T f = static_cast<T>(fill);
    for (int64_t nc = 0; nc < N * C; ++nc)
      for (int64_t y = 0; y < oh; ++y) {
        T* orow = o + (nc * oh + y) * ow;
        if (rows[size_t(y)] < 0) {
          std::fill(orow, orow + ow, f);
          continue;
        }
        const T* irow = in + (nc * H + top + rows[size_t(y)]) * W + left;
        for (int64_t xx = 0; xx < ow; ++xx)
          orow[xx] = cols[size_t(xx)] < 0 ? f : irow[cols[size_t(xx)]];
      }
  });
  return out;
}

TC_REGISTER_KERNEL(kernels::pad_image_kernel, CPU, pad_image_cpu);
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(kernels::pad_image_kernel, CUDA, pad_image_gather);
#endif

// F.pad: negative padding crops first, then rows/columns are gathered through index maps.
Tensor pad_image(const Tensor& x, std::array<int64_t, 4> p, double fill, const std::string& mode) {
  const int64_t H = x.size(2), W = x.size(3);
  int64_t top = std::max<int64_t>(-p[1], 0), left = std::max<int64_t>(-p[0], 0);
  int64_t h = H - top - std::max<int64_t>(-p[3], 0), w = W - left - std::max<int64_t>(-p[2], 0);
  TC_CHECK(h > 0 && w > 0, "pad: negative padding removes the whole image");
  auto rows = pad_index(h, std::max<int64_t>(p[1], 0), std::max<int64_t>(p[3], 0), mode);
  auto cols = pad_index(w, std::max<int64_t>(p[0], 0), std::max<int64_t>(p[2], 0), mode);
  return kernels::pad_image_kernel.get(x.device().type)(x, rows, cols, top, left, fill);
}

// F.rgb_to_grayscale with the same tensor ops as Python (so results agree bit for bit).
Tensor grayscale(const Tensor& x, int64_t out_channels) {
  Tensor l = x;
  if (x.size(1) == 3) {
    Tensor r = select(x, 1, 0), g = select(x, 1, 1), b = select(x, 1, 2);
    Tensor v = add(add(mul(r, Scalar(0.2989)), mul(g, Scalar(0.587))), mul(b, Scalar(0.114)));
    l = unsqueeze(to_dtype(v, x.dtype()), 1);
  } else {
    TC_CHECK(x.size(1) == 1, "rgb_to_grayscale: expected 1 or 3 channels, got ", x.size(1));
  }
  return out_channels == 3 ? contiguous(expand(l, x.sizes())) : l;
}

// One ColorJitter adjustment on a batch with per-image factors (F.adjust_* in Python).
Tensor jitter_step(const Tensor& x, int k, const std::vector<double>& factors) {
  TC_CHECK_TYPE(x.dtype() == DType::UInt8 || x.dtype() == DType::Float32,
                "ColorJitter: the C++ pipeline handles uint8 or float32 images, got ",
                dtype_name(x.dtype()));
  const int64_t c = x.size(1);
  TC_CHECK(c == 1 || c == 3, "ColorJitter: expected 1 or 3 channels, got ", c);
  switch (k) {
    case 0:
      return kernels::blend(x, factors, kernels::BlendOther::Zero);
    case 1: {
      Tensor gray = c == 3 ? grayscale(x, 1) : x;
      Tensor m = mean(to_dtype(gray, DType::Float32), {-3, -2, -1}, true);
      Tensor mc = contiguous(reshape(m, {-1}));
      mc = to_device(mc, Device(DeviceType::CPU));  // one value per image, read on the host
      const float* mp = mc.data<float>();
      return kernels::blend(x, factors, kernels::BlendOther::Value,
                            std::vector<double>(mp, mp + mc.numel()));
    }
    case 2:
      return c == 3 ? kernels::blend(x, factors, kernels::BlendOther::Gray) : x;
    default:
      return c == 3 ? kernels::adjust_hue(x, factors) : x;
  }
}

// ColorJitter._draw and the per-step application of ColorJitter._apply.
Tensor color_jitter(const Step& s, const GeneratorPtr& gen, int64_t count, const Tensor& x) {
  const int64_t n = x.size(0);
  auto u = draw(gen, count * 8);
  std::vector<std::array<int, 4>> orders;
  std::vector<std::array<double, 4>> factors;
  for (int64_t q = 0; q < count; ++q) {
    const double* us = u.data() + q * 8;
    std::array<int, 4> order{0, 1, 2, 3};
    std::stable_sort(order.begin(), order.end(), [us](int a, int b) { return us[a] < us[b]; });
    std::array<double, 4> f{};
    for (int k = 0; k < 4; ++k)
      if (s.jitter_on[size_t(k)]) {
        auto [lo, hi] = s.jitter[size_t(k)];
        // Python passes the factors through a float32 tensor.
        f[size_t(k)] = double(float(lo + (hi - lo) * us[4 + k]));
      }
    orders.push_back(order);
    factors.push_back(f);
  }
  Tensor out = x;
  for (int step = 0; step < 4; ++step)
    for (int k = 0; k < 4; ++k) {
      if (!s.jitter_on[size_t(k)]) continue;
      std::vector<int64_t> idx;
      std::vector<double> fs;
      for (int64_t q = 0; q < n; ++q) {
        int64_t d = count == 1 ? 0 : q;
        if (orders[size_t(d)][size_t(step)] != k) continue;
        idx.push_back(q);
        fs.push_back(factors[size_t(d)][size_t(k)]);
      }
      if (idx.empty()) continue;
      if (int64_t(idx.size()) == n) {
        out = jitter_step(out, k, fs);
      } else {
        Tensor index = from_vector<int64_t>(idx, {int64_t(idx.size())});
        Tensor done = jitter_step(index_select(out, 0, index), k, fs);
        out = index_copy(out, 0, index, done);
      }
    }
  return out;
}

// Crop windows of RandomCrop / CenterCrop: (top, left) per draw.
std::vector<std::pair<int64_t, int64_t>> window(const Step& s, const GeneratorPtr& gen,
                                                int64_t count, int64_t h, int64_t w) {
  int64_t th = s.size[0], tw = s.size[1];
  if (s.kind == Kind::CenterCrop) {
    return {{int64_t(std::nearbyint((h - th) / 2.0)), int64_t(std::nearbyint((w - tw) / 2.0))}};
  }
  TC_CHECK(h >= th && w >= tw, "RandomCrop: required crop size (", th, ", ", tw,
           ") is larger than input image size (", h, ", ", w, ")");
  if (h == th && w == tw) return std::vector<std::pair<int64_t, int64_t>>(size_t(count), {0, 0});
  auto tops = draw_int(gen, count, 0, h - th + 1);
  auto lefts = draw_int(gen, count, 0, w - tw + 1);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t i = 0; i < count; ++i) out.push_back({tops[size_t(i)], lefts[size_t(i)]});
  return out;
}

std::vector<uint8_t> flips(const Step& s, const GeneratorPtr& gen, int64_t count) {
  std::vector<uint8_t> f;
  for (double u : draw(gen, count)) f.push_back(u < s.p ? 1 : 0);
  return f;
}

bool fusable(const Step& s, int64_t h, int64_t w) {
  if (s.kind == Kind::HFlip || s.kind == Kind::VFlip) return true;
  if (s.kind == Kind::RandomCrop && crop_pads(s, h, w) != std::array<int64_t, 4>{0, 0, 0, 0})
    return false;
  if (s.kind == Kind::RandomCrop || s.kind == Kind::CenterCrop)
    return s.size[0] <= h && s.size[1] <= w;
  return false;
}

std::pair<int64_t, int64_t> resized_size(const Step& s, int64_t h, int64_t w) {
  if (s.size.size() == 2) return {s.size[0], s.size[1]};
  int64_t requested = s.size[0];
  int64_t shorter = std::min(h, w), longer = std::max(h, w);
  int64_t new_short = requested, new_long = int64_t(double(requested * longer) / double(shorter));
  if (s.max_size > 0) {
    TC_CHECK(s.max_size > requested, "Resize: max_size must be greater than the requested size");
    if (new_long > s.max_size) {
      new_short = int64_t(double(s.max_size * new_short) / double(new_long));
      new_long = s.max_size;
    }
  }
  return w <= h ? std::pair{new_long, new_short} : std::pair{new_short, new_long};
}

Tensor resize_image(const Tensor& img, int64_t oh, int64_t ow, Interpolation mode, int antialias) {
  int64_t h = img.size(-2), w = img.size(-1);
  if (oh == h && ow == w) return img;
  bool aa = antialias < 0 ? (oh < h || ow < w) : antialias == 1;
  return kernels::resize(img, oh, ow, mode, aa && mode != Interpolation::Nearest);
}

Tensor crop(const Tensor& batch, const std::vector<int64_t>& tops,
            const std::vector<int64_t>& lefts, int64_t h, int64_t w) {
  return kernels::crop_flip(batch, tops, lefts, {0}, {0}, h, w);
}

// RandomResizedCrop._draw in Python: 22 draws per sample.
std::vector<std::array<int64_t, 4>> resized_crop_params(const Step& s, const GeneratorPtr& gen,
                                                        int64_t count, int64_t h, int64_t w) {
  auto u = draw(gen, count * 22);
  double area = double(h * w), lr0 = std::log(s.ratio[0]), lr1 = std::log(s.ratio[1]);
  std::vector<std::array<int64_t, 4>> out;
  for (int64_t n = 0; n < count; ++n) {
    const double* us = u.data() + n * 22;
    bool found = false;
    for (int a = 0; a < 10 && !found; ++a) {
      double target = area * (s.scale[0] + (s.scale[1] - s.scale[0]) * us[2 * a]);
      double aspect = std::exp(lr0 + (lr1 - lr0) * us[2 * a + 1]);
      int64_t cw = int64_t(std::nearbyint(std::sqrt(target * aspect)));
      int64_t ch = int64_t(std::nearbyint(std::sqrt(target / aspect)));
      if (0 < cw && cw <= w && 0 < ch && ch <= h) {
        int64_t i = std::min(int64_t(us[20] * double(h - ch + 1)), h - ch);
        int64_t j = std::min(int64_t(us[21] * double(w - cw + 1)), w - cw);
        out.push_back({i, j, ch, cw});
        found = true;
      }
    }
    if (!found) {
      double in_ratio = double(w) / double(h);
      double rmin = std::min(s.ratio[0], s.ratio[1]), rmax = std::max(s.ratio[0], s.ratio[1]);
      int64_t cw = w, ch = h;
      if (in_ratio < rmin) {
        ch = int64_t(std::nearbyint(double(w) / rmin));
      } else if (in_ratio > rmax) {
        cw = int64_t(std::nearbyint(double(h) * rmax));
      }
      out.push_back({(h - ch) / 2, (w - cw) / 2, ch, cw});
    }
  }
  return out;
}

}  // namespace

Tensor grayscale_image(const Tensor& x, int64_t out_channels) { return grayscale(x, out_channels); }

Tensor apply_step(const Step& s, const Tensor& input, const GeneratorPtr& gen) {
  Tensor x = input;
  const int64_t n = x.size(0);
  int64_t h = x.size(2), w = x.size(3);
  int64_t cnt = draw_count(s, n);
  switch (s.kind) {
    case Kind::Resize: {
      auto [oh, ow] = resized_size(s, h, w);
      x = resize_image(x, oh, ow, s.interpolation, s.antialias);
      break;
    }
    case Kind::Grayscale: {
      x = grayscale(x, s.num_output_channels);
      break;
    }
    case Kind::ColorJitter: {
      x = color_jitter(s, gen, cnt, x);
      break;
    }
    case Kind::Pad: {
      x = pad_image(x, s.padding, s.fill, s.padding_mode);
      break;
    }
    case Kind::CenterCrop:
    case Kind::RandomCrop: {
      if (s.kind == Kind::RandomCrop) {
        auto pads = crop_pads(s, h, w);
        if (pads != std::array<int64_t, 4>{0, 0, 0, 0}) {
          x = pad_image(x, pads, s.fill, s.padding_mode);
          h = x.size(2), w = x.size(3);
        }
      }
      TC_CHECK(s.kind == Kind::RandomCrop || (s.size[0] <= h && s.size[1] <= w), s.name,
               ": crops larger than the image (padding) are not supported in C++");
      auto win = window(s, gen, cnt, h, w);
      std::vector<int64_t> tops, lefts;
      for (auto [t, l] : win) tops.push_back(t), lefts.push_back(l);
      x = crop(x, tops, lefts, s.size[0], s.size[1]);
      break;
    }
    case Kind::HFlip:
    case Kind::VFlip: {
      auto f = flips(s, gen, cnt);
      bool any = false;
      for (auto v : f) any = any || v;
      if (any)
        x = kernels::crop_flip(x, {0}, {0}, s.kind == Kind::HFlip ? f : std::vector<uint8_t>{0},
                               s.kind == Kind::VFlip ? f : std::vector<uint8_t>{0}, h, w);
      break;
    }
    case Kind::RandomResizedCrop: {
      auto params = resized_crop_params(s, gen, cnt, h, w);
      std::vector<Tensor> outs;
      for (int64_t q = 0; q < (cnt == 1 ? 1 : n); ++q) {
        auto [t, l, ch, cw] = params[size_t(q)];
        Tensor sample = cnt == 1 ? x : narrow(x, 0, q, 1);
        Tensor cropped = crop(sample, {t}, {l}, ch, cw);
        outs.push_back(resize_image(cropped, s.size[0], s.size[1], s.interpolation, s.antialias));
      }
      x = outs.size() == 1 ? outs[0] : cat(outs, 0);
      break;
    }
    case Kind::ConvertImageDtype: {
      TC_CHECK_TYPE(x.dtype() == DType::UInt8 || x.is_floating_point(),
                    "ConvertImageDtype: the C++ pipeline converts uint8 or float images, got ",
                    dtype_name(x.dtype()));
      if (x.dtype() == DType::UInt8)
        x = div(to_dtype(x, DType::Float32), Scalar(int64_t(255)));
      else
        x = to_dtype(x, DType::Float32);
      break;
    }
    case Kind::Normalize: {
      TC_CHECK_TYPE(x.is_floating_point(), "normalize: input tensor should be a float tensor");
      for (double v : s.std)
        TC_CHECK(v != 0, "normalize: std evaluated to zero, leading to division by zero.");
      const TensorOptions on_image = TensorOptions(DType::Float64).device(x.device());
      Tensor mt =
          reshape(from_vector<double>(s.mean, {int64_t(s.mean.size())}, on_image), {-1, 1, 1});
      Tensor st_ =
          reshape(from_vector<double>(s.std, {int64_t(s.std.size())}, on_image), {-1, 1, 1});
      x = div(sub(x, to_dtype(mt, x.dtype())), to_dtype(st_, x.dtype()));
      break;
    }
    default:
      return apply_random_step(s, x, gen);
  }
  return x;
}

Pipeline Pipeline::from_json(std::string_view text) {
  json::Value root = json::parse(text);
  const json::Value* fmt = root.find("format");
  TC_CHECK(fmt && fmt->text == "tensorcore.vision.transforms",
           "Pipeline: not a tensorcore transforms pipeline (format field missing or wrong)");
  const json::Value& list = need(root, "transforms", "pipeline");
  TC_CHECK(list.kind == json::Value::Kind::kArray, "Pipeline: 'transforms' should be an array");
  Pipeline p;
  for (const auto& entry : list.array)
    p.steps_.push_back(std::make_shared<Step>(parse_step(entry)));
  return p;
}

Pipeline Pipeline::load(const std::string& path) {
  return from_json(serialize::read_text_file(path, "Pipeline::load: cannot open " + path));
}

std::vector<std::string> Pipeline::names() const {
  std::vector<std::string> out;
  for (const auto& s : steps_) out.push_back(s->name);
  return out;
}

Tensor Pipeline::operator()(const Tensor& img, const GeneratorPtr& gen) const {
  TC_CHECK(img.dim() == 3 || img.dim() == 4, "Pipeline: expected (C, H, W) or (N, C, H, W), got ",
           shape_str(img.sizes()));
  const bool single = img.dim() == 3;
  Tensor x = single ? unsqueeze(img, 0) : img;
  const auto& st = steps_;
  size_t i = 0;
  while (i < st.size()) {
    const int64_t n = x.size(0), c = x.size(1);
    int64_t h = x.size(2), w = x.size(3);
    // The fusion rule of Compose._try_fused.
    if (x.dtype() == DType::UInt8 || x.dtype() == DType::Float32) {
      size_t j = i;
      int64_t fh = h, fw = w;
      while (j < st.size() && fusable(*st[j], fh, fw)) {
        if (st[j]->kind == Kind::RandomCrop || st[j]->kind == Kind::CenterCrop)
          fh = st[j]->size[0], fw = st[j]->size[1];
        ++j;
      }
      const Step* conv = nullptr;
      const Step* norm = nullptr;
      if (j < st.size() && st[j]->kind == Kind::ConvertImageDtype) conv = st[j++].get();
      if (j < st.size() && st[j]->kind == Kind::Normalize && (conv || x.dtype() == DType::Float32))
        norm = st[j++].get();
      bool channels_ok = !norm || ((norm->mean.size() == 1 || int64_t(norm->mean.size()) == c) &&
                                   (norm->std.size() == 1 || int64_t(norm->std.size()) == c));
      const size_t stages = j - i - (conv ? 1 : 0) - (norm ? 1 : 0);
      if ((conv || norm) && (stages > 0 || norm) && channels_ok) {
        std::vector<int64_t> tops(size_t(n), 0), lefts(size_t(n), 0);
        std::vector<uint8_t> hf(size_t(n), 0), vf(size_t(n), 0);
        for (size_t k = i; k < i + stages; ++k) {
          const Step& s = *st[k];
          int64_t cnt = draw_count(s, n);
          if (s.kind == Kind::RandomCrop || s.kind == Kind::CenterCrop) {
            auto win = window(s, gen, cnt, h, w);
            int64_t ch = s.size[0], cw = s.size[1];
            for (int64_t q = 0; q < n; ++q) {
              auto [t, l] = pick(win, q);
              lefts[size_t(q)] += hf[size_t(q)] ? (w - l - cw) : l;
              tops[size_t(q)] += vf[size_t(q)] ? (h - t - ch) : t;
            }
            h = ch, w = cw;
          } else {
            auto f = flips(s, gen, cnt);
            auto& fl = s.kind == Kind::HFlip ? hf : vf;
            for (int64_t q = 0; q < n; ++q) fl[size_t(q)] ^= pick(f, q);
          }
        }
        double unit = x.dtype() == DType::UInt8 ? 1.0 / 255.0 : 1.0;
        std::vector<double> scale{unit}, bias{0.0};
        if (norm) {
          scale.assign(size_t(c), 0.0), bias.assign(size_t(c), 0.0);
          for (int64_t q = 0; q < c; ++q) {
            double sd = pick(norm->std, q), m = pick(norm->mean, q);
            TC_CHECK(sd != 0, "normalize: std evaluated to zero, leading to division by zero.");
            scale[size_t(q)] = unit / sd, bias[size_t(q)] = -m / sd;
          }
        }
        x = kernels::crop_flip_normalize(x, tops, lefts, hf, vf, h, w, scale, bias);
        i = j;
        continue;
      }
    }
    x = apply_step(*st[i++], x, gen);
  }
  return single ? squeeze(x, 0) : x;
}

}  // namespace tc::vision::transforms
