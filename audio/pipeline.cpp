// C++ replay of tensorcore.audio.transforms (Python): each step runs the tensor ops of the
// corresponding Python forward in the same order (so float results agree bit for bit), and the
// masking steps draw their uniforms with tc::rand on the pipeline's generator as Python does.
#include "audio/pipeline.h"

#include <cmath>
#include <optional>

#include "audio/features.h"
#include "audio/resample.h"
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
#include "tensorcore/serialize/text_file.h"

namespace tc::audio::transforms {

namespace json = tc::serialize::json;

enum class Kind {
  Spectrogram,
  Matrix,
  AmplitudeToDB,
  Log,
  Resample,
  MuLawEncoding,
  MuLawDecoding,
  Masking,
  Vol,
  ComputeDeltas,
  Fade,
  SlidingWindowCmn,
  SpectralCentroid,
  TimeStretch,
  InverseSpectrogram,
  GriffinLim,
  InverseMelScale
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
  // Fade: lengths in samples and the curve shape
  int64_t fade_in_len = 0, fade_out_len = 0;
  std::string fade_shape = "linear";
  // SlidingWindowCmn
  int64_t cmn_window = 600, min_cmn_window = 100;
  bool cmn_center = false, norm_vars = false;
  // SpectralCentroid: the top of the frequency axis (sample_rate // 2 in Python), int or float
  Scalar centroid_fmax = Scalar(int64_t(0));
  // TimeStretch: the fixed rate; the phase advance (n_freq, 1) is kept in `matrix`
  double rate = 1.0;
  // GriffinLim (power, window, n_fft, ... as Spectrogram); length absent: istft's default
  int64_t n_iter = 32;
  double momentum = 0.99;
  std::optional<int64_t> length;
  bool rand_init = true;
  // InverseMelScale (the mel filter bank [n_stft, n_mels] is kept in `matrix`)
  int64_t max_iter = 100000;
  double tolerance_loss = 1e-5, tolerance_change = 1e-8, lr = 0.1, sgd_momentum = 0.9;
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
  TC_CHECK(d == std::floor(d), "audio Pipeline: ", where, ".", key, " should be an integer, got ",
           d);
  return int64_t(d);
}

std::optional<double> opt_num(const json::Value& params, const char* key,
                              const std::string& where) {
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
  TC_CHECK(name.kind == json::Value::Kind::kString,
           "audio Pipeline: transform name should be a string");
  s.name = name.text;
  const json::Value& params = need(entry, "params", s.name);
  const std::string& w = s.name;
  if (w == "Spectrogram" || w == "InverseSpectrogram") {
    s.kind = w == "Spectrogram" ? Kind::Spectrogram : Kind::InverseSpectrogram;
    s.n_fft = integer(params, "n_fft", w);
    s.win_length = integer(params, "win_length", w);
    s.hop_length = integer(params, "hop_length", w);
    s.pad = integer(params, "pad", w);
    TC_CHECK(s.n_fft > 0 && s.win_length > 0 && s.win_length <= s.n_fft && s.hop_length > 0 &&
                 s.pad >= 0,
             "audio Pipeline: ", w,
             " needs 0 < win_length <= n_fft, hop_length > 0 and pad >= 0 (got n_fft=", s.n_fft,
             ", win_length=", s.win_length, ", hop_length=", s.hop_length, ", pad=", s.pad, ")");
    s.window = tensor_param(params, "window", w, {s.win_length});
    s.power = opt_num(params, "power", w);
    const json::Value& norm = need(params, "normalized", w);
    if (norm.kind == json::Value::Kind::kBool) {
      s.window_norm = norm.boolean;
    } else {
      TC_CHECK(norm.kind == json::Value::Kind::kString &&
                   (norm.text == "window" || norm.text == "frame_length"),
               "audio Pipeline: ", w, ".normalized should be a bool, 'window' or 'frame_length'");
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
    TC_CHECK(text(params, "mode", w) == "replicate",
             "audio Pipeline: ComputeDeltas supports mode 'replicate' only");
  } else if (w == "Fade") {
    s.kind = Kind::Fade;
    s.fade_in_len = integer(params, "fade_in_len", w);
    s.fade_out_len = integer(params, "fade_out_len", w);
    TC_CHECK(s.fade_in_len >= 0 && s.fade_out_len >= 0,
             "audio Pipeline: Fade lengths must be >= 0, got ", s.fade_in_len, " and ",
             s.fade_out_len);
    s.fade_shape = text(params, "fade_shape", w);
    const auto& f = s.fade_shape;
    TC_CHECK(f == "linear" || f == "exponential" || f == "logarithmic" || f == "quarter_sine" ||
                 f == "half_sine",
             "audio Pipeline: Fade.fade_shape should be linear, exponential, logarithmic, "
             "quarter_sine or "
             "half_sine, got '",
             f, "'");
  } else if (w == "SlidingWindowCmn") {
    s.kind = Kind::SlidingWindowCmn;
    s.cmn_window = integer(params, "cmn_window", w);
    s.min_cmn_window = integer(params, "min_cmn_window", w);
    TC_CHECK(s.cmn_window >= 0 && s.min_cmn_window >= 0,
             "audio Pipeline: SlidingWindowCmn windows must be >= 0, got ", s.cmn_window, " and ",
             s.min_cmn_window);
    s.cmn_center = boolean(params, "center", w);
    s.norm_vars = boolean(params, "norm_vars", w);
  } else if (w == "SpectralCentroid") {
    s.kind = Kind::SpectralCentroid;
    s.n_fft = integer(params, "n_fft", w);
    s.win_length = integer(params, "win_length", w);
    s.hop_length = integer(params, "hop_length", w);
    s.pad = integer(params, "pad", w);
    TC_CHECK(s.n_fft > 0 && s.win_length > 0 && s.win_length <= s.n_fft && s.hop_length > 0 &&
                 s.pad >= 0,
             "audio Pipeline: SpectralCentroid needs 0 < win_length <= n_fft, hop_length > 0 and "
             "pad >= 0 "
             "(got n_fft=",
             s.n_fft, ", win_length=", s.win_length, ", hop_length=", s.hop_length, ", pad=", s.pad,
             ")");
    s.window = tensor_param(params, "window", w, {s.win_length});
    s.power = 1.0;
    const double fmax = num(params, "fmax", w);
    s.centroid_fmax = fmax == std::floor(fmax) &&
                              need(params, "fmax", w).text.find_first_of(".eE") == std::string::npos
                          ? Scalar(int64_t(fmax))
                          : Scalar(fmax);
  } else if (w == "InverseMelScale") {
    s.kind = Kind::InverseMelScale;
    const int64_t n_stft = integer(params, "n_stft", w), n_mels = integer(params, "n_mels", w);
    TC_CHECK(n_stft > 0 && n_mels > 0,
             "audio Pipeline: InverseMelScale needs n_stft > 0 and n_mels > 0, got ", n_stft,
             " and ", n_mels);
    s.matrix = tensor_param(params, "fb", w, {n_stft, n_mels});
    s.max_iter = integer(params, "max_iter", w);
    s.tolerance_loss = num(params, "tolerance_loss", w);
    s.tolerance_change = num(params, "tolerance_change", w);
    s.lr = num(params, "lr", w);
    s.sgd_momentum = num(params, "momentum", w);
  } else if (w == "GriffinLim") {
    s.kind = Kind::GriffinLim;
    s.n_fft = integer(params, "n_fft", w);
    s.win_length = integer(params, "win_length", w);
    s.hop_length = integer(params, "hop_length", w);
    TC_CHECK(
        s.n_fft > 0 && s.win_length > 0 && s.win_length <= s.n_fft && s.hop_length > 0,
        "audio Pipeline: GriffinLim needs 0 < win_length <= n_fft and hop_length > 0 (got n_fft=",
        s.n_fft, ", win_length=", s.win_length, ", hop_length=", s.hop_length, ")");
    s.window = tensor_param(params, "window", w, {s.win_length});
    s.power = num(params, "power", w);
    TC_CHECK(*s.power > 0, "audio Pipeline: GriffinLim.power must be positive, got ", *s.power);
    s.n_iter = integer(params, "n_iter", w);
    TC_CHECK(s.n_iter >= 0, "audio Pipeline: GriffinLim.n_iter must be >= 0, got ", s.n_iter);
    s.momentum = num(params, "momentum", w);
    TC_CHECK(s.momentum >= 0 && s.momentum < 1,
             "audio Pipeline: GriffinLim.momentum must be in [0, 1), got ", s.momentum);
    if (!is_null(params.find("length"))) s.length = integer(params, "length", w);
    s.rand_init = boolean(params, "rand_init", w);
  } else if (w == "TimeStretch") {
    s.kind = Kind::TimeStretch;
    s.rate = num(params, "rate", w);
    TC_CHECK(s.rate > 0, "audio Pipeline: TimeStretch.rate must be positive, got ", s.rate);
    const int64_t n_freq = integer(params, "n_freq", w);
    TC_CHECK(n_freq > 0, "audio Pipeline: TimeStretch.n_freq must be positive, got ", n_freq);
    s.matrix = tensor_param(params, "phase_advance", w, {n_freq, 1});
  } else if (w == "MelScale" || w == "DCT" || w == "LinearFilterbank") {
    s.kind = Kind::Matrix;
    const int64_t rows = integer(params, "rows", w), cols = integer(params, "cols", w);
    TC_CHECK(rows > 0 && cols > 0, "audio Pipeline: ", w, " matrix must be non-empty, got ", rows,
             "x", cols);
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
    TC_CHECK(s.orig_freq > 0 && s.new_freq > 0,
             "audio Pipeline: Resample frequencies must be positive, got ", s.orig_freq, " and ",
             s.new_freq);
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
    TC_CHECK(s.axis == (w == "FrequencyMasking" ? 1 : 2), "audio Pipeline: ", w, " has axis ",
             s.axis);
    s.iid_masks = boolean(params, "iid_masks", w);
    s.p = num(params, "p", w);
    TC_CHECK(s.p >= 0.0 && s.p <= 1.0, "audio Pipeline: ", w, ".p must be in [0, 1], got ", s.p);
    s.mask_value = num(params, "mask_value", w);
  } else {
    TC_CHECK(false, "audio Pipeline: transform '", s.name,
             "' is not supported by the C++ pipeline");
  }
  return s;
}

// F.spectrogram
Tensor spectrogram(const Step& s, Tensor x) {
  TC_CHECK_TYPE(x.is_floating_point(), "Spectrogram: expected a float waveform, got ",
                dtype_name(x.dtype()));
  TC_CHECK(x.dim() >= 1, "Spectrogram: expected a waveform (..., time), got a 0-d tensor");
  if (s.pad > 0) {
    Shape zs = x.sizes();
    zs.back() = s.pad;
    Tensor z = zeros(zs, TensorOptions(x.dtype()).device(x.device()));
    x = cat({z, x, z}, -1);
  }
  const Tensor window = to(s.window, x.device(), x.dtype());
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
  return transpose(matmul(transpose(x, -1, -2), to(s.matrix, x.device(), x.dtype())), -1, -2);
}

// F.amplitude_to_DB
Tensor amplitude_to_db(const Step& s, const Tensor& x) {
  Tensor db = mul(log10(clamp(x, Scalar(s.amin), std::nullopt)), Scalar(s.multiplier));
  db = sub(db, Scalar(s.multiplier * s.db_multiplier));
  if (!s.top_db) return db;
  Shape shape = db.sizes();
  TC_CHECK(db.dim() >= 2, "AmplitudeToDB: top_db needs a (..., freq, time) input, got shape ",
           shape_str(shape));
  const int64_t packed = db.dim() > 2 ? shape[shape.size() - 3] : 1;
  Tensor x4 = reshape(db, {-1, packed, shape[shape.size() - 2], shape.back()});
  Tensor floor = reshape(sub(amax(x4, {-3, -2, -1}), Scalar(*s.top_db)), {-1, 1, 1, 1});
  return reshape(maximum(x4, floor), shape);
}

Tensor mu_law(const Step& s, Tensor x, bool encode) {
  const double mu = double(s.quantization_channels) - 1.0;
  if (!x.is_floating_point()) x = to_dtype(x, DType::Float32);
  Tensor mu_t = scalar_tensor(Scalar(mu), x.dtype(), x.device());
  if (encode) {
    Tensor x_mu = div(mul(sign(x), log1p(mul(mu_t, abs(x)))), log1p(mu_t));
    return to_dtype(
        add(mul(div(add(x_mu, Scalar(int64_t(1))), Scalar(int64_t(2))), mu_t), Scalar(0.5)),
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
    for (int64_t i = 0; i < length; ++i)
      m[r * length + i] = i >= start[size_t(r)] && i < end[size_t(r)];
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
  mask = to_device(reshape(mask, {length}), x.device());
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
  mask = to_device(mask, x.device());
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
  Tensor padded =
      cat({expand(narrow(x, -1, 0, 1), edge), x, expand(narrow(x, -1, t - 1, 1), edge)}, -1);
  Tensor out;
  for (int64_t k = 1; k <= n; ++k) {
    Tensor term =
        mul(sub(narrow(padded, -1, n + k, t), narrow(padded, -1, n - k, t)), Scalar(double(k)));
    out = out.defined() ? add(out, term) : term;
  }
  return div(out, Scalar(denom));
}

// A Python number in an arithmetic expression: a wrapped 0-d tensor, so type promotion and the
// kernel used are exactly those of the Python operator.
Tensor wrap(const Scalar& v) { return scalar_tensor(v, std::nullopt, Device(), true); }
Tensor wrap(double v) { return wrap(Scalar(v)); }
Tensor wrap(int64_t v) { return wrap(Scalar(v)); }

// Fade._fade_in / _fade_out: the same float32 expressions as the Python transform.
Tensor fade_curve(const Step& s, int64_t n, bool fade_in, Device device) {
  const int64_t len = fade_in ? s.fade_in_len : s.fade_out_len;
  Tensor f = linspace(Scalar(int64_t(0)), Scalar(int64_t(1)), len, TensorOptions(device));
  const std::string& shape = s.fade_shape;
  const double pi = M_PI;
  if (fade_in) {
    if (shape == "exponential")
      f = mul(pow(Scalar(2.0), sub(f, wrap(int64_t(1)))), f);
    else if (shape == "logarithmic")
      f = add(log10(add(wrap(0.1), f)), wrap(int64_t(1)));
    else if (shape == "quarter_sine")
      f = sin(div(mul(f, wrap(pi)), wrap(int64_t(2))));
    else if (shape == "half_sine")
      f = add(div(sin(sub(mul(f, wrap(pi)), wrap(pi / 2))), wrap(int64_t(2))), wrap(0.5));
  } else {
    if (shape == "linear")
      f = add(neg(f), wrap(int64_t(1)));
    else if (shape == "exponential")
      f = mul(pow(Scalar(2.0), neg(f)), sub(wrap(int64_t(1)), f));
    else if (shape == "logarithmic")
      f = add(log10(sub(wrap(1.1), f)), wrap(int64_t(1)));
    else if (shape == "quarter_sine")
      f = sin(add(div(mul(f, wrap(pi)), wrap(int64_t(2))), wrap(pi / 2)));
    else
      f = add(div(sin(add(mul(f, wrap(pi)), wrap(pi / 2))), wrap(int64_t(2))), wrap(0.5));
  }
  Tensor ones_part = ones({n - len}, TensorOptions(device));
  return clamp(fade_in ? cat({f, ones_part}, 0) : cat({ones_part, f}, 0), Scalar(int64_t(0)),
               Scalar(int64_t(1)));
}

Tensor fade(const Step& s, const Tensor& x) {
  TC_CHECK(x.dim() >= 1, "Fade: expected a waveform (..., time), got a 0-d tensor");
  const int64_t n = x.size(-1);
  TC_CHECK(s.fade_in_len <= n && s.fade_out_len <= n, "Fade: fade lengths (", s.fade_in_len, ", ",
           s.fade_out_len, ") exceed the waveform length ", n);
  return mul(mul(fade_curve(s, n, true, x.device()), fade_curve(s, n, false, x.device())), x);
}

// F.sliding_window_cmn: window sums from a float64 prefix sum, windows as in Kaldi's
// apply-cmvn-sliding (the same index arithmetic as Python's _cmn_windows).
Tensor sliding_window_cmn(const Step& s, const Tensor& spec) {
  TC_CHECK(spec.dim() >= 2, "SlidingWindowCmn: expected a (..., frames, feats) input, got shape ",
           shape_str(spec.sizes()));
  TC_CHECK_TYPE(spec.is_floating_point(), "SlidingWindowCmn: expected a float specgram, got ",
                dtype_name(spec.dtype()));
  const Shape input_shape = spec.sizes();
  const int64_t frames = input_shape[input_shape.size() - 2], feats = input_shape.back();
  Tensor x = reshape(spec, {-1, frames, feats});
  std::vector<int64_t> starts, ends;
  std::vector<double> counts_v;
  for (int64_t t = 0; t < frames; ++t) {
    int64_t start = s.cmn_center ? t - s.cmn_window / 2 : t - s.cmn_window;
    int64_t end = s.cmn_center ? start + s.cmn_window : t + 1;
    if (start < 0) {
      end -= start;
      start = 0;
    }
    if (!s.cmn_center && end > t) end = std::max(t + 1, s.min_cmn_window);
    if (end > frames) {
      start -= end - frames;
      end = frames;
      if (start < 0) start = 0;
    }
    starts.push_back(start);
    ends.push_back(end);
    counts_v.push_back(double(end - start));
  }
  const Device dev = spec.device();
  Tensor start_t = to_device(from_vector<int64_t>(starts, {frames}), dev);
  Tensor end_t = to_device(from_vector<int64_t>(ends, {frames}), dev);
  Tensor counts = to_device(reshape(from_vector<double>(counts_v, {frames}), {1, -1, 1}), dev);
  Tensor xd = to_dtype(x, DType::Float64);
  Tensor zero = zeros({x.size(0), 1, feats}, TensorOptions(DType::Float64).device(dev));
  Tensor cs = cat({zero, cumsum(xd, 1)}, 1);
  Tensor mean = div(sub(index_select(cs, 1, end_t), index_select(cs, 1, start_t)), counts);
  Tensor out = sub(xd, mean);
  if (s.norm_vars) {
    Tensor cs2 = cat({zero, cumsum(mul(xd, xd), 1)}, 1);
    Tensor sq = div(sub(index_select(cs2, 1, end_t), index_select(cs2, 1, start_t)), counts);
    Tensor variance = sub(sq, mul(mean, mean));
    out = mul(out, pow(variance, wrap(-0.5)));
    out = where(eq(counts, wrap(int64_t(1))), zeros_like(out), out);
  }
  return reshape(to_dtype(out, spec.dtype()), input_shape);
}

// F.spectral_centroid: frequency-weighted mean of each frame of the magnitude spectrogram.
Tensor spectral_centroid(const Step& s, const Tensor& x) {
  Tensor spec = spectrogram(s, x);
  Tensor freqs =
      linspace(Scalar(int64_t(0)), s.centroid_fmax, 1 + s.n_fft / 2, TensorOptions(spec.device()));
  freqs = reshape(freqs, {-1, 1});
  return div(sum(mul(freqs, spec), {-2}), sum(spec, {-2}));
}

// F.phase_vocoder with TimeStretch's fixed rate, op for op as in Python.
Tensor time_stretch(const Step& s, const Tensor& complex_specgrams) {
  TC_CHECK_TYPE(complex_specgrams.is_complex(),
                "TimeStretch: expected a complex spectrogram (Spectrogram with "
                "power=None), got ",
                dtype_name(complex_specgrams.dtype()));
  TC_CHECK(complex_specgrams.dim() >= 2 && complex_specgrams.size(-2) == s.matrix.size(0),
           "TimeStretch: expected ", s.matrix.size(0), " frequency bins at dim -2, got shape ",
           shape_str(complex_specgrams.sizes()));
  if (s.rate == 1.0) return complex_specgrams;
  const Shape shape = complex_specgrams.sizes();
  const Device dev = complex_specgrams.device();
  Tensor spec = reshape(complex_specgrams, {-1, shape[shape.size() - 2], shape.back()});
  const DType real_dtype = real(spec).dtype();
  const Tensor advance = to(s.matrix, dev, real_dtype);
  Tensor time_steps = arange(Scalar(int64_t(0)), Scalar(spec.size(-1)), Scalar(s.rate),
                             TensorOptions(real_dtype).device(dev));
  Tensor alphas = remainder(time_steps, wrap(1.0));
  Tensor phase_0 = angle(narrow(spec, -1, 0, 1));
  Shape pad_shape = spec.sizes();
  pad_shape.back() = 2;
  spec = cat({spec, zeros(pad_shape, TensorOptions(spec.dtype()).device(dev))}, -1);
  Tensor s0 = index_select(spec, -1, to_dtype(time_steps, DType::Int64));
  Tensor s1 = index_select(spec, -1, to_dtype(add(time_steps, wrap(int64_t(1))), DType::Int64));
  Tensor phase = sub(sub(angle(s1), angle(s0)), advance);
  phase = sub(phase, mul(wrap(2 * M_PI), round(div(phase, wrap(2 * M_PI)))));
  phase = add(phase, advance);
  phase = cat({phase_0, narrow(phase, -1, 0, phase.size(-1) - 1)}, -1);
  Tensor phase_acc = cumsum(phase, -1);
  Tensor mag = add(mul(alphas, abs(s1)), mul(sub(wrap(int64_t(1)), alphas), abs(s0)));
  Tensor out = polar(mag, phase_acc);
  Shape out_shape(shape.begin(), shape.end() - 2);
  out_shape.push_back(out.size(1));
  out_shape.push_back(out.size(2));
  return reshape(out, out_shape);
}

// F.inverse_spectrogram without a target length (the pipeline has no per-call arguments).
Tensor inverse_spectrogram(const Step& s, Tensor spec) {
  TC_CHECK_TYPE(spec.is_complex(), "InverseSpectrogram: expected a complex spectrogram, got ",
                dtype_name(spec.dtype()));
  TC_CHECK(spec.dim() >= 2, "InverseSpectrogram: expected (..., freq, frames), got shape ",
           shape_str(spec.sizes()));
  const Tensor window = to(s.window, spec.device(), real(spec).dtype());
  if (s.window_norm) spec = mul(spec, sqrt(sum(pow(window, Scalar(2.0)))));
  const Shape shape = spec.sizes();
  Tensor wave =
      istft(reshape(spec, {-1, shape[shape.size() - 2], shape.back()}), s.n_fft, s.hop_length,
            s.win_length, window, s.center, s.frame_length_norm, s.onesided, std::nullopt, false);
  Shape out_shape(shape.begin(), shape.end() - 2);
  out_shape.push_back(wave.size(-1));
  return reshape(wave, out_shape);
}

// F.griffinlim, op for op. The random initial phases come from the default generator, as in
// Python (GriffinLim takes no generator there).
Tensor griffin_lim(const Step& s, const Tensor& specgram_in) {
  TC_CHECK_TYPE(specgram_in.is_floating_point(),
                "GriffinLim: expected a real magnitude spectrogram, got ",
                dtype_name(specgram_in.dtype()));
  TC_CHECK(specgram_in.dim() >= 2 && specgram_in.size(-2) == s.n_fft / 2 + 1,
           "GriffinLim: expected ", s.n_fft / 2 + 1, " frequency bins at dim -2, got shape ",
           shape_str(specgram_in.sizes()));
  const Shape shape = specgram_in.sizes();
  const Device dev = specgram_in.device();
  const Tensor window = to(s.window, dev, specgram_in.dtype());
  const double momentum = s.momentum / (1 + s.momentum);
  Tensor specgram =
      pow(reshape(specgram_in, {-1, shape[shape.size() - 2], shape.back()}), wrap(1 / *s.power));
  const DType cdt = specgram.dtype() == DType::Float64 ? DType::Complex128 : DType::Complex64;
  Tensor angles;
  if (s.rand_init) {
    Tensor re =
        rand(specgram.sizes(), {}, TensorOptions(specgram.dtype()));  // real first, as in Python
    Tensor im = rand(specgram.sizes(), {}, TensorOptions(specgram.dtype()));
    angles = to_device(complex(re, im), dev);
  } else {
    angles = ones(specgram.sizes(), TensorOptions(cdt).device(dev));
  }
  Tensor tprev;
  for (int64_t i = 0; i < s.n_iter; ++i) {
    Tensor inverse = istft(mul(specgram, angles), s.n_fft, s.hop_length, s.win_length, window, true,
                           false, std::nullopt, s.length, false);
    Tensor rebuilt = stft(inverse, s.n_fft, s.hop_length, s.win_length, window, true, "reflect",
                          false, true, true);
    angles =
        (momentum == 0.0 || !tprev.defined()) ? rebuilt : sub(rebuilt, mul(tprev, wrap(momentum)));
    angles = div(angles, add(abs(angles), wrap(1e-16)));
    tprev = rebuilt;
  }
  Tensor wave = istft(mul(specgram, angles), s.n_fft, s.hop_length, s.win_length, window, true,
                      false, std::nullopt, s.length, false);
  Shape out_shape(shape.begin(), shape.end() - 2);
  out_shape.push_back(wave.size(-1));
  return reshape(wave, out_shape);
}

// InverseMelScale.forward: projected gradient descent with momentum on ||mel - S fb||^2, S >= 0,
// op for op as in Python; the initial S comes from the default generator, as there.
Tensor inverse_mel_scale(const Step& s, const Tensor& melspec) {
  const int64_t n_mels = s.matrix.size(1);
  TC_CHECK(melspec.dim() >= 2 && melspec.size(-2) == n_mels, "InverseMelScale: expected ", n_mels,
           " mel bins at dim -2, got shape ", shape_str(melspec.sizes()));
  TC_CHECK_TYPE(melspec.is_floating_point(),
                "InverseMelScale: expected a float mel spectrogram, got ",
                dtype_name(melspec.dtype()));
  const Shape shape = melspec.sizes();
  const int64_t time = shape.back();
  Tensor mel = transpose(reshape(melspec, {-1, n_mels, time}), -1, -2);  // (batch, time, mels)
  const Tensor fb = to(s.matrix, mel.device(), mel.dtype());
  const int64_t freq = fb.size(0);
  Tensor spec =
      to_device(rand({mel.size(0), time, freq}, {}, TensorOptions(mel.dtype())), mel.device());
  Tensor velocity = zeros_like(spec);
  const int64_t frames = mel.size(0) * mel.size(1);
  const Tensor fb_t = transpose(fb, 0, 1);
  double loss = INFINITY;
  for (int64_t i = 0; i < s.max_iter; ++i) {
    Tensor diff = sub(mel, matmul(spec, fb));
    const double new_loss = div(sum(mul(diff, diff)), wrap(frames)).item<double>();
    Tensor grad = mul(matmul(diff, fb_t), wrap(-2.0 / double(frames)));
    velocity = i == 0 ? grad : add(mul(velocity, wrap(s.sgd_momentum)), grad);
    spec = clamp(sub(spec, mul(wrap(s.lr), velocity)), Scalar(int64_t(0)), std::nullopt);
    if (new_loss < s.tolerance_loss || std::abs(loss - new_loss) < s.tolerance_change) break;
    loss = new_loss;
  }
  Shape out_shape(shape.begin(), shape.end() - 2);
  out_shape.push_back(freq);
  out_shape.push_back(time);
  return reshape(transpose(spec, -1, -2), out_shape);
}

Tensor run_step(const Step& s, const Tensor& x, const GeneratorPtr& gen) {
  switch (s.kind) {
    case Kind::Spectrogram:
      return spectrogram(s, x);
    case Kind::Matrix:
      return apply_matrix(s, x);
    case Kind::AmplitudeToDB:
      return amplitude_to_db(s, x);
    case Kind::Log:
      return log(add(x, Scalar(s.offset)));
    case Kind::Resample:
      if (s.orig_freq == s.new_freq) return x;
      TC_CHECK_TYPE(x.is_floating_point(), "resample: expected a floating point waveform, got ",
                    dtype_name(x.dtype()));
      return resample(x, s.orig_freq, s.new_freq, s.lowpass_filter_width, s.rolloff,
                      s.resampling_method, s.beta);
    case Kind::MuLawEncoding:
      return mu_law(s, x, true);
    case Kind::MuLawDecoding:
      return mu_law(s, x, false);
    case Kind::Masking:
      return s.iid_masks && x.dim() == 4 ? mask_iid(s, x, gen) : mask_shared(s, x, gen);
    case Kind::Vol:
      return clamp(s.factor ? mul(x, Scalar(*s.factor)) : x, Scalar(int64_t(-1)),
                   Scalar(int64_t(1)));
    case Kind::ComputeDeltas:
      return compute_deltas(s, x);
    case Kind::Fade:
      return fade(s, x);
    case Kind::SlidingWindowCmn:
      return sliding_window_cmn(s, x);
    case Kind::SpectralCentroid:
      return spectral_centroid(s, x);
    case Kind::TimeStretch:
      return time_stretch(s, x);
    case Kind::InverseSpectrogram:
      return inverse_spectrogram(s, x);
    case Kind::GriffinLim:
      return griffin_lim(s, x);
    case Kind::InverseMelScale:
      return inverse_mel_scale(s, x);
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
  TC_CHECK(list.kind == json::Value::Kind::kArray,
           "audio Pipeline: 'transforms' should be an array");
  Pipeline p;
  for (const auto& e : list.array) p.steps_.push_back(std::make_shared<const Step>(parse_step(e)));
  return p;
}

Pipeline Pipeline::load(const std::string& path) {
  return from_json(serialize::read_text_file(path, "audio Pipeline: cannot open '" + path + "'"));
}

std::vector<std::string> Pipeline::names() const {
  std::vector<std::string> out;
  for (const auto& s : steps_) out.push_back(s->name);
  return out;
}

namespace {
// MFCC / LFCC saved as Spectrogram, MelScale or LinearFilterbank, AmplitudeToDB or Log, DCT:
// the one-pass path Python's MFCC / LFCC take (audio/features.h) where it applies, so the
// pipeline still gives Python's values bit for bit. Returns whether it ran.
bool run_cepstral(const std::vector<std::shared_ptr<const Step>>& steps, size_t i, Tensor& x) {
  if (i + 3 >= steps.size()) return false;
  const Step &spec = *steps[i], &bank = *steps[i + 1], &log_step = *steps[i + 2],
             &dct = *steps[i + 3];
  if (spec.kind != Kind::Spectrogram || bank.kind != Kind::Matrix ||
      !(bank.name == "MelScale" || bank.name == "LinearFilterbank") ||
      !(log_step.kind == Kind::AmplitudeToDB || log_step.kind == Kind::Log) ||
      dct.kind != Kind::Matrix || dct.name != "DCT")
    return false;
  if (!(spec.power && *spec.power == 2.0) || spec.pad != 0 || spec.frame_length_norm ||
      spec.window_norm || !spec.center || spec.pad_mode != "reflect" || !spec.onesided ||
      spec.win_length != spec.n_fft)
    return false;
  CepstralOptions o;
  o.n_fft = spec.n_fft;
  o.hop_length = spec.hop_length;
  o.window = spec.window;
  o.filterbank = bank.matrix;
  o.dct = dct.matrix;
  o.use_log = log_step.kind == Kind::Log;
  o.log_offset = log_step.offset;
  o.multiplier = log_step.multiplier;
  o.amin = log_step.amin;
  o.db_multiplier = log_step.db_multiplier;
  o.top_db = log_step.top_db;
  if (!x.defined() || x.dtype() != DType::Float32) return false;
  o.window = to_dtype(o.window, DType::Float32);  // the stored float64 copies of float32 buffers
  o.filterbank = to_dtype(o.filterbank, DType::Float32);
  o.dct = to_dtype(o.dct, DType::Float32);
  if (!cepstral_features_apply(x, o)) return false;
  x = cepstral_features(x, o);
  return true;
}
}  // namespace

Tensor Pipeline::operator()(const Tensor& waveform, const GeneratorPtr& gen) const {
  TC_CHECK(waveform.defined(), "audio Pipeline: expected a waveform tensor");
  Tensor x = waveform;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (run_cepstral(steps_, i, x)) {
      i += 3;
      continue;
    }
    x = run_step(*steps_[i], x, gen);
  }
  return x;
}

}  // namespace tc::audio::transforms
