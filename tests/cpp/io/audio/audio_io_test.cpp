// C++ tests for tc::audio load/save/info and resample (no Python involved).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "audio/resample.h"
#include "io/audio/audio_io.h"
#include "tensorcore/ops/creation.h"

namespace ta = tc::audio;

namespace {

tc::Tensor tone(int64_t channels, int64_t frames, double rate) {
  std::vector<float> v(size_t(channels * frames));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < frames; ++i)
      v[size_t(c * frames + i)] =
          float(0.5 * std::sin(2 * M_PI * (300 + 100 * c) * double(i) / rate));
  return tc::from_vector(v, {channels, frames});
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "tc_audio_" + name; }

}  // namespace

TEST(AudioIO, WavRoundTripAndInfo) {
  tc::Tensor x = tone(2, 1234, 16000);
  const std::string path = temp_path("a.wav");
  ta::save(path, x, 16000);
  ta::AudioMetaData md = ta::info(path);
  EXPECT_EQ(md.sample_rate, 16000);
  EXPECT_EQ(md.num_frames, 1234);
  EXPECT_EQ(md.num_channels, 2);
  EXPECT_EQ(md.encoding, "PCM_F");
  EXPECT_EQ(md.bits_per_sample, 32);
  ta::LoadResult r = ta::load(path);
  ASSERT_EQ(r.waveform.sizes(), (tc::Shape{2, 1234}));
  const float* a = x.data<float>();
  const float* b = r.waveform.data<float>();
  for (int64_t i = 0; i < 2 * 1234; ++i) ASSERT_NEAR(a[i], b[i], 1e-7);
  ta::LoadOptions o;
  o.frame_offset = 100;
  o.num_frames = 10;
  o.channels_first = false;
  ta::LoadResult part = ta::load(path, o);
  ASSERT_EQ(part.waveform.sizes(), (tc::Shape{10, 2}));
  EXPECT_NEAR(part.waveform.data<float>()[1], a[1234 + 100], 1e-7);
  std::remove(path.c_str());
}

TEST(AudioIO, FlacInMemory) {
  tc::Tensor x = tone(1, 5000, 8000);
  ta::SaveOptions so;
  so.format = "flac";
  so.bits_per_sample = 16;
  std::string bytes = ta::save_bytes(x, 8000, so);
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_EQ(bytes.substr(0, 4), "fLaC");
  ta::AudioMetaData md = ta::info_bytes(bytes);
  EXPECT_EQ(md.num_frames, 5000);
  EXPECT_EQ(md.encoding, "FLAC");
  ta::LoadResult r = ta::load_bytes(bytes);
  for (int64_t i = 0; i < 5000; ++i)
    ASSERT_NEAR(r.waveform.data<float>()[i], x.data<float>()[i], 1.0 / 32768);
}

TEST(AudioIO, CorruptInputThrowsDecodeError) {
  EXPECT_THROW(ta::load_bytes(std::string("RIFF\x10\x00\x00\x00WAVEjunkjunk", 20)),
               tc::DecodeError);
  EXPECT_THROW(ta::load_bytes(""), tc::DecodeError);
  EXPECT_THROW(ta::load("/nonexistent/file.wav"), tc::DecodeError);
  tc::Tensor x = tone(1, 4000, 8000);
  ta::SaveOptions so;
  so.format = "wav";
  std::string bytes = ta::save_bytes(x, 8000, so);
  EXPECT_THROW(ta::load_bytes(std::string_view(bytes).substr(0, bytes.size() / 2)),
               tc::DecodeError);
}

// Native FLAC goes through libFLAC (io/audio/flac_decode.cpp): a stream cut anywhere, or with a
// damaged frame, is a DecodeError naming the input, never fewer frames or a crash.
TEST(AudioIO, FlacTruncatedOrCorruptThrows) {
  tc::Tensor x = tone(2, 20000, 16000);
  ta::SaveOptions so;
  so.format = "flac";
  so.bits_per_sample = 16;
  const std::string bytes = ta::save_bytes(x, 16000, so);
  for (size_t end : {bytes.size() - 1, bytes.size() / 2, size_t(100), size_t(41), size_t(6)}) {
    try {
      ta::load_bytes(std::string_view(bytes).substr(0, end));
      ADD_FAILURE() << "a FLAC stream cut at byte " << end << " loaded";
    } catch (const tc::DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("the given bytes"), std::string::npos) << e.what();
    }
  }
  const std::string path = temp_path("cut.flac");
  {
    std::ofstream f(path, std::ios::binary);
    f << bytes.substr(0, bytes.size() / 2);
  }
  try {
    ta::load(path);
    ADD_FAILURE() << "a truncated FLAC file loaded";
  } catch (const tc::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + path + "' is truncated: the header declares 20000"),
              std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
  std::string damaged = bytes;
  damaged[damaged.size() / 2] = char(damaged[damaged.size() / 2] ^ 0x5A);
  EXPECT_THROW(ta::load_bytes(damaged), tc::DecodeError);
  // An offset inside the stream seeks (libFLAC) and still gives the same samples.
  const tc::Tensor full = ta::load_bytes(bytes).waveform;
  ta::LoadOptions o;
  o.frame_offset = 12345;
  o.num_frames = 100;
  const tc::Tensor part = ta::load_bytes(bytes, o).waveform;
  ASSERT_EQ(part.sizes(), (tc::Shape{2, 100}));
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 100; ++i)
      ASSERT_EQ(part.data<float>()[c * 100 + i], full.data<float>()[c * 20000 + 12345 + i]);
}

TEST(AudioIO, ConcurrentLoads) {
  tc::Tensor x = tone(2, 3000, 16000);
  ta::SaveOptions so;
  so.format = "flac";
  const std::string bytes = ta::save_bytes(x, 16000, so);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) ok[size_t(t)] += ta::load_bytes(bytes).waveform.size(1) == 3000;
    });
  for (auto& th : threads) th.join();
  for (int v : ok) EXPECT_EQ(v, 10);
}

TEST(AudioResample, MatchesDirectSincSum) {
  // Checks the polyphase kernel against a direct evaluation of torchaudio's formula.
  const int64_t n = 301, orig = 5, fresh = 3, lpw = 6;
  tc::Tensor x = tone(1, n, 50);
  tc::Tensor y = ta::resample(x, orig, fresh);
  const int64_t out_len = (fresh * n + orig - 1) / orig;
  ASSERT_EQ(y.size(1), out_len);
  const double base = std::min(orig, fresh) * 0.99;
  const float* xv = x.data<float>();
  for (int64_t o = 0; o < out_len; ++o) {
    double acc = 0;
    for (int64_t i = 0; i < n; ++i) {
      double t = (double(i) / orig - double(o) / fresh) * base;
      if (std::abs(t) >= lpw) continue;
      double w = std::pow(std::cos(t * M_PI / lpw / 2), 2);
      double s = t == 0 ? 1 : std::sin(M_PI * t) / (M_PI * t);
      acc += xv[i] * s * w * base / orig;
    }
    ASSERT_NEAR(y.data<float>()[o], acc, 2e-5) << "output " << o;
  }
  EXPECT_THROW(ta::resample(x, 0, 3), tc::ValueError);
  EXPECT_THROW(ta::resample(tc::zeros({4}, tc::TensorOptions(tc::DType::Int32)), 2, 1),
               tc::TypeError);
}
