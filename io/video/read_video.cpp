// read_video: a clip [start, end] of the first video stream as T x H x W x 3 and the matching
// span of the first audio stream as C x N.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

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
  // The frame just written to slot(count) replaces the last committed one.
  void move_pending_to_last() {
    auto* base = static_cast<uint8_t*>(storage_->data());
    std::memcpy(base + (count_ - 1) * frame_bytes(), base + count_ * frame_bytes(),
                size_t(frame_bytes()));
  }
  void clear() { count_ = 0; }

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

// The clip's bounds in ticks of the video time base.
struct TickBounds {
  double start, end;
};

TickBounds tick_bounds(double start, double end, double tb, const ReadVideoOptions& opts) {
  if (opts.bounds_in_ticks) return {start, end};
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (opts.preceding_frame) {
    // torchvision: floor(start / time_base), ceil(end / time_base); the slack absorbs the
    // rounding of seconds that are exact tick multiples.
    return {std::floor(start / tb + 1e-3), std::isinf(end) ? kInf : std::ceil(end / tb - 1e-3)};
  }
  // Strict rule: the same slack as seek(), so a pts read back from a frame selects that frame.
  return {std::ceil(start / tb - 1e-3), std::isinf(end) ? kInf : std::floor(end / tb + 1e-3)};
}

void read_video_frames(VideoReader& reader, const TickBounds& bounds, const ReadVideoOptions& opts,
                       VideoClip& clip) {
  const StreamInfo& info = reader.current_stream_info();
  clip.video_time_base_num = info.time_base_num;
  clip.video_time_base_den = info.time_base_den;
  if (!std::isnan(info.fps)) clip.video_fps = info.fps;
  const double tb = double(info.time_base_num) / double(info.time_base_den);
  const double start_s = bounds.start * tb;
  ClipBuffer buffer(estimate_frames(info, start_s, bounds.end * tb));
  reader.set_video_layout(VideoReader::VideoLayout::HWC);
  reader.set_frame_allocator([&buffer](int64_t h, int64_t w) { return buffer.slot(h, w); });
  // torchvision's rule wants the last frame before start when none lies on it, so reading
  // starts a few frames earlier, and further back when no frame precedes there (a gap in a
  // variable-rate file, or a start past the last frame).
  const bool want_preceding = opts.preceding_frame && bounds.start > 0;
  const double frame_s = (!std::isnan(info.fps) && info.fps > 0) ? 1.0 / info.fps : 0.04;
  for (double lead = want_preceding ? 2 * frame_s : 0;; lead *= 4) {
    buffer.clear();
    clip.video_timestamps.clear();
    clip.video_pts.clear();
    const double from = start_s - lead;
    if (from > info.start_time || want_preceding) reader.seek(from);
    std::optional<std::pair<int64_t, double>> preceding;  // held in slot 0 while set
    bool in_range = false;
    while (auto f = reader.next()) {
      const double ts = double(f->timestamp);
      if (ts > bounds.end) break;
      if (ts < bounds.start) {
        if (!want_preceding) continue;  // its slot is reused by the next frame
        // Only the last frame before start is kept, in slot 0.
        if (preceding) {
          buffer.move_pending_to_last();
        } else {
          buffer.commit();
        }
        preceding = std::make_pair(f->timestamp, f->pts);
        continue;
      }
      if (!in_range && preceding && ts == bounds.start) {
        // A frame lies on start itself: it takes the preceding frame's place.
        buffer.move_pending_to_last();
        preceding.reset();
      } else {
        buffer.commit();
      }
      in_range = true;
      clip.video_timestamps.push_back(f->timestamp);
      clip.video_pts.push_back(f->pts);
    }
    const bool on_start =
        !clip.video_timestamps.empty() && double(clip.video_timestamps.front()) == bounds.start;
    if (preceding) {
      clip.video_timestamps.insert(clip.video_timestamps.begin(), preceding->first);
      clip.video_pts.insert(clip.video_pts.begin(), preceding->second);
    }
    if (!want_preceding || preceding || on_start || from <= info.start_time) break;
  }
  reader.set_frame_allocator(nullptr);
  reader.set_video_layout(VideoReader::VideoLayout::CHW);
  clip.video = buffer.finish();
}

// Audio frames come as N x C in the requested dtype; the clip is C x N.
void read_audio_samples(VideoReader& reader, double start, double end, VideoClip& clip) {
  const StreamInfo& info = reader.current_stream_info();
  if (!std::isnan(info.sample_rate)) clip.audio_fps = info.sample_rate;
  if (start > info.start_time) reader.seek(start);
  std::vector<std::pair<Tensor, int64_t>> chunks;  // frame, samples kept
  int64_t total = 0, channels = -1;
  std::optional<DType> dtype;
  while (auto f = reader.next()) {
    const int64_t n = f->data.size(0);
    if (f->pts > end) break;
    // Keep the samples whose time lies in [start, end].
    int64_t keep = n;
    if (std::isfinite(end) && f->duration > 0) {
      const double sr = clip.audio_fps.value_or(double(n) / f->duration);
      keep = int64_t(std::min<double>(double(n), std::floor((end - f->pts) * sr + 1e-6) + 1));
    }
    if (channels >= 0 && f->data.size(1) != channels) {
      throw DecodeError(detail::concat("read_video: audio channel count changed from ", channels,
                                       " to ", f->data.size(1), " at ", f->pts, " s"));
    }
    if (dtype && f->data.dtype() != *dtype) {
      throw DecodeError(detail::concat("read_video: audio sample format changed from ",
                                       dtype_name(*dtype), " to ", dtype_name(f->data.dtype()),
                                       " at ", f->pts, " s; read it with audio_dtype=float32"));
    }
    channels = f->data.size(1);
    dtype = f->data.dtype();
    if (keep <= 0) break;
    total += keep;
    chunks.emplace_back(f->data, keep);
    if (keep < n) break;
  }
  if (chunks.empty()) {
    clip.audio = empty({1, 0}, TensorOptions(dtype.value_or(DType::Float32)));
    return;
  }
  const size_t size = itemsize(*dtype);
  clip.audio = empty({channels, total}, TensorOptions(*dtype));
  auto* dst = static_cast<uint8_t*>(clip.audio.data_ptr());
  int64_t at = 0;
  for (const auto& [chunk, n] : chunks) {
    const auto* src = static_cast<const uint8_t*>(chunk.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t ch = 0; ch < channels; ++ch) {
        std::memcpy(dst + size_t(ch * total + at + i) * size,
                    src + size_t(i * channels + ch) * size, size);
      }
    }
    at += n;
  }
}

}  // namespace

VideoClip read_video(const MediaSource& source, double start, double end,
                     const ReadVideoOptions& options) {
  TC_CHECK(!std::isnan(start) && !std::isnan(end), "read_video: start and end must be numbers");
  TC_CHECK(end >= start, "read_video: end_pts (", end, ") must be >= start_pts (", start, ")");
  VideoClip clip;
  clip.video = empty({0, 1, 1, 3}, TensorOptions(DType::UInt8));
  clip.audio = empty({1, 0}, TensorOptions(DType::Float32));
  // One demuxer serves both streams: open on video (or audio when there is none), then switch.
  VideoReaderOptions reader_opts;
  reader_opts.audio_native_dtype = options.audio_native_dtype;
  std::optional<VideoReader> reader;
  for (const char* stream : {"video", "audio"}) {
    try {
      reader_opts.stream = stream;
      reader.emplace(source, reader_opts);
      break;
    } catch (const ValueError&) {  // no such stream
    }
  }
  if (!reader) {
    throw DecodeError(
        detail::concat("read_video: ", source.describe(), " has no video or audio stream"));
  }
  const std::vector<StreamInfo> streams = reader->streams();
  const bool has_video = has_stream(streams, "video");
  TC_CHECK(has_video || !options.bounds_in_ticks,
           "read_video: pts_unit='pts' needs a video stream to define the time base");
  double start_s = start, end_s = end;
  if (has_video) {
    if (reader->current_stream_info().type != "video") reader->set_current_stream("video");
    const StreamInfo& info = reader->current_stream_info();
    const double tb = double(info.time_base_num) / double(info.time_base_den);
    if (options.bounds_in_ticks) {
      start_s = start * tb;
      end_s = end * tb;
    }
    if (options.with_video)
      read_video_frames(*reader, tick_bounds(start, end, tb, options), options, clip);
  }
  if (options.with_audio && has_stream(streams, "audio")) {
    reader->set_current_stream("audio");
    read_audio_samples(*reader, start_s, end_s, clip);
  }
  return clip;
}

}  // namespace tc::io
