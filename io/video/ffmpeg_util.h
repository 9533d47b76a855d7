#pragma once
// RAII owners for FFmpeg objects and the error helpers the video readers share. Every FFmpeg
// object the readers create is held by one of these, so an exception never leaks one.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
}

#include <memory>
#include <string>

#include "io/video.h"
#include "tensorcore/core/error.h"

namespace tc::io::detail {

using ::tc::detail::concat;

struct FormatContextDeleter {
  void operator()(AVFormatContext* p) const { avformat_close_input(&p); }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* p) const { avcodec_free_context(&p); }
};
struct FrameDeleter {
  void operator()(AVFrame* p) const { av_frame_free(&p); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* p) const { sws_freeContext(p); }
};
struct SwrDeleter {
  void operator()(SwrContext* p) const { swr_free(&p); }
};
// The I/O buffer may have been replaced by libavformat, so free the context's current one.
struct AvioDeleter {
  void operator()(AVIOContext* p) const {
    if (p) av_freep(&p->buffer);
    avio_context_free(&p);
  }
};

using FormatContextPtr = std::unique_ptr<AVFormatContext, FormatContextDeleter>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;
using SwrPtr = std::unique_ptr<SwrContext, SwrDeleter>;
using AvioPtr = std::unique_ptr<AVIOContext, AvioDeleter>;

std::string av_error_text(int err);

// Throws DecodeError("VideoReader: <what> (<source>): <FFmpeg's reason>").
[[noreturn]] void throw_av_error(const std::string& what, const std::string& source, int err);

FramePtr make_frame();
PacketPtr make_packet();

// An opened container: the format context plus, for in-memory input, the AVIOContext reading
// from the shared bytes (declared first so it outlives the format context that uses it).
struct Demuxer {
  struct MemoryCursor {
    std::shared_ptr<const std::string> bytes;
    int64_t pos = 0;
  };
  std::unique_ptr<MemoryCursor> cursor;
  AvioPtr avio;
  FormatContextPtr fmt;
  std::string name;  // for error messages
};

// Opens and probes a container; throws DecodeError when it cannot be read.
Demuxer open_demuxer(const MediaSource& source);

}  // namespace tc::io::detail
