#include "io/audio/sox_common.h"

#include <link.h>
#include <pthread.h>

#include <cstring>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"

namespace tc::audio::detail {
namespace {

thread_local std::string t_sox_error;

// libsox reports failures through this callback on the thread that hit them, so a thread-local
// buffer keeps concurrent calls' messages apart. Warnings and chatter are dropped.
void capture_message(unsigned level, const char* /*filename*/, const char* fmt, va_list ap) {
  if (level > 1) return;
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  if (!t_sox_error.empty()) t_sox_error += "; ";
  t_sox_error += buf;
}

std::mutex g_sox_mutex;

// A fork while another thread holds the lock would leave the child's copy locked forever
// (DataLoader workers fork). Taking it around fork keeps the child's copy consistent.
void lock_before_fork() { g_sox_mutex.lock(); }
void unlock_after_fork() { g_sox_mutex.unlock(); }

}  // namespace

std::mutex& sox_mutex() { return g_sox_mutex; }

void ensure_sox_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    sox_globals_t* g = sox_get_globals();
    g->output_message_handler = capture_message;
    g->verbosity = 1;
    g->use_threads = sox_false;  // we parallelize across calls, not inside libsox
    // Idempotent inside libsox (it keeps its own flag), so a torchaudio in the same process is
    // fine.
    sox_format_init();
    pthread_atfork(lock_before_fork, unlock_after_fork, unlock_after_fork);
  });
}

namespace {
int find_torchaudio(struct dl_phdr_info* info, size_t, void* found) {
  if (info->dlpi_name && std::strstr(info->dlpi_name, "libtorchaudio"))
    *static_cast<bool*>(found) = true;
  return 0;
}
}  // namespace

void ensure_sox_effects_initialized() {
  ensure_sox_initialized();
  static std::once_flag once;
  std::call_once(once, [] {
    // sox_init() only sets up libsox's FFT cache and aborts when called twice in a process.
    // torchaudio calls it when it is imported; it shares the same libsox, so skip it then.
    bool torchaudio_loaded = false;
    dl_iterate_phdr(find_torchaudio, &torchaudio_loaded);
    if (!torchaudio_loaded) sox_init();
  });
}

std::string take_sox_error() {
  std::string s;
  s.swap(t_sox_error);
  return s;
}

void throw_sox_error(const char* op, const std::string& what) {
  std::string msg = take_sox_error();
  if (msg.empty()) throw DecodeError(tc::detail::concat(op, ": ", what));
  throw DecodeError(tc::detail::concat(op, ": ", what, " (libsox: ", msg, ")"));
}

namespace {
// libsox 14.4.2's Ogg Vorbis reader frees the OggVorbis_File's contents but never the struct
// itself (~1 KB per opened file). Its private state starts with that pointer; free it after
// sox_close on exactly that release (later releases may fix it).
void* leaked_vorbis_state(sox_format_t* f) {
  static const bool affected = sox_version_info()->version_code == SOX_LIB_VERSION(14, 4, 2);
  if (!affected || f->mode != 'r' || f->encoding.encoding != SOX_ENCODING_VORBIS || !f->priv)
    return nullptr;
  return *static_cast<void**>(f->priv);
}
}  // namespace

void SoxFormatCloser::operator()(sox_format_t* f) const {
  if (!f) return;
  void* vorbis_file = leaked_vorbis_state(f);
  std::lock_guard<std::mutex> lock(sox_mutex());
  sox_close(f);
  free(vorbis_file);
}

std::string encoding_name(sox_encoding_t enc) {
  switch (enc) {
    case SOX_ENCODING_SIGN2:
      return "PCM_S";
    case SOX_ENCODING_UNSIGNED:
      return "PCM_U";
    case SOX_ENCODING_FLOAT:
      return "PCM_F";
    case SOX_ENCODING_FLAC:
      return "FLAC";
    case SOX_ENCODING_ULAW:
      return "ULAW";
    case SOX_ENCODING_ALAW:
      return "ALAW";
    case SOX_ENCODING_MP3:
      return "MP3";
    case SOX_ENCODING_VORBIS:
      return "VORBIS";
    case SOX_ENCODING_AMR_WB:
      return "AMR_WB";
    case SOX_ENCODING_AMR_NB:
      return "AMR_NB";
    case SOX_ENCODING_OPUS:
      return "OPUS";
    case SOX_ENCODING_GSM:
      return "GSM";
    default:
      return "UNKNOWN";
  }
}

// libsox's header sniffing does not know MP3; in memory there is no file name to go by.
namespace {
bool looks_like_mp3(std::string_view b) {
  if (b.size() >= 3 && b.substr(0, 3) == "ID3") return true;
  return b.size() >= 2 && uint8_t(b[0]) == 0xFF && (uint8_t(b[1]) & 0xE0) == 0xE0;
}

// libsox's AMR readers pass every frame to the decoder whatever its type; frame types outside
// the codec's table smash the reader's stack (found by fuzzing). Walk the frames first and
// refuse streams with such frames or a cut last frame. Returns "" when the stream is fine.
std::string check_amr_frames(std::string_view b) {
  static constexpr std::string_view kNbMagic = "#!AMR\n", kWbMagic = "#!AMR-WB\n";
  // Payload bytes per frame type (header byte excluded); -1 marks types the codec never emits.
  static constexpr int kNb[16] = {12, 13, 15, 17, 19, 20, 26, 31, 5, -1, -1, -1, -1, -1, -1, 0};
  static constexpr int kWb[16] = {17, 23, 32, 36, 40, 46, 50, 58, 60, 5, -1, -1, -1, -1, 0, 0};
  const int* sizes;
  size_t pos;
  if (b.substr(0, kWbMagic.size()) == kWbMagic) {
    sizes = kWb;
    pos = kWbMagic.size();
  } else if (b.substr(0, kNbMagic.size()) == kNbMagic) {
    sizes = kNb;
    pos = kNbMagic.size();
  } else {
    return "";
  }
  while (pos < b.size()) {
    const int type = (uint8_t(b[pos]) >> 3) & 15;
    if (sizes[type] < 0)
      return tc::detail::concat("invalid AMR frame type ", type, " at byte ", pos);
    pos += 1 + size_t(sizes[type]);
    if (pos > b.size()) return "truncated AMR frame at the end of the stream";
  }
  return "";
}

// Sun AU headers carry the audio data offset, and libsox allocates a buffer of that size for
// the annotation before reading it: a corrupt offset asks for gigabytes. Refuse offsets past
// the end of the input.
std::string check_au_header(std::string_view head, uint64_t total_size) {
  if (head.size() < 8) return "";
  const std::string_view magic = head.substr(0, 4);
  // Sun and DEC magics, big- and little-endian.
  const bool big = magic == ".snd" || magic == std::string_view(".sd\0", 4);
  const bool little = magic == "dns." || magic == std::string_view("\0ds.", 4);
  if (!big && !little) return "";
  uint64_t offset = 0;
  for (int i = 0; i < 4; ++i) offset = (offset << 8) | uint8_t(head[size_t(big ? 4 + i : 7 - i)]);
  if (offset > total_size)
    return tc::detail::concat("AU header's data offset ", offset, " lies past the end of the ",
                              total_size, "-byte input");
  return "";
}

// Checks the stream before libsox parses it (see check_amr_frames / check_au_header).
std::string check_known_hazards(const std::string* path, std::string_view bytes) {
  if (!path) {
    std::string why = check_amr_frames(bytes);
    return why.empty() ? check_au_header(bytes, bytes.size()) : why;
  }
  std::ifstream f(*path, std::ios::binary | std::ios::ate);
  if (!f) return "";  // libsox reports the open failure itself
  const uint64_t size = uint64_t(f.tellg());
  f.seekg(0);
  char head[8] = {};
  f.read(head, sizeof head);
  const std::string_view h(head, size_t(f.gcount()));
  if (h.substr(0, 5) == "#!AMR") {
    f.clear();
    f.seekg(0);
    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return check_amr_frames(data);
  }
  return check_au_header(h, size);
}

}  // namespace

SoxPtr open_input(const std::string* path, std::string_view bytes, const std::string& format,
                  const char* op) {
  ensure_sox_initialized();
  take_sox_error();
  if (!path && bytes.empty()) throw DecodeError(tc::detail::concat(op, ": empty input"));
  const char* type = format.empty() ? nullptr : format.c_str();
  if (!type && !path && looks_like_mp3(bytes)) type = "mp3";
  const std::string hazard = check_known_hazards(path, bytes);
  if (!hazard.empty())
    throw DecodeError(tc::detail::concat(
        op, ": ", hazard, " in ", path ? "'" + *path + "'" : std::string("the given bytes")));
  if (type && !sox_find_format(type, sox_false))
    throw ValueError(tc::detail::concat(op, ": unsupported format '", format, "'"));
  sox_format_t* f;
  {
    std::lock_guard<std::mutex> lock(sox_mutex());
    if (path) {
      f = sox_open_read(path->c_str(), nullptr, nullptr, type);
    } else {
      // fmemopen only reads the buffer; libsox's signature is merely not const-correct.
      f = sox_open_mem_read(const_cast<char*>(bytes.data()), bytes.size(), nullptr, nullptr, type);
    }
  }
  if (!f)
    throw_sox_error(
        op, "cannot open or decode " + (path ? "'" + *path + "'" : std::string("the given bytes")));
  SoxPtr ft(f);
  const sox_signalinfo_t& s = ft->signal;
  if (s.channels == 0 || s.channels > kMaxChannels || !(s.rate > 0) || !std::isfinite(s.rate))
    throw DecodeError(tc::detail::concat(
        op, ": invalid stream in ", (path ? "'" + *path + "'" : std::string("the given bytes")),
        " (", s.channels, " channels at ", s.rate, " Hz)"));
  return ft;
}

DType native_dtype(const sox_format_t* ft) {
  const std::string type = ft->filetype ? ft->filetype : "";
  if (type != "wav" && type != "wavpcm" && type != "amb") return DType::Float32;
  const unsigned bits = ft->encoding.bits_per_sample;
  switch (ft->encoding.encoding) {
    case SOX_ENCODING_UNSIGNED:
      return bits <= 8 ? DType::UInt8 : DType::Int32;
    case SOX_ENCODING_SIGN2:
      return bits <= 8 ? DType::Int32 : bits <= 16 ? DType::Int16 : DType::Int32;
    default:
      return DType::Float32;
  }
}

namespace {
template <typename T, typename Convert>
void deinterleave(const sox_sample_t* s, int64_t frames, int64_t channels, bool channels_first,
                  T* out, Convert convert) {
  if (frames == 0 || channels == 0) return;  // `s` may be null for an empty decode
  if (channels == 1 || !channels_first) {
    const int64_t n = frames * channels;
    for (int64_t i = 0; i < n; ++i) out[i] = convert(s[i]);
    return;
  }
  if (channels == 2) {  // the common case: one pass over the input, two output streams
    T* left = out;
    T* right = out + frames;
    for (int64_t f = 0; f < frames; ++f) {
      left[f] = convert(s[2 * f]);
      right[f] = convert(s[2 * f + 1]);
    }
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    T* dst = out + c * frames;
    const sox_sample_t* src = s + c;
    for (int64_t f = 0; f < frames; ++f) dst[f] = convert(src[f * channels]);
  }
}
}  // namespace

Tensor samples_to_tensor(const sox_sample_t* s, int64_t frames, int64_t channels, DType dtype,
                         bool channels_first) {
  Shape shape = channels_first ? Shape{channels, frames} : Shape{frames, channels};
  Tensor out = empty(shape, TensorOptions(dtype));
  switch (dtype) {
    case DType::Float32:
      deinterleave(s, frames, channels, channels_first, out.data<float>(),
                   [](sox_sample_t v) { return float(v) * (1.0f / 2147483648.0f); });
      break;
    case DType::Int32:
      deinterleave(s, frames, channels, channels_first, out.data<int32_t>(),
                   [](sox_sample_t v) { return int32_t(v); });
      break;
    case DType::Int16:
      deinterleave(s, frames, channels, channels_first, out.data<int16_t>(),
                   [](sox_sample_t v) { return int16_t(v >> 16); });
      break;
    case DType::UInt8:
      deinterleave(s, frames, channels, channels_first, out.data<uint8_t>(),
                   [](sox_sample_t v) { return uint8_t((v >> 24) + 128); });
      break;
    default:
      throw TypeError(
          tc::detail::concat("audio: cannot produce samples of dtype ", dtype_name(dtype)));
  }
  return out;
}

namespace {
template <typename T, typename Convert>
void interleave(const T* in, int64_t frames, int64_t channels, bool channels_first,
                sox_sample_t* out, Convert convert) {
  if (channels == 1 || !channels_first) {
    const int64_t n = frames * channels;
    for (int64_t i = 0; i < n; ++i) out[i] = convert(in[i]);
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    const T* src = in + c * frames;
    for (int64_t f = 0; f < frames; ++f) out[f * channels + c] = convert(src[f]);
  }
}

template <typename F>
sox_sample_t float_to_sample(F v) {
  // libsox's float->int32 rule: scale by 2^31 and clip to the int32 range; NaN becomes 0.
  double x = double(v) * 2147483648.0;
  if (!(x == x)) return 0;
  if (x >= 2147483647.0) return 2147483647;
  if (x <= -2147483648.0) return -2147483647 - 1;
  return sox_sample_t(std::lrint(x));
}
}  // namespace

std::vector<sox_sample_t> tensor_to_samples(const Tensor& src_in, bool channels_first,
                                            const char* op) {
  TC_CHECK(src_in.dim() == 2, op,
           ": expected a 2-d tensor (channels, time) or (time, channels), got ", src_in.dim(),
           "-d tensor of shape ", shape_str(src_in.sizes()));
  TC_CHECK(src_in.is_cpu(), op, ": expected a CPU tensor");
  Tensor src = contiguous(src_in);
  const int64_t channels = channels_first ? src.size(0) : src.size(1);
  const int64_t frames = channels_first ? src.size(1) : src.size(0);
  std::vector<sox_sample_t> out(size_t(frames * channels));
  switch (src.dtype()) {
    case DType::Float32:
      interleave(src.data<float>(), frames, channels, channels_first, out.data(),
                 float_to_sample<float>);
      break;
    case DType::Float64:
      interleave(src.data<double>(), frames, channels, channels_first, out.data(),
                 float_to_sample<double>);
      break;
    case DType::Int32:
      interleave(src.data<int32_t>(), frames, channels, channels_first, out.data(),
                 [](int32_t v) { return sox_sample_t(v); });
      break;
    case DType::Int16:
      interleave(src.data<int16_t>(), frames, channels, channels_first, out.data(),
                 [](int16_t v) { return sox_sample_t(uint32_t(int32_t(v)) << 16); });
      break;
    case DType::UInt8:
      interleave(src.data<uint8_t>(), frames, channels, channels_first, out.data(),
                 [](uint8_t v) { return sox_sample_t(uint32_t(int32_t(v) - 128) << 24); });
      break;
    default:
      throw TypeError(tc::detail::concat(op,
                                         ": expected a tensor of dtype float32, float64, "
                                         "int32, int16 or uint8, got ",
                                         dtype_name(src.dtype())));
  }
  return out;
}

}  // namespace tc::audio::detail
