#pragma once
// Internals of the C++ transforms pipeline (pipeline.cpp: parsing, fusion and the deterministic
// and crop/flip/color steps; pipeline_random.cpp: warps, blur, erasing and the RandomApply /
// RandomChoice / RandomOrder containers). Not installed API.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/serialize/json.h"
#include "vision/transforms/kernels.h"

namespace tc::vision::transforms {

namespace json = tc::serialize::json;
using kernels::Interpolation;

enum class Kind {
  Resize,
  CenterCrop,
  RandomCrop,
  HFlip,
  VFlip,
  RandomResizedCrop,
  ConvertImageDtype,
  Normalize,
  Pad,
  Grayscale,
  ColorJitter,
  RandomRotation,
  RandomAffine,
  RandomPerspective,
  GaussianBlur,
  RandomErasing,
  RandomApply,
  RandomChoice,
  RandomOrder,
  RandomGrayscale,
  RandomInvert,
  RandomPosterize,
  RandomSolarize,
  RandomAutocontrast,
  RandomAdjustSharpness,
  RandomEqualize
};

enum class EraseValue { Number, PerChannel, Random };

struct Step {
  Kind kind;
  std::string name;
  // Resize: size (1 or 2 values), max_size (<= 0: none), antialias (-1 none, 0, 1).
  std::vector<int64_t> size;
  int64_t max_size = 0;
  int antialias = -1;
  Interpolation interpolation = Interpolation::Bilinear;
  double p = 0.5;
  bool same_on_batch = false;
  // RandomResizedCrop and RandomErasing: area scale and aspect ratio ranges.
  double scale[2] = {0.08, 1.0}, ratio[2] = {3.0 / 4.0, 4.0 / 3.0};
  std::vector<double> mean, std;
  // RandomCrop / Pad: [left, top, right, bottom], fill value and mode.
  std::array<int64_t, 4> padding{0, 0, 0, 0};
  bool pad_if_needed = false;
  double fill = 0;
  std::string padding_mode = "constant";
  int64_t num_output_channels = 1;
  // ColorJitter ranges (brightness, contrast, saturation, hue); disabled ones are absent.
  std::array<bool, 4> jitter_on{false, false, false, false};
  std::array<std::array<double, 2>, 4> jitter{};
  // Warps: angle range, expand, centre (x, y), fill (none: no blending; 1 or C values).
  std::array<double, 2> degrees{0, 0};
  bool expand = false;
  std::optional<std::pair<double, double>> center;
  std::optional<std::vector<double>> warp_fill;
  std::optional<std::array<double, 2>> translate, affine_scale;
  std::vector<double> shear;  // 0, 2 or 4 values
  double distortion_scale = 0.5;
  // GaussianBlur: kernel size (x, y) and sigma range.
  std::array<int64_t, 2> kernel_size{3, 3};
  std::array<double, 2> sigma{0.1, 2.0};
  // RandomErasing's value.
  EraseValue erase_kind = EraseValue::Number;
  std::vector<double> erase_values{0.0};
  // RandomPosterize's bits, RandomSolarize's threshold.
  int64_t bits = 8;
  double threshold = 0;
  double sharpness_factor = 1;
  // RandomApply / RandomChoice / RandomOrder: nested steps; RandomChoice's probabilities.
  std::vector<std::shared_ptr<const Step>> children;
  std::vector<double> probs;
};

// ---- parsing helpers ------------------------------------------------------------------------

inline const json::Value& need(const json::Value& obj, const char* key, const std::string& where) {
  const json::Value* v = obj.find(key);
  TC_CHECK(v != nullptr, "Pipeline: ", where, " is missing '", key, "'");
  return *v;
}

inline double number(const json::Value& v, const std::string& what) {
  TC_CHECK(v.kind == json::Value::Kind::kNumber, "Pipeline: ", what, " should be a number, got ",
           json::kind_name(v.kind));
  return std::stod(v.text);
}

inline std::vector<double> numbers(const json::Value& v, const std::string& what) {
  if (v.kind == json::Value::Kind::kNumber) return {number(v, what)};
  TC_CHECK(v.kind == json::Value::Kind::kArray, "Pipeline: ", what,
           " should be a number or an array, got ", json::kind_name(v.kind));
  std::vector<double> out;
  for (const auto& e : v.array) out.push_back(number(e, what));
  return out;
}

inline bool is_null(const json::Value* v) {
  return v == nullptr || v->kind == json::Value::Kind::kNull;
}

inline bool flag(const json::Value& params, const char* key) {
  const json::Value* v = params.find(key);
  return v != nullptr && v->kind == json::Value::Kind::kBool && v->boolean;
}

inline std::vector<int64_t> size_pair(const json::Value& v, const std::string& what) {
  auto d = numbers(v, what);
  TC_CHECK(d.size() == 1 || d.size() == 2, "Pipeline: ", what, " should have 1 or 2 values");
  std::vector<int64_t> s;
  for (double x : d) s.push_back(int64_t(x));
  if (s.size() == 1) s.push_back(s[0]);
  return s;
}

inline Interpolation interp(const json::Value& params,
                            Interpolation fallback = Interpolation::Bilinear) {
  const json::Value* v = params.find("interpolation");
  if (is_null(v)) return fallback;
  if (v->text == "nearest") return Interpolation::Nearest;
  if (v->text == "bilinear") return Interpolation::Bilinear;
  if (v->text == "bicubic") return Interpolation::Bicubic;
  TC_CHECK(false, "Pipeline: unsupported interpolation '", v->text, "'");
}

// ---- random draws: Transform._rand / _randint in Python ---------------------------------------

inline std::vector<double> draw(const GeneratorPtr& gen, int64_t n) {
  if (n == 0) return {};
  Tensor u = rand({n}, gen, TensorOptions(DType::Float64));
  const double* p = u.data<double>();
  return std::vector<double>(p, p + n);
}

inline std::vector<int64_t> draw_int(const GeneratorPtr& gen, int64_t n, int64_t low,
                                     int64_t high) {
  std::vector<int64_t> out;
  int64_t span = high - low;
  for (double u : draw(gen, n)) out.push_back(low + std::min(int64_t(u * double(span)), span - 1));
  return out;
}

inline int64_t draw_count(const Step& s, int64_t n) { return (s.same_on_batch || n == 1) ? 1 : n; }

template <typename T>
T pick(const std::vector<T>& v, int64_t i) {
  return v.size() == 1 ? v[0] : v[size_t(i)];
}

// ---- steps --------------------------------------------------------------------------------

// One transform entry {"name", "params"} (recursing into containers).
Step parse_step(const json::Value& entry);
// The transforms of pipeline_random.cpp; false when `s.name` is none of them.
bool parse_random_step(Step& s, const json::Value& params);

// One step, unfused, on an (N, C, H, W) batch: what calling the Python transform does.
Tensor apply_step(const Step& s, const Tensor& x, const GeneratorPtr& gen);
Tensor apply_random_step(const Step& s, const Tensor& x, const GeneratorPtr& gen);
// F.rgb_to_grayscale(x, out_channels) as Python computes it (pipeline.cpp).
Tensor grayscale_image(const Tensor& x, int64_t out_channels);

}  // namespace tc::vision::transforms
