// read_video: a clip [start, end] of the first video stream as T x H x W x 3 and the matching
// span of the first audio stream as C x N.
#include <cmath>
#include <cstring>

#include "io/video.h"
#include "io/video/ffmpeg_util.h"
#include "tensorcore/ops/creation.h"

namespace tc::io {

namespace {

bool has_stream(const std::vector<StreamInfo>& streams, const char* type) {
  for (const auto& s : streams) {
    if (s.type == type) return true;
  }
  return false;
}

// Frames are converted straight into one growing T x H x W x 3 buffer (sized from the stream's
// fps and duration, doubled when short), so the clip is never copied frame by frame.
class ClipBuffer {
 public:
  explicit ClipBuffer(int64_t capacity) : capacity_(std::max<int64_t>(capacity, 1)) {}

  Tensor slot(int64_t h, int64_t w) {
    if (!storage_) {
      h_ = h;
      w_ = w;
      allocate(capacity_);
    } else if (h != h_ || w != w_) {
      throw DecodeError(detail::concat("read_video: frame size changed from ", h_, "x", w_, " to ",
                                       h, "x", w,
                                       "; read such files frame by frame with VideoReader"));
    }
    if (count_ == capacity_) allocate(capacity_ * 2);
    return make_tensor(storage_, {h, w, 3}, {w * 3, 3, 1}, count_ * frame_bytes(), DType::UInt8);
  }
  void commit() { ++count_; }

  Tensor finish() {
    if (count_ == 0) return empty({0, 1, 1, 3}, TensorOptions(DType::UInt8));
    Tensor out = make_tensor(storage_, {count_, h_, w_, 3}, contiguous_strides({count_, h_, w_, 3}),
                             0, DType::UInt8);
    // A generous estimate would pin unused memory: trim when over a quarter is spare.
    if (capacity_ > count_ + count_ / 4 + 2) {
      Tensor exact = empty({count_, h_, w_, 3}, TensorOptions(DType::UInt8));
      std::memcpy(exact.data_ptr(), out.data_ptr(), size_t(count_ * frame_bytes()));
      return exact;
    }
    return out;
  }

 private:
  int64_t frame_bytes() const { return h_ * w_ * 3; }
  void allocate(int64_t capacity) {
    Storage bigger =
        make_storage(size_t(capacity * frame_bytes()) + VideoReader::kFramePadding, Device());
    if (storage_ && count_ > 0) {
      std::memcpy(bigger->data(), storage_->data(), size_t(count_ * frame_bytes()));
    }
    storage_ = std::move(bigger);
    capacity_ = capacity;
  }

  int64_t capacity_;
  int64_t count_ = 0, h_ = 0, w_ = 0;
  Storage storage_;
};

int64_t estimate_frames(const StreamInfo& info, double start, double end) {
  if (std::isnan(info.fps) || info.fps <= 0 || std::isnan(info.duration)) return 16;
  const double span =
      std::min(end, info.start_time + info.duration) - std::max(start, info.start_time);
  return std::clamp<int64_t>(int64_t(std::ceil(std::max(span, 0.0) * info.fps)) + 2, 1, 1 << 16);
}

void read_video_frames(VideoReader& reader, double start, double end, VideoClip& clip) {
  const StreamInfo& info = reader.current_stream_info();
  clip.video_time_base_num = info.time_base_num;
  clip.video_time_base_den = info.time_base_den;
  if (!std::isnan(info.fps)) clip.video_fps = info.fps;
  ClipBuffer buffer(estimate_frames(info, start, end));
  reader.set_video_layout(VideoReader::VideoLayout::HWC);
  reader.set_frame_allocator([&buffer](int64_t h, int64_t w) { return buffer.slot(h, w); });
  if (start > info.start_time) reader.seek(start);
  // Compared in ticks with the same slack as seek(), so a pts read back from a frame selects it.
  const double tb = double(info.time_base_num) / double(info.time_base_den);
  const double end_ticks = std::floor(end / tb + 1e-3);
  while (auto f = reader.next()) {
    if (double(f->timestamp) > end_ticks) break;
    clip.video_timestamps.push_back(f->timestamp);
    clip.video_pts.push_back(f->pts);
    buffer.commit();
  }
  reader.set_frame_allocator(nullptr);
  reader.set_video_layout(VideoReader::VideoLayout::CHW);
  clip.video = buffer.finish();
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
    throw DecodeError(
        detail::concat("read_video: ", source.describe(), " has no video or audio stream"));
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
