// audio::load's FLAC path: libFLAC decodes each frame into per-channel int32 buffers and the
// write callback scales them straight into the output tensor (libsox would copy them into its
// interleaved int32 buffer and load would convert that again; libsox also turns MD5 checking on,
// which only ever leads to a warning).
#include "io/audio/flac_decode.h"

#include <FLAC/stream_decoder.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::audio::detail {
namespace {

// Where libFLAC reads from: an open file or a memory buffer.
struct Input {
  FILE* file = nullptr;
  std::string_view bytes;
  size_t pos = 0;
  ~Input() {
    if (file) std::fclose(file);
  }
};

// Decoding state shared with the callbacks.
struct State {
  Input in;
  bool have_info = false;
  unsigned channels = 0, bits = 0, rate = 0;
  int64_t declared = -1;  // STREAMINFO's total samples per channel; -1 when unknown (0 there)
  bool channels_first = true;
  int64_t skip = 0;    // frames still to drop (an offset in a stream without a known length)
  int64_t limit = -1;  // frames to keep at most; -1: all
  bool reached_limit = false;
  Tensor out;  // (channels, capacity) or (capacity, channels)
  int64_t capacity = 0, frames = 0;
  std::string error;  // the first problem libFLAC or a frame reported

  // Room for `need` frames: the first allocation takes what the header promises, up to a cap
  // (a forged header cannot make us allocate gigabytes); beyond it the buffer doubles as frames
  // really arrive.
  void reserve(int64_t need) {
    if (need <= capacity) return;
    constexpr int64_t kTrustedSamples = int64_t(1) << 22;
    int64_t cap = std::max<int64_t>(need, capacity * 2);
    if (capacity == 0) {
      int64_t promised = limit >= 0 ? limit : declared;
      if (promised > 0) cap = std::max(cap, std::min(promised, kTrustedSamples / channels));
      if (limit >= 0) cap = std::min(cap, std::max(limit, need));
    }
    const int64_t C = channels;
    Tensor bigger =
        empty(channels_first ? Shape{C, cap} : Shape{cap, C}, TensorOptions(DType::Float32));
    if (frames > 0) {
      if (channels_first) {
        for (int64_t c = 0; c < C; ++c)
          std::memcpy(bigger.data<float>() + c * cap, out.data<float>() + c * capacity,
                      size_t(frames) * sizeof(float));
      } else {
        std::memcpy(bigger.data<float>(), out.data<float>(), size_t(frames * C) * sizeof(float));
      }
    }
    out = bigger;
    capacity = cap;
  }
};

FLAC__StreamDecoderReadStatus on_read(const FLAC__StreamDecoder*, FLAC__byte buffer[],
                                      size_t* bytes, void* cd) {
  Input& in = static_cast<State*>(cd)->in;
  if (in.file) {
    *bytes = std::fread(buffer, 1, *bytes, in.file);
    if (*bytes == 0)
      return std::ferror(in.file) ? FLAC__STREAM_DECODER_READ_STATUS_ABORT
                                  : FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM;
    return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE;
  }
  const size_t n = std::min(*bytes, in.bytes.size() - std::min(in.pos, in.bytes.size()));
  if (n) std::memcpy(buffer, in.bytes.data() + in.pos, n);
  in.pos += n;
  *bytes = n;
  return n ? FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
           : FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM;
}

FLAC__StreamDecoderSeekStatus on_seek(const FLAC__StreamDecoder*, FLAC__uint64 offset, void* cd) {
  Input& in = static_cast<State*>(cd)->in;
  if (in.file)
    return fseeko(in.file, off_t(offset), SEEK_SET) == 0 ? FLAC__STREAM_DECODER_SEEK_STATUS_OK
                                                         : FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
  if (offset > in.bytes.size()) return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
  in.pos = size_t(offset);
  return FLAC__STREAM_DECODER_SEEK_STATUS_OK;
}

FLAC__StreamDecoderTellStatus on_tell(const FLAC__StreamDecoder*, FLAC__uint64* offset, void* cd) {
  Input& in = static_cast<State*>(cd)->in;
  if (in.file) {
    const off_t p = ftello(in.file);
    if (p < 0) return FLAC__STREAM_DECODER_TELL_STATUS_ERROR;
    *offset = FLAC__uint64(p);
  } else {
    *offset = in.pos;
  }
  return FLAC__STREAM_DECODER_TELL_STATUS_OK;
}

FLAC__StreamDecoderLengthStatus on_length(const FLAC__StreamDecoder*, FLAC__uint64* length,
                                          void* cd) {
  Input& in = static_cast<State*>(cd)->in;
  if (in.file) {
    struct stat st;
    if (fstat(fileno(in.file), &st) != 0) return FLAC__STREAM_DECODER_LENGTH_STATUS_ERROR;
    *length = FLAC__uint64(st.st_size);
  } else {
    *length = in.bytes.size();
  }
  return FLAC__STREAM_DECODER_LENGTH_STATUS_OK;
}

FLAC__bool on_eof(const FLAC__StreamDecoder*, void* cd) {
  Input& in = static_cast<State*>(cd)->in;
  return in.file ? std::feof(in.file) != 0 : in.pos >= in.bytes.size();
}

struct DecoderCloser {
  void operator()(FLAC__StreamDecoder* d) const {
    FLAC__stream_decoder_finish(d);
    FLAC__stream_decoder_delete(d);
  }
};

void on_metadata(const FLAC__StreamDecoder*, const FLAC__StreamMetadata* m, void* cd) {
  State& s = *static_cast<State*>(cd);
  if (m->type != FLAC__METADATA_TYPE_STREAMINFO || s.have_info) return;
  s.have_info = true;
  s.channels = m->data.stream_info.channels;
  s.bits = m->data.stream_info.bits_per_sample;
  s.rate = m->data.stream_info.sample_rate;
  const FLAC__uint64 total = m->data.stream_info.total_samples;
  s.declared = total == 0 ? -1 : int64_t(total);
}

void on_error(const FLAC__StreamDecoder*, FLAC__StreamDecoderErrorStatus status, void* cd) {
  State& s = *static_cast<State*>(cd);
  if (s.error.empty()) s.error = FLAC__StreamDecoderErrorStatusString[status];
}

FLAC__StreamDecoderWriteStatus on_write(const FLAC__StreamDecoder*, const FLAC__Frame* frame,
                                        const FLAC__int32* const buffer[], void* cd) {
  State& s = *static_cast<State*>(cd);
  const FLAC__FrameHeader& h = frame->header;
  // libsox refuses these too (its samples would change scale or layout mid-stream).
  if (h.bits_per_sample != s.bits || h.channels != s.channels || h.sample_rate != s.rate) {
    s.error = "parameters differ between frame and header";
    return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
  }
  int64_t first = 0, count = h.blocksize;
  if (s.skip > 0) {
    first = std::min(s.skip, count);
    s.skip -= first;
    count -= first;
  }
  if (s.limit >= 0) count = std::min(count, s.limit - s.frames);
  if (count > 0) {
    try {
      s.reserve(s.frames + count);
    } catch (...) {  // no exception may cross libFLAC's C frames
      s.error = "out of memory";
      return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
    }
    // libsox's sample is d << (32 - bits) as an int32, and load scales it by 2^-31.
    const unsigned shift = 32 - s.bits;
    constexpr float kScale = 1.0f / 2147483648.0f;
    const int64_t C = s.channels;
    float* base = s.out.data<float>();
    for (int64_t c = 0; c < C; ++c) {
      const FLAC__int32* src = buffer[c] + first;
      if (s.channels_first) {
        float* dst = base + c * s.capacity + s.frames;
        for (int64_t i = 0; i < count; ++i)
          dst[i] = float(int32_t(uint32_t(src[i]) << shift)) * kScale;
      } else {
        float* dst = base + s.frames * C + c;
        for (int64_t i = 0; i < count; ++i)
          dst[i * C] = float(int32_t(uint32_t(src[i]) << shift)) * kScale;
      }
    }
    s.frames += count;
  }
  // Not an abort when everything asked for is here: this frame may come from inside a seek.
  if (s.limit >= 0 && s.frames >= s.limit) s.reached_limit = true;
  return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE;
}

bool is_native_flac(std::string_view head) { return head.substr(0, 4) == "fLaC"; }

}  // namespace

std::optional<LoadResult> load_flac(const std::string* path, std::string_view bytes,
                                    const LoadOptions& opt, const char* op) {
  if (!opt.format.empty() && opt.format != "flac") return std::nullopt;
  State s;
  if (path) {
    s.in.file = std::fopen(path->c_str(), "rb");
    if (!s.in.file) return std::nullopt;  // libsox reports why
    char head[4] = {};
    const size_t got = std::fread(head, 1, sizeof head, s.in.file);
    if (!is_native_flac(std::string_view(head, got)) || std::fseek(s.in.file, 0, SEEK_SET) != 0)
      return std::nullopt;
  } else {
    if (!is_native_flac(bytes)) return std::nullopt;
    s.in.bytes = bytes;
  }
  const std::string where = path ? "'" + *path + "'" : std::string("the given bytes");
  std::unique_ptr<FLAC__StreamDecoder, DecoderCloser> dec(FLAC__stream_decoder_new());
  if (!dec) throw std::bad_alloc();
  s.channels_first = opt.channels_first;
  if (FLAC__stream_decoder_init_stream(dec.get(), on_read, on_seek, on_tell, on_length, on_eof,
                                       on_write, on_metadata, on_error,
                                       &s) != FLAC__STREAM_DECODER_INIT_STATUS_OK)
    throw DecodeError(tc::detail::concat(op, ": cannot set up the FLAC decoder for ", where));
  const auto fail = [&](const std::string& what) {
    throw DecodeError(tc::detail::concat(op, ": ", where, " ", what,
                                         s.error.empty() ? "" : " (libFLAC: " + s.error + ")"));
  };
  if (!FLAC__stream_decoder_process_until_end_of_metadata(dec.get()) || !s.have_info)
    fail("has no valid FLAC header");
  // Sample sizes libsox does not scale as d << (32 - bits) stay on the SoX path (as do streams
  // its checks refuse, so the error is the same).
  if (!(s.bits == 8 || s.bits == 16 || s.bits == 24 || s.bits == 32) || s.channels == 0 ||
      s.rate == 0)
    return std::nullopt;
  int64_t expected = -1;  // frames the result must hold (when the header says how many)
  if (s.declared >= 0) {
    expected = std::max<int64_t>(s.declared - opt.frame_offset, 0);
    if (opt.num_frames >= 0) expected = std::min(expected, opt.num_frames);
    s.limit = expected;
  } else if (opt.num_frames >= 0) {
    s.limit = opt.num_frames;
  }
  if (opt.frame_offset > 0) {
    if (s.declared < 0) {
      s.skip = opt.frame_offset;  // no length to seek within: decode and drop
    } else if (expected > 0 &&
               !FLAC__stream_decoder_seek_absolute(dec.get(), FLAC__uint64(opt.frame_offset))) {
      return std::nullopt;  // libsox retries by decoding from the start
    }
  }
  if (s.limit != 0) {
    auto state = FLAC__stream_decoder_get_state(dec.get());
    while (!s.reached_limit && state < FLAC__STREAM_DECODER_END_OF_STREAM) {
      if (!FLAC__stream_decoder_process_single(dec.get())) break;
      state = FLAC__stream_decoder_get_state(dec.get());
    }
    state = FLAC__stream_decoder_get_state(dec.get());
    if (state == FLAC__STREAM_DECODER_MEMORY_ALLOCATION_ERROR) throw std::bad_alloc();
    if (expected >= 0 && s.frames < expected)
      fail(tc::detail::concat("is truncated: the header declares ", s.declared, " frames, only ",
                              opt.frame_offset + s.frames, " could be decoded"));
    if (!s.error.empty() || state > FLAC__STREAM_DECODER_END_OF_STREAM)
      fail("is not a valid FLAC stream (corrupt or cut short)");
  }
  if (s.capacity == 0) s.reserve(1);  // an empty result still has its channels
  Tensor w = s.out;
  if (s.frames != s.capacity)
    w = contiguous(opt.channels_first ? narrow(w, 1, 0, s.frames) : narrow(w, 0, 0, s.frames));
  LoadResult r;
  r.waveform = w;
  r.sample_rate = int64_t(s.rate);
  return r;
}

}  // namespace tc::audio::detail
