// tc::audio::transforms::Pipeline: parsing, each step against a direct computation with tc ops
// (or a naive loop), seeded masking, and clear errors for bad files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "audio/pipeline.h"
#include "audio/resample.h"
#include "tensorcore/fft/spectral.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace {

using tc::audio::transforms::Pipeline;

std::string doc(const std::string& steps) {
  return R"({"format": "tensorcore.audio.transforms", "version": 1, "transforms": [)" + steps +
         "]}";
}

std::string values(const tc::Tensor& t) {
  tc::Tensor d = tc::contiguous(tc::to_dtype(t, tc::DType::Float64));
  std::ostringstream os;
  os.precision(17);
  os << "[";
  for (int64_t i = 0; i < d.numel(); ++i) os << (i ? ", " : "") << d.data<double>()[i];
  os << "]";
  return os.str();
}

tc::Tensor signal(int64_t n) {
  auto g = std::make_shared<tc::Generator>();
  g->manual_seed(3);
  return tc::sub(tc::rand({2, n}, g, tc::TensorOptions(tc::DType::Float32)), tc::Scalar(0.5));
}

void expect_same(const tc::Tensor& a, const tc::Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  tc::Tensor x = tc::contiguous(a), y = tc::contiguous(b);
  for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(x.data<float>()[i], y.data<float>()[i]) << i;
}

TEST(AudioPipeline, PowerMelSpectrogramMatchesDirectOps) {
  tc::Tensor window = tc::hann_window(64, true, tc::TensorOptions(tc::DType::Float32));
  tc::Tensor fb = tc::rand({33, 6}, {}, tc::TensorOptions(tc::DType::Float32));
  std::string json = doc(R"({"name": "Spectrogram", "params": {"n_fft": 64, "win_length": 64,
      "hop_length": 16, "pad": 0, "window": )" +
                         values(window) + R"(, "power": 2.0,
      "normalized": false, "center": true, "pad_mode": "reflect", "onesided": true}},
      {"name": "MelScale", "params": {"rows": 33, "cols": 6, "matrix": )" +
                         values(fb) + "}}");
  Pipeline p = Pipeline::from_json(json);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.names(), (std::vector<std::string>{"Spectrogram", "MelScale"}));
  tc::Tensor x = signal(1000);
  tc::Tensor out = p(x);
  tc::Tensor spec = tc::stft(x, 64, 16, 64, window, true, "reflect", false, true, true);
  tc::Tensor power = tc::mul(tc::abs(spec), tc::abs(spec));
  tc::Tensor mel = tc::transpose(tc::matmul(tc::transpose(power, -1, -2), fb), -1, -2);
  ASSERT_EQ(out.sizes(), (tc::Shape{2, 6, 63}));
  EXPECT_TRUE(tc::allclose(out, mel, 1e-5, 1e-5));
}

TEST(AudioPipeline, AmplitudeToDbTopDbAndMuLaw) {
  Pipeline db = Pipeline::from_json(doc(R"({"name": "AmplitudeToDB", "params": {"multiplier": 10.0,
      "amin": 1e-10, "db_multiplier": 0.0, "top_db": 35.0}})"));
  tc::Tensor x = tc::from_vector<float>({1.0f, 0.1f, 1e-3f, 100.0f, 0.0f, 10.0f}, {1, 2, 3});
  tc::Tensor y = tc::contiguous(db(x));
  const float want[6] = {0.0f, -10.0f, -15.0f, 20.0f, -15.0f, 10.0f};  // floored at max - 35
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(y.data<float>()[i], want[i], 1e-5) << i;

  Pipeline mu = Pipeline::from_json(
      doc(R"({"name": "MuLawEncoding", "params": {"quantization_channels": 256}})"));
  tc::Tensor s = tc::from_vector<float>({-1.0f, -0.5f, 0.0f, 0.25f, 1.0f}, {5});
  tc::Tensor e = mu(s);
  ASSERT_EQ(e.dtype(), tc::DType::Int64);
  for (int64_t i = 0; i < 5; ++i) {
    const double v = s.data<float>()[i];
    const double m = (v < 0   ? -1
                      : v > 0 ? 1
                              : 0) *
                     std::log1p(255 * std::abs(v)) / std::log1p(255.0);
    EXPECT_EQ(e.data<int64_t>()[i], int64_t((m + 1) / 2 * 255 + 0.5)) << i;
  }
}

TEST(AudioPipeline, ResampleStepEqualsKernel) {
  Pipeline p = Pipeline::from_json(doc(R"({"name": "Resample", "params": {"orig_freq": 48000,
      "new_freq": 16000, "lowpass_filter_width": 6, "rolloff": 0.99,
      "resampling_method": "sinc_interpolation", "beta": null}})"));
  tc::Tensor x = signal(4800);
  expect_same(p(x), tc::audio::resample(x, 48000, 16000));
}

TEST(AudioPipeline, MaskingIsSeededAndContiguous) {
  Pipeline p = Pipeline::from_json(doc(R"({"name": "TimeMasking", "params": {"mask_param": 30,
      "axis": 2, "iid_masks": false, "p": 1.0, "mask_value": 0.0}})"));
  tc::Tensor spec =
      tc::add(tc::rand({2, 5, 100}, {}, tc::TensorOptions(tc::DType::Float32)), tc::Scalar(1.0));
  auto run = [&](uint64_t seed) {
    auto g = std::make_shared<tc::Generator>();
    g->manual_seed(seed);
    return tc::contiguous(p(spec, g));
  };
  tc::Tensor a = run(5), b = run(5), c = run(6);
  expect_same(a, b);
  // The masked columns form one run shared by every row and example.
  int64_t first = -1, last = -1;
  for (int64_t t = 0; t < 100; ++t)
    if (a.data<float>()[t] == 0.0f) {
      if (first < 0) first = t;
      last = t;
    }
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t t = 0; t < 100; ++t)
      EXPECT_EQ(a.data<float>()[r * 100 + t] == 0.0f, first >= 0 && t >= first && t <= last);
  EXPECT_LE(last - first + 1, 30);
  bool differ = false;
  for (int64_t i = 0; i < a.numel(); ++i)
    differ = differ || a.data<float>()[i] != c.data<float>()[i];
  EXPECT_TRUE(differ);
}

TEST(AudioPipeline, VolAndComputeDeltasMatchNaive) {
  Pipeline p = Pipeline::from_json(doc(R"({"name": "Vol", "params": {"factor": 4.0}},
      {"name": "ComputeDeltas", "params": {"win_length": 5, "mode": "replicate"}})"));
  tc::Tensor x = signal(50);  // values in [-0.5, 0.5): x4 clamps to [-1, 1]
  tc::Tensor y = tc::contiguous(p(x));
  ASSERT_EQ(y.sizes(), x.sizes());
  const float* in = x.data<float>();
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t t = 0; t < 50; ++t) {
      auto v = [&](int64_t i) {
        i = std::clamp<int64_t>(i, 0, 49);
        return std::clamp(double(in[r * 50 + i]) * 4.0, -1.0, 1.0);
      };
      const double want = (1 * (v(t + 1) - v(t - 1)) + 2 * (v(t + 2) - v(t - 2))) / 10.0;
      EXPECT_NEAR(y.data<float>()[r * 50 + t], want, 1e-6) << r << " " << t;
    }
}

TEST(AudioPipeline, FadeMatchesNaiveCurves) {
  Pipeline p = Pipeline::from_json(doc(R"({"name": "Fade", "params": {"fade_in_len": 11,
      "fade_out_len": 21, "fade_shape": "quarter_sine"}})"));
  tc::Tensor x = signal(100);
  tc::Tensor y = tc::contiguous(p(x));
  ASSERT_EQ(y.sizes(), x.sizes());
  const float* in = x.data<float>();
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t t = 0; t < 100; ++t) {
      double gain = 1.0;
      if (t < 11) gain *= std::sin(double(t) / 10.0 * M_PI / 2);
      if (t >= 79) gain *= std::sin(double(t - 79) / 20.0 * M_PI / 2 + M_PI / 2);
      EXPECT_NEAR(y.data<float>()[r * 100 + t], gain * in[r * 100 + t], 1e-6) << r << " " << t;
    }
  EXPECT_THROW(p(signal(10)), tc::ValueError);  // fade longer than the waveform
}

TEST(AudioPipeline, SlidingWindowCmnMatchesNaiveMean) {
  // (2, frames=30, feats=3); non-centred window of 8 frames, at least 5 at the start
  Pipeline p = Pipeline::from_json(doc(R"({"name": "SlidingWindowCmn", "params": {"cmn_window": 8,
      "min_cmn_window": 5, "center": false, "norm_vars": false}})"));
  tc::Tensor x = tc::reshape(signal(90), {2, 15, 6});
  tc::Tensor y = tc::contiguous(p(x));
  ASSERT_EQ(y.sizes(), x.sizes());
  const float* in = x.data<float>();
  const int64_t frames = 15, feats = 6;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t t = 0; t < frames; ++t) {
      // Kaldi's apply-cmvn-sliding: frames [t - 8, t + 1), shifted right to hold min 5 at the start
      int64_t start = std::max<int64_t>(0, t - 8), end = t + 1;
      if (t - 8 < 0) end = std::max<int64_t>(t + 1, 5);
      for (int64_t f = 0; f < feats; ++f) {
        double mean = 0;
        for (int64_t k = start; k < end; ++k) mean += in[(b * frames + k) * feats + f];
        mean /= double(end - start);
        const int64_t i = (b * frames + t) * feats + f;
        EXPECT_NEAR(y.data<float>()[i], in[i] - mean, 1e-6) << b << " " << t << " " << f;
      }
    }
}

TEST(AudioPipeline, ClearErrors) {
  EXPECT_THROW(Pipeline::from_json("[1, 2]"), tc::ValueError);
  EXPECT_ANY_THROW(Pipeline::from_json("{oops"));
  try {
    Pipeline::from_json(doc(R"({"name": "Vad", "params": {}})"));
    FAIL() << "expected an error";
  } catch (const tc::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("transform 'Vad' is not supported"), std::string::npos)
        << e.what();
  }
  try {
    Pipeline::from_json(doc(R"({"name": "Fade", "params": {}})"));
    FAIL() << "expected an error";
  } catch (const tc::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Fade is missing 'fade_in_len'"), std::string::npos)
        << e.what();
  }
  try {
    Pipeline::from_json(doc(R"({"name": "Spectrogram", "params": {"n_fft": 0}})"));
    FAIL() << "expected an error";
  } catch (const tc::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Spectrogram"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Pipeline::load("/nonexistent/frontend.json"), tc::ValueError);
}

}  // namespace
