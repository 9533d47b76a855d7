// read_video: a clip [start, end] of the first video stream as T x H x W x 3 and the matching
// span of the first audio stream as C x N.
#include <cmath>
#include <cstring>

#include "tensorcore/io/video.h"
#include "tensorcore/io/video/ffmpeg_util.h"
#include "tensorcore/ops/creation.h"

namespace tc::io {

namespace {

bool has_stream(const std::vector<StreamInfo>& streams, const char* type) {
  for (const auto& s : streams) {
    if (s.type == type) return true;
  }
  return false;
}

void read_video_frames(VideoReader& reader, double start, double end, VideoClip& clip) {
  const StreamInfo& info = reader.current_stream_info();
  clip.video_time_base_num = info.time_base_num;
  clip.video_time_base_den = info.time_base_den;
  if (!std::isnan(info.fps)) clip.video_fps = info.fps;
  reader.set_video_layout(VideoReader::VideoLayout::HWC);
  if (start > info.start_time) reader.seek(start);
  // Compared in ticks with the same slack as seek(), so a pts read back from a frame selects it.
  const double tb = double(info.time_base_num) / double(info.time_base_den);
  const double end_ticks = std::floor(end / tb + 1e-3);
  std::vector<Tensor> frames;
  while (auto f = reader.next()) {
    if (double(f->timestamp) > end_ticks) break;
    if (!frames.empty() && f->data.sizes() != frames.front().sizes()) {
      throw DecodeError(detail::concat("read_video: frame size changed from ",
                                       shape_str(frames.front().sizes()), " to ",
                                       shape_str(f->data.sizes()), " at ", f->pts,
                                       " s; read such files frame by frame with VideoReader"));
    }
    clip.video_timestamps.push_back(f->timestamp);
    clip.video_pts.push_back(f->pts);
    frames.push_back(std::move(f->data));
  }
  if (frames.empty()) {
    clip.video = empty({0, 1, 1, 3}, TensorOptions(DType::UInt8));
    return;
  }
  Shape sizes = frames.front().sizes();
  sizes.insert(sizes.begin(), int64_t(frames.size()));
  clip.video = empty(sizes, TensorOptions(DType::UInt8));
  const size_t frame_bytes = frames.front().nbytes();
  auto* dst = static_cast<uint8_t*>(clip.video.data_ptr());
  for (size_t i = 0; i < frames.size(); ++i) {
    std::memcpy(dst + i * frame_bytes, frames[i].data_ptr(), frame_bytes);
  }
}

void read_audio_samples(VideoReader& reader, double start, double end, VideoClip& clip) {
  const StreamInfo& info = reader.current_stream_info();
  if (!std::isnan(info.sample_rate)) clip.audio_fps = info.sample_rate;
  if (start > info.start_time) reader.seek(start);
  std::vector<Tensor> chunks;
  int64_t total = 0, channels = -1;
  while (auto f = reader.next()) {
    const int64_t n = f->data.size(1);
    if (f->pts > end) break;
    // Keep the samples whose time lies in [start, end].
    int64_t keep = n;
    if (std::isfinite(end) && f->duration > 0) {
      const double sr = clip.audio_fps.value_or(double(n) / f->duration);
      keep = int64_t(std::min<double>(double(n), std::floor((end - f->pts) * sr + 1e-6) + 1));
    }
    if (channels >= 0 && f->data.size(0) != channels) {
      throw DecodeError(detail::concat("read_video: audio channel count changed from ", channels,
                                       " to ", f->data.size(0), " at ", f->pts, " s"));
    }
    channels = f->data.size(0);
    if (keep <= 0) break;
    Tensor chunk = f->data;
    if (keep < n) {
      chunk = empty({channels, keep}, TensorOptions(DType::Float32));
      for (int64_t c = 0; c < channels; ++c) {
        std::memcpy(chunk.data<float>() + c * keep, f->data.data<float>() + c * n,
                    size_t(keep) * sizeof(float));
      }
    }
    total += keep;
    chunks.push_back(std::move(chunk));
    if (keep < n) break;
  }
  if (chunks.empty()) {
    clip.audio = empty({1, 0}, TensorOptions(DType::Float32));
    return;
  }
  clip.audio = empty({channels, total}, TensorOptions(DType::Float32));
  float* dst = clip.audio.data<float>();
  int64_t at = 0;
  for (const Tensor& c : chunks) {
    const int64_t n = c.size(1);
    for (int64_t ch = 0; ch < channels; ++ch) {
      std::memcpy(dst + ch * total + at, c.data<float>() + ch * n, size_t(n) * sizeof(float));
    }
    at += n;
  }
}

}  // namespace

VideoClip read_video(const MediaSource& source, double start, double end, bool with_video,
                     bool with_audio) {
  TC_CHECK(!std::isnan(start) && !std::isnan(end), "read_video: start and end must be numbers");
  TC_CHECK(end >= start, "read_video: end_pts (", end, ") must be >= start_pts (", start, ")");
  VideoClip clip;
  clip.video = empty({0, 1, 1, 3}, TensorOptions(DType::UInt8));
  clip.audio = empty({1, 0}, TensorOptions(DType::Float32));
  // One demuxer serves both streams: open on video (or audio when there is none), then switch.
  std::optional<VideoReader> reader;
  for (const char* stream : {"video", "audio"}) {
    try {
      reader.emplace(source, VideoReaderOptions{stream, 0});
      break;
    } catch (const ValueError&) {  // no such stream
    }
  }
  if (!reader) {
    throw DecodeError(detail::concat("read_video: ", source.describe(),
                                     " has no video or audio stream"));
  }
  const std::vector<StreamInfo> streams = reader->streams();
  if (with_video && has_stream(streams, "video")) {
    if (reader->current_stream_info().type != "video") reader->set_current_stream("video");
    read_video_frames(*reader, start, end, clip);
  }
  if (with_audio && has_stream(streams, "audio")) {
    reader->set_current_stream("audio");
    read_audio_samples(*reader, start, end, clip);
  }
  return clip;
}

}  // namespace tc::io
