// tc::io::VideoReader / read_video from C++. Media is generated with the ffmpeg CLI (tests skip
// without it): frame i of the video is the solid colour (8 i, 255 - 8 i, 128), audio a sine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/video.h"

namespace fs = std::filesystem;
using tc::io::MediaSource;
using tc::io::VideoReader;

namespace {

class VideoReaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::system("ffmpeg -version > /dev/null 2>&1") != 0) return;
    dir_ = fs::temp_directory_path() / ("tc_videoio_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const std::string colours =
        "color=c=black:s=64x48:r=15:d=2,format=gbrp,geq=r='8*N':g='255-8*N':b='128'";
    const std::string cmd = "ffmpeg -hide_banner -loglevel error -y -f lavfi -i \"" + colours +
                            "\" -f lavfi -i \"sine=frequency=440:sample_rate=44100:duration=2\" "
                            "-c:v libx264 -g 10 -sc_threshold 0 -pix_fmt yuv420p -c:a aac \"" +
                            path() + "\"";
    ready_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (!ready_) GTEST_SKIP() << "the ffmpeg CLI is needed to generate test media";
  }
  static std::string path() { return (dir_ / "clip.mp4").string(); }
  static std::string bytes() {
    std::ifstream in(path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Which frame a decoded 3 x H x W frame shows (red level / 8).
  static int frame_index(const tc::Tensor& chw) {
    const auto* p = static_cast<const uint8_t*>(chw.data_ptr());
    return int(std::lround(p[0] / 8.0));  // element (0, 0, 0): red of the first pixel
  }
  static inline fs::path dir_;
  static inline bool ready_ = false;
};

TEST_F(VideoReaderTest, SequentialFramesHavePtsAndContent) {
  VideoReader reader(path());
  int i = 0;
  while (auto f = reader.next()) {
    ASSERT_EQ(f->data.sizes(), (tc::Shape{3, 48, 64}));
    EXPECT_EQ(f->data.dtype(), tc::DType::UInt8);
    EXPECT_NEAR(f->pts, i / 15.0, 1e-9);
    const auto* p = static_cast<const uint8_t*>(f->data.data_ptr());
    const auto st = f->data.strides();
    const int at = 20 * int(st[1]) + 30 * int(st[2]);  // pixel (20, 30)
    EXPECT_NEAR(p[at], 8 * i, 6);
    EXPECT_NEAR(p[at + st[0]], 255 - 8 * i, 6);
    EXPECT_NEAR(p[at + 2 * st[0]], 128, 6);
    ++i;
  }
  EXPECT_EQ(i, 30);
  EXPECT_FALSE(reader.next().has_value());
}

TEST_F(VideoReaderTest, ExactSeekLandsOnFirstFrameAtOrAfterT) {
  VideoReader reader(path());
  for (double t : {1.0, 0.71, 0.0, 1.9, 0.34, 29 / 15.0}) {
    reader.seek(t);
    auto f = reader.next();
    ASSERT_TRUE(f.has_value()) << t;
    const int want = int(std::ceil(t * 15 - 1e-9));
    EXPECT_NEAR(f->pts, want / 15.0, 1e-9) << t;
    EXPECT_EQ(frame_index(f->data), want) << t;
  }
}

TEST_F(VideoReaderTest, SeekPastEndYieldsNothing) {
  VideoReader reader(path());
  reader.seek(2.5);
  EXPECT_FALSE(reader.next().has_value());
  reader.seek(29 / 15.0 + 1e-3);
  EXPECT_FALSE(reader.next().has_value());
  reader.seek(50.0, /*keyframes_only=*/true);
  EXPECT_FALSE(reader.next().has_value());
  reader.seek(0.0);
  EXPECT_TRUE(reader.next().has_value());
}

TEST_F(VideoReaderTest, KeyframeSeekGoesToNearestKeyframe) {
  VideoReader reader(path());
  reader.seek(0.75, /*keyframes_only=*/true);  // keyframes every 10 frames: 0, 0.667, 1.333
  auto f = reader.next();
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->pts, 10 / 15.0, 1e-9);
  reader.seek(1.1, true);
  EXPECT_NEAR(reader.next()->pts, 20 / 15.0, 1e-9);
}

TEST_F(VideoReaderTest, MemorySourceMatchesFile) {
  VideoReader a(path());
  VideoReader b(MediaSource::memory(bytes()));
  b.seek(0.5);
  a.seek(0.5);
  for (int k = 0; k < 5; ++k) {
    auto fa = a.next(), fb = b.next();
    ASSERT_TRUE(fa && fb);
    EXPECT_EQ(fa->pts, fb->pts);
    EXPECT_EQ(std::memcmp(fa->data.data_ptr(), fb->data.data_ptr(), 64 * 48 * 3), 0);
  }
}

TEST_F(VideoReaderTest, AudioFramesArePlanarFloat) {
  VideoReader reader(path(), {"audio", 1});
  auto info = reader.current_stream_info();
  EXPECT_EQ(info.sample_rate, 44100);
  EXPECT_EQ(info.channels, 1);
  int64_t total = 0;
  double expected_pts = 0;
  while (auto f = reader.next()) {
    ASSERT_EQ(f->data.dim(), 2);
    EXPECT_EQ(f->data.size(1), 1);  // samples x channels
    EXPECT_EQ(f->data.dtype(), tc::DType::Float32);
    EXPECT_NEAR(f->pts, expected_pts, 1e-9);
    expected_pts += f->data.size(0) / 44100.0;
    total += f->data.size(0);
  }
  EXPECT_GE(total, 88200);
  reader.seek(1.0);
  auto f = reader.next();
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->pts, 1.0, 1e-9);
}

TEST_F(VideoReaderTest, StreamsAndMetadata) {
  VideoReader reader(path());
  const auto streams = reader.streams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].type, "video");
  EXPECT_EQ(streams[0].codec, "h264");
  EXPECT_DOUBLE_EQ(streams[0].fps, 15.0);
  EXPECT_NEAR(streams[0].duration, 2.0, 1e-6);
  EXPECT_EQ(streams[1].type, "audio");
  EXPECT_EQ(streams[1].sample_rate, 44100);
  reader.set_current_stream("audio");
  EXPECT_EQ(reader.current_stream(), "audio");
  EXPECT_THROW(reader.set_current_stream("video:1"), tc::ValueError);
  EXPECT_THROW(VideoReader(path(), {"subtitles", 0}), tc::ValueError);
}

TEST_F(VideoReaderTest, ReadVideoClip) {
  auto clip = tc::io::read_video(MediaSource::file(path()), 0.5, 1.0);
  // torchvision's rule: frames 8..15, and frame 7 since none lies on 0.5 s itself.
  ASSERT_EQ(clip.video.sizes(), (tc::Shape{9, 48, 64, 3}));
  EXPECT_EQ(clip.video_pts.front(), 7 / 15.0);
  EXPECT_NEAR(clip.video.data<uint8_t>()[0], 8 * 7, 6);
  tc::io::ReadVideoOptions strict;
  strict.preceding_frame = false;
  auto strict_clip = tc::io::read_video(MediaSource::file(path()), 0.5, 1.0, strict);
  ASSERT_EQ(strict_clip.video.sizes(), (tc::Shape{8, 48, 64, 3}));  // frames 8..15
  EXPECT_EQ(strict_clip.video_pts.front(), 8 / 15.0);
  EXPECT_EQ(clip.audio.sizes(), (tc::Shape{1, 22051}));  // samples 22050..44100
  EXPECT_EQ(*clip.video_fps, 15.0);
  EXPECT_EQ(*clip.audio_fps, 44100.0);
}

TEST_F(VideoReaderTest, CorruptInputThrowsDecodeError) {
  EXPECT_THROW(VideoReader(MediaSource::memory(std::string())), tc::DecodeError);
  EXPECT_THROW(VideoReader(MediaSource::memory(std::string(5000, '\x42'))), tc::DecodeError);
  EXPECT_THROW(VideoReader("/nonexistent/file.mp4"), tc::DecodeError);
  std::string cut = bytes();
  cut.resize(cut.size() / 2);  // the index (moov) is at the end
  EXPECT_THROW(VideoReader(MediaSource::memory(cut)), tc::DecodeError);
}

TEST_F(VideoReaderTest, SeekAheadWithinGopDecodesOn) {
  // Keyframes every 10 frames (0, 10, 20): from frame 1, frames 4 and 8 are reached by decoding
  // on, frame 23 by a demuxer seek to keyframe 20, frame 2 (backwards) by another. (Frame 13
  // would be decoded on: releasing frame 8 past the B-frame delay already decoded keyframe 10.)
  VideoReader reader(path());
  reader.seek(1 / 15.0);
  ASSERT_EQ(frame_index(reader.next()->data), 1);
  const int64_t seeks = reader.demuxer_seek_count();
  for (int i : {4, 8}) {
    reader.seek(i / 15.0);
    auto f = reader.next();
    ASSERT_TRUE(f.has_value());
    EXPECT_NEAR(f->pts, i / 15.0, 1e-9);
    EXPECT_EQ(frame_index(f->data), i);
  }
  EXPECT_EQ(reader.demuxer_seek_count(), seeks);
  for (int i : {23, 2}) {
    reader.seek(i / 15.0);
    auto f = reader.next();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(frame_index(f->data), i);
  }
  EXPECT_EQ(reader.demuxer_seek_count(), seeks + 2);
  // Ahead past the last frame: nothing, and the reader still seeks afterwards.
  reader.seek(5.0);
  EXPECT_FALSE(reader.next().has_value());
  reader.seek(0.0);
  EXPECT_EQ(frame_index(reader.next()->data), 0);
}

TEST_F(VideoReaderTest, TruncatedInputThrowsWhenReadingReachesTheCut) {
  // Index first, then cut: the frames before the cut decode, then DecodeError.
  const fs::path fast = dir_ / "fast.mp4";
  const std::string cmd = "ffmpeg -hide_banner -loglevel error -y -i \"" + path() +
                          "\" -c copy -movflags +faststart \"" + fast.string() + "\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(fast, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string cut = ss.str();
  cut.resize(cut.size() * 7 / 10);
  VideoReader reader(MediaSource::memory(cut));
  int frames = 0;
  try {
    while (reader.next()) ++frames;
    FAIL() << "no error at the cut";
  } catch (const tc::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  EXPECT_GT(frames, 0);
  EXPECT_LT(frames, 30);
}

TEST_F(VideoReaderTest, AdvisoryAviFrameCountIsNotATruncation) {
  // ffmpeg's AVI muxer declares one frame more than it writes when re-encoding this clip to
  // MPEG-4 + MP3; only a genuinely cut file is truncated.
  const fs::path avi = dir_ / "reencoded.avi";
  const std::string cmd = "ffmpeg -hide_banner -loglevel error -y -i \"" + path() +
                          "\" -c:v mpeg4 -c:a libmp3lame \"" + avi.string() + "\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  VideoReader reader(avi.string());
  int frames = 0;
  EXPECT_NO_THROW(while (reader.next())++ frames);
  EXPECT_GE(frames, 29);
  EXPECT_GE(reader.current_stream_info().num_frames, frames);
  reader.set_current_stream("audio");
  int64_t samples = 0;
  while (auto f = reader.next()) samples += f->data.size(0);
  // 2 s of audio plus the AAC source's and the MP3 encoder's padding (a few frames).
  EXPECT_GE(samples, 2 * 44100);
  EXPECT_LE(samples, 2 * 44100 + 4 * 1152);
}

TEST_F(VideoReaderTest, AudioFramesAreSamplesByChannelsOrChannelsFirst) {
  VideoReader nc(path(), {"audio", 0});
  VideoReader cn(path(), {"audio", 0, /*audio_channels_first=*/true});
  auto a = nc.next(), b = cn.next();
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->data.dim(), 2);
  EXPECT_EQ(a->data.size(1), 1);  // mono
  EXPECT_EQ(a->data.size(0), b->data.size(1));
  for (int64_t i = 0; i < a->data.size(0); ++i) {
    ASSERT_EQ(a->data.data<float>()[i], b->data.data<float>()[i]);
  }
}

TEST_F(VideoReaderTest, AverageFrameRateIsMeasured) {
  VideoReader reader(path());
  const auto first = reader.next();
  EXPECT_DOUBLE_EQ(reader.average_frame_rate(0), 15.0);
  EXPECT_DOUBLE_EQ(reader.current_stream_info().nominal_fps, 15.0);
  EXPECT_TRUE(std::isnan(reader.average_frame_rate(1)));  // the audio stream
  EXPECT_THROW(reader.average_frame_rate(7), tc::IndexError);
  // The measurement runs on its own demuxer: the reader goes on where it was.
  EXPECT_EQ(frame_index(reader.next()->data), 1);
}

}  // namespace
