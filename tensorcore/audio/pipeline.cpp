// C++ replay of tensorcore.audio.transforms (Python): each step runs the tensor ops of the
// corresponding Python forward in the same order (so float results agree bit for bit), and the
// masking steps draw their uniforms with tc::rand on the pipeline's generator as Python does.
#include "tensorcore/audio/pipeline.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "tensorcore/audio/resample.h"
#include "tensorcore/fft/spectral.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/serialize/common.h"
#include "tensorcore/serialize/json.h"

namespace tc::audio::transforms {

namespace json = tc::serialize::json;

enum class Kind {
  Spectrogram, Matrix, AmplitudeToDB, Log, Resample, MuLawEncoding, MuLawDecoding, Masking, Vol,
  ComputeDeltas
};

struct Step {
  Kind kind;
  std::string name;
  // Spectrogram
  int64_t n_fft = 400, win_length = 400, hop_length = 200, pad = 0;
  Tensor window;  // float64 values of the Python buffer (exact), cast to the input dtype
  std::optional<double> power = 2.0;
  bool frame_length_norm = false, window_norm = false, center = true, onesided = true;
  std::string pad_mode = "reflect";
  // MelScale / DCT: (..., rows, time) -> (..., cols, time) through matmul with matrix [rows, cols]
  Tensor matrix;
  // AmplitudeToDB / Log
  double multiplier = 10.0, amin = 1e-10, db_multiplier = 0.0, offset = 1e-6;
  std::optional<double> top_db;
  // Resample
  int64_t orig_freq = 16000, new_freq = 16000, lowpass_filter_width = 6;
  double rolloff = 0.99;
  std::string resampling_method = "sinc_interpolation";
  std::optional<double> beta;
  // MuLaw
  int64_t quantization_channels = 256;
  // Masking: axis 1 = frequency, 2 = time of (..., freq, time)
  int64_t mask_param = 0, axis = 1;
  bool iid_masks = false;
  double p = 1.0, mask_value = 0.0;
  // Vol: the factor Python multiplies by (absent: none), then clamp to [-1, 1]
  std::optional<double> factor;
  // ComputeDeltas
  int64_t delta_win_length = 5;
};

namespace {

const json::Value& need(const json::Value& obj, const char* key, const std::string& where) {
  const json::Value* v = obj.find(key);
  TC_CHECK(v != nullptr, "audio Pipeline: ", where, " is missing '", key, "'");
  return *v;
}

bool is_null(const json::Value* v) { return v == nullptr || v->kind == json::Value::Kind::kNull; }

double number(const json::Value& v, const std::string& what) {
  TC_CHECK(v.kind == json::Value::Kind::kNumber, "audio Pipeline: ", what,
           " should be a number, got ", json::kind_name(v.kind));
  return std::stod(v.text);
}

double num(const json::Value& params, const char* key, const std::string& where) {
  return number(need(params, key, where), where + "." + key);
}

int64_t integer(const json::Value& params, const char* key, const std::string& where) {
  const double d = num(params, key, where);
  TC_CHECK(d == std::floor(d), "audio Pipeline: ", where, ".", key, " should be an integer, got ", d);
  return int64_t(d);
}

std::optional<double> opt_num(const json::Value& params, const char* key, const std::string& where) {
  const json::Value* v = params.find(key);
  if (is_null(v)) return std::nullopt;
  return number(*v, where + "." + key);
}

bool boolean(const json::Value& params, const char* key, const std::string& where) {
  const json::Value& v = need(params, key, where);
  TC_CHECK(v.kind == json::Value::Kind::kBool, "audio Pipeline: ", where, ".", key,
           " should be true or false, got ", json::kind_name(v.kind));
  return v.boolean;
}

std::string text(const json::Value& params, const char* key, const std::string& where) {
  const json::Value& v = need(params, key, where);
  TC_CHECK(v.kind == json::Value::Kind::kString, "audio Pipeline: ", where, ".", key,
           " should be a string, got ", json::kind_name(v.kind));
  return v.text;
}

// A float64 tensor of the given shape from a flat JSON array.
Tensor tensor_param(const json::Value& params, const char* key, const std::string& where,
                    const Shape& shape) {
  const json::Value& v = need(params, key, where);
  TC_CHECK(v.kind == json::Value::Kind::kArray, "audio Pipeline: ", where, ".", key,
           " should be an array, got ", json::kind_name(v.kind));
  int64_t count = 1;
  for (int64_t s : shape) count *= s;
  TC_CHECK(int64_t(v.array.size()) == count, "audio Pipeline: ", where, ".", key, " should have ",
           count, " values, got ", v.array.size());
  std::vector<double> data;
  data.reserve(v.array.size());
  for (const auto& e : v.array) data.push_back(number(e, where + "." + key));
  return from_vector<double>(data, shape);
}

Step parse_step(const json::Value& entry) {
  Step s;
  const json::Value& name = need(entry, "name", "transform");
  TC_CHECK(name.kind == json::Value::Kind::kString, "audio Pipeline: transform name should be a string");
  s.name = name.text;
  const json::Value& params = need(entry, "params", s.name);
  const std::string& w = s.name;
  if (w == "Spectrogram") {
    s.kind = Kind::Spectrogram;
    s.n_fft = integer(params, "n_fft", w);
    s.win_length = integer(params, "win_length", w);
    s.hop_length = integer(params, "hop_length", w);
    s.pad = integer(params, "pad", w);
    TC_CHECK(s.n_fft > 0 && s.win_length > 0 && s.win_length <= s.n_fft && s.hop_length > 0 && s.pad >= 0,
             "audio Pipeline: Spectrogram needs 0 < win_length <= n_fft, hop_length > 0 and pad >= 0 (got n_fft=",
             s.n_fft, ", win_length=", s.win_length, ", hop_length=", s.hop_length, ", pad=", s.pad, ")");
    s.window = tensor_param(params, "window", w, {s.win_length});
    s.power = opt_num(params, "power", w);
    const json::Value& norm = need(params, "normalized", w);
    if (norm.kind == json::Value::Kind::kBool) {
      s.window_norm = norm.boolean;
    } else {
      TC_CHECK(norm.kind == json::Value::Kind::kString && (norm.text == "window" || norm.text == "frame_length"),
               "audio Pipeline: Spectrogram.normalized should be a bool, 'window' or 'frame_length'");
      s.window_norm = norm.text == "window";
      s.frame_length_norm = norm.text == "frame_length";
    }
    s.center = boolean(params, "center", w);
    s.onesided = boolean(params, "onesided", w);
    s.pad_mode = text(params, "pad_mode", w);
  } else if (w == "Vol") {
    s.kind = Kind::Vol;
    s.factor = opt_num(params, "factor", w);
  } else if (w == "ComputeDeltas") {
    s.kind = Kind::ComputeDeltas;
    s.delta_win_length = integer(params, "win_length", w);
    TC_CHECK(s.delta_win_length >= 3, "audio Pipeline: ComputeDeltas.win_length must be >= 3, got ",
             s.delta_win_length);
    TC_CHECK(text(params, "mode", w) == "replicate", "audio Pipeline: ComputeDeltas supports mode 'replicate' only");
  } else if (w == "MelScale" || w == "DCT" || w == "LinearFilterbank") {
    s.kind = Kind::Matrix;
    const int64_t rows = integer(params, "rows", w), cols = integer(params, "cols", w);
    TC_CHECK(rows > 0 && cols > 0, "audio Pipeline: ", w, " matrix must be non-empty, got ", rows, "x", cols);
    s.matrix = tensor_param(params, "matrix", w, {rows, cols});
  } else if (w == "AmplitudeToDB") {
    s.kind = Kind::AmplitudeToDB;
    s.multiplier = num(params, "multiplier", w);
    s.amin = num(params, "amin", w);
    s.db_multiplier = num(params, "db_multiplier", w);
    s.top_db = opt_num(params, "top_db", w);
  } else if (w == "Log") {
    s.kind = Kind::Log;
    s.offset = num(params, "offset", w);
  } else if (w == "Resample") {
    s.kind = Kind::Resample;
    s.orig_freq = integer(params, "orig_freq", w);
    s.new_freq = integer(params, "new_freq", w);
    TC_CHECK(s.orig_freq > 0 && s.new_freq > 0, "audio Pipeline: Resample frequencies must be positive, got ",
             s.orig_freq, " and ", s.new_freq);
    s.lowpass_filter_width = integer(params, "lowpass_filter_width", w);
    s.rolloff = num(params, "rolloff", w);
    s.resampling_method = text(params, "resampling_method", w);
    s.beta = opt_num(params, "beta", w);
  } else if (w == "MuLawEncoding" || w == "MuLawDecoding") {
    s.kind = w == "MuLawEncoding" ? Kind::MuLawEncoding : Kind::MuLawDecoding;
    s.quantization_channels = integer(params, "quantization_channels", w);
  } else if (w == "FrequencyMasking" || w == "TimeMasking") {
    s.kind = Kind::Masking;
    s.mask_param = integer(params, "mask_param", w);
    s.axis = integer(params, "axis", w);
    TC_CHECK(s.axis == (w == "FrequencyMasking" ? 1 : 2), "audio Pipeline: ", w, " has axis ", s.axis);
    s.iid_masks = boolean(params, "iid_masks", w);
    s.p = num(params, "p", w);
    TC_CHECK(s.p >= 0.0 && s.p <= 1.0, "audio Pipeline: ", w, ".p must be in [0, 1], got ", s.p);
    s.mask_value = num(params, "mask_value", w);
  } else {
    TC_CHECK(false, "audio Pipeline: transform '", s.name, "' is not supported by the C++ pipeline");
  }
  return s;
}

// F.spectrogram
Tensor spectrogram(const Step& s, Tensor x) {
  TC_CHECK_TYPE(x.is_floating_point(), "Spectrogram: expected a float waveform, got ", dtype_name(x.dtype()));
  TC_CHECK(x.dim() >= 1, "Spectrogram: expected a waveform (..., time), got a 0-d tensor");
  if (s.pad > 0) {
    Shape zs = x.sizes();
    zs.back() = s.pad;
    Tensor z = zeros(zs, TensorOptions(x.dtype()));
    x = cat({z, x, z}, -1);
  }
  const Tensor window = to_dtype(s.window, x.dtype());
  Shape shape = x.sizes();
  Tensor spec = stft(reshape(x, {-1, shape.back()}), s.n_fft, s.hop_length, s.win_length, window,
                     s.center, s.pad_mode, s.frame_length_norm, s.onesided, true);
  Shape out_shape(shape.begin(), shape.end() - 1);
  out_shape.push_back(spec.size(-2));
  out_shape.push_back(spec.size(-1));
  spec = reshape(spec, out_shape);
  if (s.window_norm) spec = div(spec, sqrt(sum(pow(window, Scalar(2.0)))));
  if (!s.power) return spec;
  // Python works on the contiguous (frequency-fastest) view when there is one.
  Tensor flipped = transpose(spec, -1, -2);
  const bool use_flipped = flipped.is_contiguous();
  Tensor mag = abs(use_flipped ? flipped : spec);
  if (*s.power == 2.0)
    mag = mul(mag, mag);
  else if (*s.power != 1.0)
    mag = pow(mag, Scalar(*s.power));
  return use_flipped ? transpose(mag, -1, -2) : mag;
}

// MelScale.forward / MFCC's dct: matmul along the frequency dim.
Tensor apply_matrix(const Step& s, const Tensor& x) {
  TC_CHECK(x.dim() >= 2 && x.size(-2) == s.matrix.size(0), s.name, ": expected ", s.matrix.size(0),
           " frequency bins at dim -2, got shape ", shape_str(x.sizes()));
  return transpose(matmul(transpose(x, -1, -2), to_dtype(s.matrix, x.dtype())), -1, -2);
}

// F.amplitude_to_DB
Tensor amplitude_to_db(const Step& s, const Tensor& x) {
  Tensor db = mul(log10(clamp(x, Scalar(s.amin), std::nullopt)), Scalar(s.multiplier));
  db = sub(db, Scalar(s.multiplier * s.db_multiplier));
  if (!s.top_db) return db;
  Shape shape = db.sizes();
  TC_CHECK(db.dim() >= 2, "AmplitudeToDB: top_db needs a (..., freq, time) input, got shape ", shape_str(shape));
  const int64_t packed = db.dim() > 2 ? shape[shape.size() - 3] : 1;
  Tensor x4 = reshape(db, {-1, packed, shape[shape.size() - 2], shape.back()});
  Tensor floor = reshape(sub(amax(x4, {-3, -2, -1}), Scalar(*s.top_db)), {-1, 1, 1, 1});
  return reshape(maximum(x4, floor), shape);
}

Tensor mu_law(const Step& s, Tensor x, bool encode) {
  const double mu = double(s.quantization_channels) - 1.0;
  if (!x.is_floating_point()) x = to_dtype(x, DType::Float32);
  Tensor mu_t = scalar_tensor(Scalar(mu), x.dtype());
  if (encode) {
    Tensor x_mu = div(mul(sign(x), log1p(mul(mu_t, abs(x)))), log1p(mu_t));
    return to_dtype(add(mul(div(add(x_mu, Scalar(int64_t(1))), Scalar(int64_t(2))), mu_t), Scalar(0.5)),
                    DType::Int64);
  }
  Tensor y = sub(mul(div(x, mu_t), Scalar(int64_t(2))), Scalar(1.0));
  return div(mul(sign(y), sub(exp(mul(abs(y), log1p(mu_t))), Scalar(1.0))), mu_t);
}

int64_t effective_mask_param(const Step& s, int64_t axis_length) {
  return s.p == 1.0 ? s.mask_param : std::min(s.mask_param, int64_t(double(axis_length) * s.p));
}

// Bool [rows, length]: row r is true on [start[r], end[r]).
Tensor range_mask(int64_t rows, int64_t length, const std::vector<int64_t>& start,
                  const std::vector<int64_t>& end) {
  Tensor mask = empty({rows, length}, TensorOptions(DType::Bool));
  bool* m = mask.data<bool>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < length; ++i) m[r * length + i] = i >= start[size_t(r)] && i < end[size_t(r)];
  return mask;
}

// F.mask_along_axis: one mask [start, end) shared by every example, from two float32 uniforms.
Tensor mask_shared(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  // Like torchaudio, p caps the mask by the size of dim `axis` of the input as given (the
  // frequency/time dim only for 3-d input), and a 2-d input has no dim 2.
  TC_CHECK_INDEX(x.dim() > s.axis, s.name, ": expected (channel, freq, time), got shape ",
                 shape_str(x.sizes()));
  Shape shape = x.sizes();
  const int64_t length = shape[shape.size() - (s.axis == 1 ? 2 : 1)];
  const int64_t param = effective_mask_param(s, x.size(s.axis));
  if (param < 1) return x;
  const TensorOptions f32(DType::Float32);
  const double value = double(rand({1}, gen, f32).item<float>()) * double(param);
  const double min_value = double(rand({1}, gen, f32).item<float>()) * (double(length) - value);
  const int64_t start = int64_t(min_value), end = int64_t(min_value) + int64_t(value);
  Tensor mask = range_mask(1, length, {start}, {end});  // (idx >= start) & (idx < end)
  mask = reshape(mask, {length});
  if (s.axis == 1) mask = unsqueeze(mask, -1);
  Tensor x3 = reshape(x, {-1, shape[shape.size() - 2], shape.back()});
  return reshape(masked_fill(x3, mask, Scalar(s.mask_value)), shape);
}

// F.mask_along_axis_iid on (batch, channel, freq, time): one mask per (batch, channel).
Tensor mask_iid(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  const int64_t axis = s.axis + 1;
  const int64_t length = x.size(axis);
  const int64_t param = effective_mask_param(s, length);
  if (param < 1) return x;
  const DType dt = x.is_floating_point() ? x.dtype() : DType::Float32;
  const Shape lead{x.size(0), x.size(1)};
  Tensor value = mul(rand(lead, gen, TensorOptions(dt)), Scalar(param));
  Tensor min_value = mul(rand(lead, gen, TensorOptions(dt)), rsub(value, Scalar(length)));
  Tensor start = contiguous(to_dtype(min_value, DType::Int64));
  Tensor end = contiguous(add(to_dtype(min_value, DType::Int64), to_dtype(value, DType::Int64)));
  const int64_t* sp = start.data<int64_t>();
  const int64_t* ep = end.data<int64_t>();
  const int64_t rows = lead[0] * lead[1];
  Tensor mask = reshape(range_mask(rows, length, std::vector<int64_t>(sp, sp + rows),
                                   std::vector<int64_t>(ep, ep + rows)),
                        {lead[0], lead[1], 1, length});
  if (axis == 2) mask = transpose(mask, 2, 3);
  return masked_fill(x, mask, Scalar(s.mask_value));
}

// F.compute_deltas: sum_k k (c[t+k] - c[t-k]) / (2 sum k^2) with edges replicated.
Tensor compute_deltas(const Step& s, const Tensor& x) {
  TC_CHECK(x.dim() >= 1, "ComputeDeltas: expected (..., time), got a 0-d tensor");
  const int64_t n = (s.delta_win_length - 1) / 2, t = x.size(-1);
  const double denom = double(n * (n + 1) * (2 * n + 1)) / 3.0;
  Shape edge = x.sizes();
  edge.back() = n;
  Tensor padded = cat({expand(narrow(x, -1, 0, 1), edge), x, expand(narrow(x, -1, t - 1, 1), edge)}, -1);
  Tensor out;
  for (int64_t k = 1; k <= n; ++k) {
    Tensor term = mul(sub(narrow(padded, -1, n + k, t), narrow(padded, -1, n - k, t)), Scalar(double(k)));
    out = out.defined() ? add(out, term) : term;
  }
  return div(out, Scalar(denom));
}

Tensor run_step(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  switch (s.kind) {
    case Kind::Spectrogram: return spectrogram(s, x);
    case Kind::Matrix: return apply_matrix(s, x);
    case Kind::AmplitudeToDB: return amplitude_to_db(s, x);
    case Kind::Log: return log(add(x, Scalar(s.offset)));
    case Kind::Resample:
      if (s.orig_freq == s.new_freq) return x;
      TC_CHECK_TYPE(x.is_floating_point(), "resample: expected a floating point waveform, got ",
                    dtype_name(x.dtype()));
      return resample(x, s.orig_freq, s.new_freq, s.lowpass_filter_width, s.rolloff,
                      s.resampling_method, s.beta);
    case Kind::MuLawEncoding: return mu_law(s, x, true);
    case Kind::MuLawDecoding: return mu_law(s, x, false);
    case Kind::Masking: return s.iid_masks && x.dim() == 4 ? mask_iid(s, x, gen) : mask_shared(s, x, gen);
    case Kind::Vol:
      return clamp(s.factor ? mul(x, Scalar(*s.factor)) : x, Scalar(int64_t(-1)), Scalar(int64_t(1)));
    case Kind::ComputeDeltas: return compute_deltas(s, x);
  }
  TC_FAIL("audio Pipeline: internal error: unknown step");
}

}  // namespace

Pipeline Pipeline::from_json(std::string_view text) {
  json::Value root;
  try {
    root = json::parse(text);
  } catch (const tc::serialize::FormatError& e) {
    throw ValueError(detail::concat("audio Pipeline: ", e.what()));
  }
  TC_CHECK(root.kind == json::Value::Kind::kObject, "audio Pipeline: expected a JSON object, got ",
           json::kind_name(root.kind));
  const json::Value* fmt = root.find("format");
  TC_CHECK(fmt != nullptr && fmt->text == "tensorcore.audio.transforms",
           "audio Pipeline: not a tensorcore.audio.transforms file (format '",
           fmt ? fmt->text : std::string("missing"), "')");
  const json::Value* version = root.find("version");
  TC_CHECK(version != nullptr && version->text == "1", "audio Pipeline: unsupported version ",
           version ? version->text : std::string("missing"), " (expected 1)");
  const json::Value& list = need(root, "transforms", "pipeline");
  TC_CHECK(list.kind == json::Value::Kind::kArray, "audio Pipeline: 'transforms' should be an array");
  Pipeline p;
  for (const auto& e : list.array) p.steps_.push_back(std::make_shared<const Step>(parse_step(e)));
  return p;
}

Pipeline Pipeline::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  TC_CHECK(f.good(), "audio Pipeline: cannot open '", path, "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return from_json(ss.str());
}

std::vector<std::string> Pipeline::names() const {
  std::vector<std::string> out;
  for (const auto& s : steps_) out.push_back(s->name);
  return out;
}

Tensor Pipeline::operator()(const Tensor& waveform, const GeneratorPtr& gen) const {
  TC_CHECK(waveform.defined(), "audio Pipeline: expected a waveform tensor");
  Tensor x = waveform;
  for (const auto& s : steps_) x = run_step(*s, x, gen);
  return x;
}

}  // namespace tc::audio::transforms
