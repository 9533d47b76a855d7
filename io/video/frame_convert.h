#pragma once
// Decoded AVFrame -> tensor conversion: swscale straight into the tensor's memory for video (packed
// RGB), swresample to planar float for audio. Contexts are cached and rebuilt only when the input
// format changes.
#include "io/video/ffmpeg_util.h"

namespace tc::io::detail {

class VideoConverter {
 public:
  // RGB24 pixels, returned as H x W x 3 (channels_last) or as a 3 x H x W view of them.
  // `allocator` (optional, channels_last only) supplies the destination.
  Tensor convert(const AVFrame* frame, bool channels_last, const std::string& source,
                 const VideoReader::FrameAllocator* allocator = nullptr);

 private:
  SwsPtr sws_;
  int width_ = 0, height_ = 0, format_ = -1, colorspace_ = -1, range_ = -1;
};

// How audio frames come out: samples x channels (torchvision's layout) or channels x samples,
// in float32 scaled to [-1, 1] or in the stream's own sample dtype (int16 for 16-bit PCM, ...).
struct AudioLayout {
  bool channels_first = false;
  bool native_dtype = false;
};

class AudioConverter {
 public:
  AudioConverter() = default;
  AudioConverter(const AudioConverter&) = delete;
  AudioConverter& operator=(const AudioConverter&) = delete;
  ~AudioConverter() { av_channel_layout_uninit(&layout_); }
  // The frame's samples from `skip` on: (N - skip) x C, or C x (N - skip) when channels_first.
  Tensor convert(const AVFrame* frame, int64_t skip, const std::string& source,
                 const AudioLayout& layout);

 private:
  void convert_with_swr(const AVFrame* f, AVSampleFormat out_fmt, int64_t skip, uint8_t* dst,
                        const std::string& source);
  SwrPtr swr_;
  int format_ = -1, out_format_ = -1, rate_ = 0;
  AVChannelLayout layout_{};
};

}  // namespace tc::io::detail
