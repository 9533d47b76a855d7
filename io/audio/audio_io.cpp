// load / save / info over libsox (native FLAC loads through libFLAC directly, flac_decode.h).
// Reading decodes into libsox's interleaved int32 samples and
// converts once to the requested dtype and layout.
#include "io/audio/audio_io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "io/audio/flac_decode.h"
#include "io/audio/sox_common.h"
#include "tensorcore/ops/copy.h"

namespace tc::audio {
namespace {

using namespace tc::audio::detail;

// Where the encoded audio comes from: a path or a memory buffer.
struct Source {
  const std::string* path = nullptr;
  std::string_view bytes;
  std::string describe() const { return path ? "'" + *path + "'" : "the given bytes"; }
};

SoxPtr open_input(const Source& src, const std::string& format, const char* op) {
  return detail::open_input(src.path, src.bytes, format, op);
}

// Encodings whose length in the header is exact and whose libsox seek is sample-accurate.
bool exact_length_encoding(sox_encoding_t e) {
  switch (e) {
    case SOX_ENCODING_SIGN2:
    case SOX_ENCODING_UNSIGNED:
    case SOX_ENCODING_FLOAT:
    case SOX_ENCODING_ULAW:
    case SOX_ENCODING_ALAW:
    case SOX_ENCODING_FLAC:
    case SOX_ENCODING_VORBIS:
      return true;
    default:
      return false;
  }
}

// Decoded interleaved samples. Not a std::vector: growing one zero-fills memory that sox_read
// overwrites anyway, an extra pass over every sample.
struct SampleBuffer {
  std::unique_ptr<sox_sample_t[]> data;
  int64_t size = 0;
};

// Reads up to `max_samples` (or everything when negative) interleaved samples. `trusted` is a
// count the input's size guarantees (PCM: bytes / sample size), allocated at once; beyond it
// the buffer starts at 16 MB and grows as samples really arrive, so a forged header cannot
// make us allocate gigabytes.
SampleBuffer read_samples(sox_format_t* ft, int64_t max_samples, int64_t trusted) {
  const int64_t channels = ft->signal.channels;
  int64_t cap = max_samples >= 0 ? max_samples : std::max<int64_t>(trusted, 1 << 16);
  cap = std::min<int64_t>(cap, std::max<int64_t>(trusted, int64_t(1) << 22));
  SampleBuffer buf;
  buf.data.reset(new sox_sample_t[size_t(std::max<int64_t>(cap, 1))]);
  int64_t got = 0;
  for (;;) {
    int64_t want = cap - got;
    if (max_samples >= 0) want = std::min(want, max_samples - got);
    if (want <= 0) {
      if (max_samples >= 0 && got >= max_samples) break;
      int64_t grown = cap * 2;
      if (max_samples >= 0) grown = std::min(grown, max_samples);
      std::unique_ptr<sox_sample_t[]> bigger(new sox_sample_t[size_t(grown)]);
      std::memcpy(bigger.get(), buf.data.get(), size_t(got) * sizeof(sox_sample_t));
      buf.data = std::move(bigger);
      cap = grown;
      continue;
    }
    const size_t n = sox_read(ft, buf.data.get() + got, size_t(want));
    if (n == 0) break;
    got += int64_t(n);
  }
  buf.size = got - got % channels;  // a partial frame at a truncated end is dropped
  return buf;
}

// Discards `samples` by decoding them (formats without an exact seek).
int64_t skip_samples(sox_format_t* ft, int64_t samples) {
  std::vector<sox_sample_t> scratch(size_t(std::min<int64_t>(samples, 1 << 16)));
  int64_t skipped = 0;
  while (skipped < samples) {
    const size_t want = size_t(std::min<int64_t>(samples - skipped, int64_t(scratch.size())));
    const size_t n = sox_read(ft, scratch.data(), want);
    if (n == 0) break;
    skipped += int64_t(n);
  }
  return skipped;
}

int64_t declared_frames(const sox_format_t* ft) {
  // 0 also means "unknown" in libsox (e.g. Ogg read from memory, where it cannot seek to the end).
  if (ft->signal.length == 0 || ft->signal.length == SOX_UNKNOWN_LEN ||
      ft->signal.length == SOX_IGNORE_LENGTH)
    return -1;
  if (!exact_length_encoding(ft->encoding.encoding)) return -1;
  return int64_t(ft->signal.length / ft->signal.channels);
}

// How many samples the input can really hold when every sample takes bits_per_sample bits
// (PCM, u-law, A-law), capped by `limit`; 0 when that cannot be known.
int64_t pcm_sample_bound(const sox_format_t* ft, const Source& src, int64_t limit) {
  const auto e = ft->encoding.encoding;
  const unsigned bits = ft->encoding.bits_per_sample;
  if (limit < 0 || bits == 0 ||
      !(e == SOX_ENCODING_SIGN2 || e == SOX_ENCODING_UNSIGNED || e == SOX_ENCODING_FLOAT ||
        e == SOX_ENCODING_ULAW || e == SOX_ENCODING_ALAW))
    return 0;
  std::error_code ec;
  const uint64_t bytes = src.path ? std::filesystem::file_size(*src.path, ec) : src.bytes.size();
  if (ec) return 0;
  return std::min<int64_t>(limit, int64_t(bytes * 8 / bits));
}

AudioMetaData info_impl(const Source& src, const std::string& format) {
  SoxPtr ft = open_input(src, format, "audio.info");
  AudioMetaData md;
  md.sample_rate = int64_t(std::lround(ft->signal.rate));
  md.num_channels = ft->signal.channels;
  md.encoding = encoding_name(ft->encoding.encoding);
  const auto e = ft->encoding.encoding;
  const bool lossy = e == SOX_ENCODING_MP3 || e == SOX_ENCODING_VORBIS ||
                     e == SOX_ENCODING_AMR_NB || e == SOX_ENCODING_AMR_WB ||
                     e == SOX_ENCODING_OPUS || e == SOX_ENCODING_GSM;
  md.bits_per_sample = lossy ? 0 : ft->encoding.bits_per_sample;
  int64_t frames = declared_frames(ft.get());
  if (frames < 0) {
    // MP3 headers only estimate the length: count by decoding so info agrees with load.
    int64_t samples = skip_samples(ft.get(), INT64_MAX);
    frames = samples / md.num_channels;
  }
  md.num_frames = frames;
  return md;
}

LoadResult load_impl(const Source& src, const LoadOptions& opt) {
  const char* op = "audio.load";
  TC_CHECK(opt.frame_offset >= 0, op, ": frame_offset must be >= 0, got ", opt.frame_offset);
  TC_CHECK(opt.num_frames == -1 || opt.num_frames >= 0, op,
           ": num_frames must be -1 (all) or >= 0, got ", opt.num_frames);
  if (auto flac = load_flac(src.path, src.bytes, opt, op)) return std::move(*flac);
  SoxPtr ft = open_input(src, opt.format, op);
  const int64_t channels = ft->signal.channels;
  const int64_t declared = declared_frames(ft.get());
  if (opt.frame_offset > 0) {
    bool seeked = false;
    if (declared >= 0 && ft->handler.seek && ft->seekable &&
        ft->encoding.encoding != SOX_ENCODING_VORBIS) {
      if (opt.frame_offset >= declared) {
        seeked = true;  // nothing left to read
      } else {
        seeked =
            sox_seek(ft.get(), uint64_t(opt.frame_offset * channels), SOX_SEEK_SET) == SOX_SUCCESS;
        if (!seeked) ft = open_input(src, opt.format, op);  // retry by decoding from the start
      }
    }
    if (!seeked) skip_samples(ft.get(), opt.frame_offset * channels);
  }
  int64_t expected = -1;
  if (declared >= 0) {
    expected = std::max<int64_t>(declared - opt.frame_offset, 0);
    if (opt.num_frames >= 0) expected = std::min(expected, opt.num_frames);
  }
  SampleBuffer samples;
  if (expected != 0 && opt.num_frames != 0) {
    const int64_t max_samples = opt.num_frames >= 0 ? opt.num_frames * channels : -1;
    const int64_t limit = expected >= 0 ? expected * channels : max_samples;
    samples = read_samples(ft.get(), limit, pcm_sample_bound(ft.get(), src, limit));
  }
  const int64_t frames = samples.size / channels;
  if (expected >= 0 && frames < expected)
    throw_sox_error(
        op, tc::detail::concat(src.describe(), " is truncated: the header declares ", declared,
                               " frames, only ", opt.frame_offset + frames, " could be decoded"));
  const DType dtype = opt.normalize ? DType::Float32 : native_dtype(ft.get());
  LoadResult r;
  r.waveform = samples_to_tensor(samples.data.get(), frames, channels, dtype, opt.channels_first);
  r.sample_rate = int64_t(std::lround(ft->signal.rate));
  return r;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string format_from_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

sox_encoding_t parse_encoding(const std::string& name, const char* op) {
  if (name == "PCM_S") return SOX_ENCODING_SIGN2;
  if (name == "PCM_U") return SOX_ENCODING_UNSIGNED;
  if (name == "PCM_F") return SOX_ENCODING_FLOAT;
  if (name == "ULAW") return SOX_ENCODING_ULAW;
  if (name == "ALAW") return SOX_ENCODING_ALAW;
  throw ValueError(tc::detail::concat(op, ": unsupported encoding '", name,
                                      "' (expected PCM_S, PCM_U, PCM_F, ULAW or ALAW)"));
}

struct Target {
  std::string filetype;
  sox_encodinginfo_t encoding{};  // sox_init_encodinginfo leaves opposite_endian unset
  unsigned precision = 0;
};

// torchaudio's defaults: the dtype picks the PCM encoding unless encoding / bits say otherwise.
Target choose_target(const std::string& fmt_in, DType dtype, const SaveOptions& o, const char* op) {
  Target t;
  std::string fmt = lower(fmt_in);
  if (fmt == "ogg") fmt = "vorbis";
  if (fmt == "nist") fmt = "sph";
  TC_CHECK(!fmt.empty(), op, ": cannot tell the format; pass format= (e.g. 'wav')");
  sox_init_encodinginfo(&t.encoding);
  t.encoding.compression = o.compression ? *o.compression : HUGE_VAL;
  const bool is_float = dtype == DType::Float32 || dtype == DType::Float64;
  unsigned bits = unsigned(o.bits_per_sample);
  const bool pcm_container =
      fmt == "wav" || fmt == "amb" || fmt == "sph" || fmt == "au" || fmt == "aiff" || fmt == "aif";
  TC_CHECK(o.encoding.empty() || pcm_container, op, ": encoding= applies to wav/amb/sph/au/aiff, ",
           "not to '", fmt, "'");
  if (pcm_container) {
    sox_encoding_t enc;
    if (!o.encoding.empty()) {
      enc = parse_encoding(o.encoding, op);
      if (bits == 0)
        bits = enc == SOX_ENCODING_UNSIGNED || enc == SOX_ENCODING_ULAW || enc == SOX_ENCODING_ALAW
                   ? 8
               : enc == SOX_ENCODING_SIGN2 && dtype == DType::Int16 ? 16
                                                                    : 32;
    } else if (bits != 0) {
      enc = bits == 8                                ? SOX_ENCODING_UNSIGNED
            : bits == 64 || (bits == 32 && is_float) ? SOX_ENCODING_FLOAT
                                                     : SOX_ENCODING_SIGN2;
    } else {
      switch (dtype) {
        case DType::UInt8:
          enc = SOX_ENCODING_UNSIGNED;
          bits = 8;
          break;
        case DType::Int16:
          enc = SOX_ENCODING_SIGN2;
          bits = 16;
          break;
        case DType::Int32:
          enc = SOX_ENCODING_SIGN2;
          bits = 32;
          break;
        default:
          enc = SOX_ENCODING_FLOAT;
          bits = 32;
          break;
      }
    }
    if (fmt == "sph" && enc == SOX_ENCODING_FLOAT) enc = SOX_ENCODING_SIGN2;
    const bool ok =
        (enc == SOX_ENCODING_UNSIGNED && bits == 8) ||
        (enc == SOX_ENCODING_SIGN2 && (bits == 8 || bits == 16 || bits == 24 || bits == 32)) ||
        (enc == SOX_ENCODING_FLOAT && (bits == 32 || bits == 64)) ||
        ((enc == SOX_ENCODING_ULAW || enc == SOX_ENCODING_ALAW) && bits == 8);
    TC_CHECK(ok, op, ": unsupported encoding/bits_per_sample combination: ", encoding_name(enc),
             " with ", bits, " bits");
    TC_CHECK(!(fmt == "wav" && enc == SOX_ENCODING_SIGN2 && bits == 8), op,
             ": wav stores 8-bit audio as unsigned; use encoding='PCM_U'");
    t.encoding.encoding = enc;
    t.encoding.bits_per_sample = bits;
    t.precision = enc == SOX_ENCODING_ULAW || enc == SOX_ENCODING_ALAW ? 14
                  : enc == SOX_ENCODING_FLOAT                          ? (bits == 64 ? 53 : 24)
                                                                       : bits;
  } else if (fmt == "flac") {
    if (bits == 0) bits = dtype == DType::Int16 ? 16 : dtype == DType::UInt8 ? 8 : 24;
    TC_CHECK(bits == 8 || bits == 16 || bits == 24, op,
             ": flac supports 8, 16 or 24 bits per sample, got ", bits);
    t.encoding.encoding = SOX_ENCODING_FLAC;
    t.encoding.bits_per_sample = bits;
    t.precision = bits;
  } else if (fmt == "mp3" || fmt == "vorbis" || fmt == "amr-nb" || fmt == "amr-wb") {
    TC_CHECK(bits == 0, op, ": bits_per_sample does not apply to lossy format '", fmt, "'");
    t.encoding.encoding = fmt == "mp3"      ? SOX_ENCODING_MP3
                          : fmt == "vorbis" ? SOX_ENCODING_VORBIS
                          : fmt == "amr-nb" ? SOX_ENCODING_AMR_NB
                                            : SOX_ENCODING_AMR_WB;
    t.precision = fmt == "mp3" || fmt == "vorbis" ? 24 : 16;
  } else {
    TC_CHECK(sox_find_format(fmt.c_str(), sox_false) != nullptr, op, ": unsupported format '", fmt,
             "'");
    t.encoding.bits_per_sample = bits;
    t.precision = bits ? bits : is_float ? 24 : unsigned(itemsize(dtype) * 8);
  }
  t.filetype = fmt;
  return t;
}

// Encodes into a path or (path == nullptr) into memory.
std::string save_impl(const std::string* path, const Tensor& src, int64_t sample_rate,
                      const SaveOptions& o) {
  const char* op = "audio.save";
  ensure_sox_initialized();
  take_sox_error();
  TC_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  std::vector<sox_sample_t> samples = tensor_to_samples(src, o.channels_first, op);
  const int64_t channels = o.channels_first ? src.size(0) : src.size(1);
  TC_CHECK(channels >= 1 && channels <= kMaxChannels, op, ": expected 1 to ", kMaxChannels,
           " channels, got ", channels);
  const std::string fmt = !o.format.empty() ? o.format : path ? format_from_path(*path) : "";
  Target t = choose_target(fmt, src.dtype(), o, op);
  if (t.filetype == "amr-nb")
    TC_CHECK(sample_rate == 8000 && channels == 1, op, ": amr-nb needs 8000 Hz mono audio");
  if (t.filetype == "amr-wb")
    TC_CHECK(sample_rate == 16000 && channels == 1, op, ": amr-wb needs 16000 Hz mono audio");
  sox_signalinfo_t signal{};
  signal.rate = double(sample_rate);
  signal.channels = unsigned(channels);
  signal.precision = t.precision;
  signal.length = samples.size();
  char* mem = nullptr;
  size_t mem_size = 0;
  sox_format_t* f;
  {
    std::lock_guard<std::mutex> lock(sox_mutex());
    if (path) {
      f = sox_open_write(path->c_str(), &signal, &t.encoding, t.filetype.c_str(), nullptr, nullptr);
    } else {
      f = sox_open_memstream_write(&mem, &mem_size, &signal, &t.encoding, t.filetype.c_str(),
                                   nullptr);
    }
  }
  if (!f) {
    free(mem);
    throw_sox_error(op, path ? "cannot open '" + *path + "' for writing as " + t.filetype
                             : "cannot encode as " + t.filetype);
  }
  SoxPtr ft(f);
  const size_t written = samples.empty() ? 0 : sox_write(ft.get(), samples.data(), samples.size());
  const bool ok = written == samples.size();
  ft.reset();  // flushes; for memory output this finalizes mem / mem_size
  std::string out;
  if (mem) {
    out.assign(mem, mem_size);
    free(mem);
  }
  if (!ok) throw_sox_error(op, "failed to encode the samples as " + t.filetype);
  return out;
}

}  // namespace

AudioMetaData info(const std::string& path, const std::string& format) {
  Source s;
  s.path = &path;
  return info_impl(s, format);
}

AudioMetaData info_bytes(std::string_view data, const std::string& format) {
  Source s;
  s.bytes = data;
  return info_impl(s, format);
}

LoadResult load(const std::string& path, const LoadOptions& options) {
  Source s;
  s.path = &path;
  return load_impl(s, options);
}

LoadResult load_bytes(std::string_view data, const LoadOptions& options) {
  Source s;
  s.bytes = data;
  return load_impl(s, options);
}

void save(const std::string& path, const Tensor& src, int64_t sample_rate,
          const SaveOptions& options) {
  save_impl(&path, src, sample_rate, options);
}

std::string save_bytes(const Tensor& src, int64_t sample_rate, const SaveOptions& options) {
  TC_CHECK(!options.format.empty(), "audio.save: format= is required when saving to memory");
  return save_impl(nullptr, src, sample_rate, options);
}

LoadResult decode_audio(const Tensor& data, const LoadOptions& options) {
  TC_CHECK_TYPE(data.defined() && data.dtype() == DType::UInt8 && data.dim() == 1,
                "decode_audio: expected a 1-d uint8 tensor of encoded bytes, got ",
                data.defined() ? dtype_name(data.dtype()) : "None",
                data.defined() ? " of shape " + shape_str(data.sizes()) : std::string());
  Tensor bytes = contiguous(to_device(data, Device()));
  return load_bytes(
      std::string_view(static_cast<const char*>(bytes.data_ptr()), size_t(bytes.numel())), options);
}

}  // namespace tc::audio
