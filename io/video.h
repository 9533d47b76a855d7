#pragma once
// Video and audio decoding into tensors over FFmpeg (libavformat/libavcodec/libswscale/
// libswresample). tc::io::VideoReader walks one stream of a file or an in-memory buffer frame by
// frame and seeks frame-exactly; read_video() decodes a whole clip. FFmpeg types stay private.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::io {

// Where the media comes from: a file path, or encoded bytes held in memory (shared, not copied
// again by the readers that use them).
class MediaSource {
 public:
  static MediaSource file(std::string path);
  static MediaSource memory(std::string bytes);
  static MediaSource memory(std::shared_ptr<const std::string> bytes);

  bool is_memory() const { return bytes_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::shared_ptr<const std::string>& bytes() const { return bytes_; }
  std::string describe() const;  // the path, or "<N bytes in memory>"

 private:
  std::string path_;
  std::shared_ptr<const std::string> bytes_;
};

struct VideoReaderOptions {
  // "video", "audio", or "video:N" / "audio:N" for the N-th stream of that type.
  std::string stream = "video";
  // Decoder threads; 0 lets FFmpeg pick (one per core).
  int num_threads = 0;
  // Audio frames are N x C (samples x channels, torchvision's layout) unless this is set, which
  // gives C x N (this library's layout before issue 24).
  bool audio_channels_first = false;
  // Audio samples in the stream's own dtype (uint8/int16/int32/int64/float32/float64, as PyAV
  // and torchvision.io.read_video return them) instead of float32 scaled to [-1, 1].
  bool audio_native_dtype = false;
};

// One decoded frame. Video: 3 x H x W uint8 RGB, a channels-first view of packed H x W x 3
// memory (as torchvision returns it; .contiguous() for planar). Audio: N x C float32 (see
// VideoReaderOptions for C x N and the stream's own sample dtype).
struct MediaFrame {
  Tensor data;
  double pts = 0;         // presentation time in seconds (best-effort timestamp * time base)
  int64_t timestamp = 0;  // the same in stream time-base ticks
  double duration = 0;    // seconds; 0 when the container does not say
};

struct StreamInfo {
  std::string type;      // "video", "audio", "subtitle", "data", ...
  int index = 0;         // position among the streams of the same type ("video:index")
  int stream_index = 0;  // position in the container
  std::string codec;     // FFmpeg decoder name; empty when no decoder is available
  int64_t time_base_num = 0, time_base_den = 1;
  double start_time = 0;                                       // seconds
  double duration = std::numeric_limits<double>::quiet_NaN();  // seconds, NaN if unknown
  int64_t num_frames = 0;  // as the container declares it (0 when unknown)
  // Video frame rates. fps: FFmpeg's average rate (avg_frame_rate: frame count over duration
  // where the container indexes every frame, else the container's declared rate), what
  // torchvision's read_video reports. nominal_fps: the stream's nominal rate as FFmpeg guesses
  // it (av_guess_frame_rate: the container's declared rate, or the finest rate the timestamps
  // fit), what torchvision's VideoReader.get_metadata() reports. They differ for
  // variable-frame-rate files; VideoReader::average_frame_rate() measures the true average.
  double fps = std::numeric_limits<double>::quiet_NaN();
  double nominal_fps = std::numeric_limits<double>::quiet_NaN();
  int64_t width = 0, height = 0;                                  // video
  double sample_rate = std::numeric_limits<double>::quiet_NaN();  // audio
  int64_t channels = 0;                                           // audio
};

class VideoReader {
 public:
  explicit VideoReader(const std::string& path, VideoReaderOptions opts = {});
  explicit VideoReader(MediaSource source, VideoReaderOptions opts = {});
  ~VideoReader();
  VideoReader(VideoReader&&) noexcept;
  VideoReader& operator=(VideoReader&&) noexcept;

  // The next frame of the current stream, or nullopt at the end. Throws DecodeError on corrupt
  // data.
  std::optional<MediaFrame> next();
  // Positions the reader so next() returns the first frame whose pts >= t seconds (audio: the
  // samples from t on). With keyframes_only it jumps to the keyframe nearest t instead, which is
  // faster but not exact. Past the end of the stream, next() returns nothing.
  void seek(double t, bool keyframes_only = false);
  // Switches to another stream ("audio", "video:1", ...) and rewinds to its start.
  void set_current_stream(const std::string& stream);
  const std::string& current_stream() const;
  const StreamInfo& current_stream_info() const;

  std::vector<StreamInfo> streams() const;
  double container_duration() const;  // seconds, NaN if unknown
  // The measured average frame rate of a video stream (its position in the container):
  // (frames - 1) / (last pts - first pts), from the packet timestamps of a demux pass over the
  // whole input (no decoding; done once, on a separate demuxer, and cached). NaN with fewer
  // than two timestamped frames.
  double average_frame_rate(int stream_index) const;
  // How often the demuxer has been repositioned (seeks, rewinds); for tests and diagnostics.
  int64_t demuxer_seek_count() const;
  // How many packets exact seeks left out undecoded (non-reference H.264 pictures before the
  // target); for tests and diagnostics.
  int64_t disposed_packet_count() const;

  // Low-level switches used by read_video: frames as H x W x 3 (packed RGB), or no pixel
  // conversion at all (data left undefined; for timestamp scans).
  enum class VideoLayout { CHW, HWC, None };
  void set_video_layout(VideoLayout layout);
  // HWC frames are written into tensors from this callback (height, width) instead of fresh
  // ones: read_video stacks a clip in place with it. It must return a contiguous H x W x 3
  // uint8 tensor followed by kFramePadding writable bytes (swscale's SIMD rows run past it).
  using FrameAllocator = std::function<Tensor(int64_t height, int64_t width)>;
  void set_frame_allocator(FrameAllocator allocator);
  static constexpr size_t kFramePadding = 128;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

struct VideoClip {
  // Empty results have torchvision's shapes: video 0 x 1 x 1 x 3, audio 1 x 0.
  Tensor video;                           // T x H x W x 3 uint8
  Tensor audio;                           // C x N (float32, or the stream's dtype)
  std::vector<int64_t> video_timestamps;  // ticks of the video stream's time base
  std::vector<double> video_pts;          // seconds
  int64_t video_time_base_num = 0, video_time_base_den = 1;
  std::optional<double> video_fps;
  std::optional<double> audio_fps;  // sample rate
};

struct ReadVideoOptions {
  bool with_video = true;
  bool with_audio = true;
  // torchvision's clip rule (its pyav backend, which its clip samplers rely on): when no frame's
  // pts equals start and start > 0, the last frame before start is returned first. False gives
  // the strict [start, end] rule of torchvision's video_reader backend.
  bool preceding_frame = true;
  // Audio in the stream's own sample dtype (int16 for 16-bit PCM, float32 for float codecs), as
  // torchvision returns it; false converts to float32 scaled to [-1, 1].
  bool audio_native_dtype = true;
  // Bounds given in ticks of the video stream's time base (pts_unit="pts"): compared exactly.
  // Otherwise seconds, converted to ticks as torchvision does (start rounded down, end up).
  bool bounds_in_ticks = false;
};

// Decodes the frames of the first video stream whose pts lies in [start, end] (see
// ReadVideoOptions::preceding_frame), and the audio samples of the first audio stream whose time
// lies in [start, end] seconds (to the end of the audio when end is infinite).
VideoClip read_video(const MediaSource& source, double start = 0,
                     double end = std::numeric_limits<double>::infinity(),
                     const ReadVideoOptions& options = {});

}  // namespace tc::io
