#include "io/video/ffmpeg_util.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tc::io {

MediaSource MediaSource::file(std::string path) {
  MediaSource s;
  s.path_ = std::move(path);
  return s;
}

MediaSource MediaSource::memory(std::string bytes) {
  return memory(std::make_shared<const std::string>(std::move(bytes)));
}

MediaSource MediaSource::memory(std::shared_ptr<const std::string> bytes) {
  TC_CHECK(bytes != nullptr, "VideoReader: in-memory source is null");
  MediaSource s;
  s.bytes_ = std::move(bytes);
  return s;
}

std::string MediaSource::describe() const {
  if (is_memory()) return detail::concat("<", bytes_->size(), " bytes in memory>");
  return "'" + path_ + "'";
}

namespace detail {

std::string av_error_text(int err) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
  if (av_strerror(err, buf, sizeof(buf)) < 0) return concat("FFmpeg error ", err);
  return buf;
}

void throw_av_error(const std::string& what, const std::string& source, int err) {
  throw DecodeError(concat("VideoReader: ", what, " (", source, "): ", av_error_text(err)));
}

FramePtr make_frame() {
  FramePtr f(av_frame_alloc());
  if (!f) throw std::bad_alloc();
  return f;
}

PacketPtr make_packet() {
  PacketPtr p(av_packet_alloc());
  if (!p) throw std::bad_alloc();
  return p;
}

namespace {

// FFmpeg logs every recoverable glitch to stderr; errors reach users as exceptions instead.
// TC_FFMPEG_LOG=1 keeps FFmpeg's own logging for debugging.
void quiet_ffmpeg_logging() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* keep = std::getenv("TC_FFMPEG_LOG");
    if (!keep || std::strcmp(keep, "1") != 0) av_log_set_level(AV_LOG_FATAL);
  });
}

int read_memory(void* opaque, uint8_t* buf, int size) {
  auto* c = static_cast<Demuxer::MemoryCursor*>(opaque);
  const int64_t total = int64_t(c->bytes->size());
  if (c->pos >= total) return AVERROR_EOF;
  const int64_t n = std::min<int64_t>(size, total - c->pos);
  std::memcpy(buf, c->bytes->data() + c->pos, size_t(n));
  c->pos += n;
  return int(n);
}

int64_t seek_memory(void* opaque, int64_t offset, int whence) {
  auto* c = static_cast<Demuxer::MemoryCursor*>(opaque);
  const int64_t total = int64_t(c->bytes->size());
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE) return total;
  int64_t target;
  switch (whence) {
    case SEEK_SET:
      target = offset;
      break;
    case SEEK_CUR:
      target = c->pos + offset;
      break;
    case SEEK_END:
      target = total + offset;
      break;
    default:
      return AVERROR(EINVAL);
  }
  if (target < 0 || target > total) return AVERROR(EINVAL);
  c->pos = target;
  return target;
}

}  // namespace

Demuxer open_demuxer(const MediaSource& source) {
  quiet_ffmpeg_logging();
  Demuxer d;
  d.name = source.describe();
  AVFormatContext* raw = avformat_alloc_context();
  if (!raw) throw std::bad_alloc();
  if (source.is_memory()) {
    TC_CHECK_AS(DecodeError, !source.bytes()->empty(), "VideoReader: the input is empty (0 bytes)");
    d.cursor = std::make_unique<Demuxer::MemoryCursor>();
    d.cursor->bytes = source.bytes();
    constexpr int kBufferSize = 1 << 16;
    auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferSize));
    if (!buffer) {
      avformat_free_context(raw);
      throw std::bad_alloc();
    }
    d.avio.reset(avio_alloc_context(buffer, kBufferSize, 0, d.cursor.get(), read_memory, nullptr,
                                    seek_memory));
    if (!d.avio) {
      av_free(buffer);
      avformat_free_context(raw);
      throw std::bad_alloc();
    }
    raw->pb = d.avio.get();
    raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  }
  // On failure avformat_open_input frees the context itself.
  const char* url = source.is_memory() ? nullptr : source.path().c_str();
  int err = avformat_open_input(&raw, url, nullptr, nullptr);
  if (err < 0) throw_av_error("cannot open input", d.name, err);
  d.fmt.reset(raw);
  err = avformat_find_stream_info(d.fmt.get(), nullptr);
  if (err < 0) throw_av_error("cannot read stream information", d.name, err);
  return d;
}

}  // namespace detail
}  // namespace tc::io
