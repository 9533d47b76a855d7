// tc::io::VideoReader: demux one stream, decode it with libavcodec, convert each frame into a
// tensor. Exact seeks jump to the keyframe at or before the target and decode forward,
// dropping what precedes the target; the file is never re-opened.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>

#include "io/video/container_extent.h"
#include "io/video/disposable_packets.h"
#include "io/video/ffmpeg_util.h"
#include "io/video/frame_convert.h"

namespace tc::io {

using namespace detail;

namespace {

struct StreamSpec {
  AVMediaType type;
  int index;
};

StreamSpec parse_stream_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  StreamSpec out{AVMEDIA_TYPE_UNKNOWN, 0};
  if (kind == "video") out.type = AVMEDIA_TYPE_VIDEO;
  if (kind == "audio") out.type = AVMEDIA_TYPE_AUDIO;
  bool ok = out.type != AVMEDIA_TYPE_UNKNOWN;
  if (ok && colon != std::string::npos) {
    const std::string num = spec.substr(colon + 1);
    ok = !num.empty() && num.size() < 6 &&
         std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) out.index = std::stoi(num);
  }
  TC_CHECK(ok, "VideoReader: stream must be 'video', 'audio', 'video:N' or 'audio:N', but got '",
           spec, "'");
  return out;
}

double q2d_or_nan(AVRational r) {
  return (r.num > 0 && r.den > 0) ? av_q2d(r) : std::numeric_limits<double>::quiet_NaN();
}

StreamInfo describe_stream(const AVFormatContext* fmt, const AVStream* st, int type_index) {
  StreamInfo info;
  const AVCodecParameters* par = st->codecpar;
  const char* type = av_get_media_type_string(par->codec_type);
  info.type = type ? type : "unknown";
  info.index = type_index;
  info.stream_index = st->index;
  info.codec = avcodec_get_name(par->codec_id);
  info.time_base_num = st->time_base.num;
  info.time_base_den = st->time_base.den;
  const double tb = av_q2d(st->time_base);
  info.start_time = st->start_time != AV_NOPTS_VALUE ? double(st->start_time) * tb : 0.0;
  if (st->duration != AV_NOPTS_VALUE && st->duration > 0) {
    info.duration = double(st->duration) * tb;
  } else if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0) {
    info.duration = double(fmt->duration) / AV_TIME_BASE;
  }
  info.num_frames = std::max<int64_t>(st->nb_frames, 0);
  if (par->codec_type == AVMEDIA_TYPE_VIDEO) {
    info.fps = q2d_or_nan(st->avg_frame_rate);
    if (std::isnan(info.fps)) info.fps = q2d_or_nan(st->r_frame_rate);
    info.nominal_fps = q2d_or_nan(
        av_guess_frame_rate(const_cast<AVFormatContext*>(fmt), const_cast<AVStream*>(st), nullptr));
    if (std::isnan(info.nominal_fps)) info.nominal_fps = info.fps;
    info.width = par->width;
    info.height = par->height;
  } else if (par->codec_type == AVMEDIA_TYPE_AUDIO) {
    if (par->sample_rate > 0) info.sample_rate = par->sample_rate;
    info.channels = par->ch_layout.nb_channels;
  }
  return info;
}

int64_t frame_duration_ticks(const AVFrame* f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
  return f->duration;
#else
  return f->pkt_duration;
#endif
}

}  // namespace

struct VideoReader::Impl {
  MediaSource source;
  Demuxer demux;
  int num_threads = 0;
  std::string stream_spec;
  AVStream* stream = nullptr;
  StreamInfo info;
  CodecContextPtr codec;
  FramePtr frame = make_frame();
  PacketPtr packet = make_packet();
  VideoConverter video_converter;
  AudioConverter audio_converter;
  AudioLayout audio_layout;
  VideoLayout layout = VideoLayout::CHW;
  DisposablePackets disposable;  // packets an exact seek may leave out before its target
  FrameAllocator frame_allocator;

  bool input_done = false;  // the flush packet has been sent
  bool finished = false;    // nothing more to return until the next seek
  int64_t discard_before = std::numeric_limits<int64_t>::min();  // ticks
  double discard_before_sec = -std::numeric_limits<double>::infinity();
  int64_t fallback_ts = 0;  // timestamp for frames that carry none

  // After an exact seek the first decoded frame must not lie after the target; when the
  // demuxer lands too late (sparse or missing index) we back off and seek again.
  bool check_landing = false;
  int64_t landing_target = 0;
  int64_t landing_pos = 0;
  int landing_retries = 0;

  // Packets of the stream read since its start, while no seek has intervened: at the end of the
  // input a count below what the container declares means the file was cut short.
  int64_t packets_from_start = 0;
  bool counting_from_start = true;

  // Packets of the stream read ahead of the decoder (by a forward exact seek deciding whether to
  // decode on), sent before anything else is read.
  std::deque<PacketPtr> lookahead;
  size_t lookahead_bytes = 0;
  bool demux_eof = false;  // the demuxer reported the end of the input
  // Timestamp of the last video frame returned since the decoder was last flushed.
  int64_t last_output_ts = AV_NOPTS_VALUE;
  int64_t demuxer_seeks = 0;     // diagnostics: how often the demuxer was repositioned
  int64_t disposed_packets = 0;  // diagnostics: packets left out before an exact-seek target
  // Measured average frame rate per container stream index, filled on first request.
  std::optional<std::vector<double>> average_rates;
  // Read from the input the first time the demuxer reports its end.
  std::optional<ContainerExtent> extent;
  bool extent_checked = false;

  Impl(MediaSource src, const VideoReaderOptions& opts)
      : source(std::move(src)),
        demux(open_demuxer(source)),
        num_threads(opts.num_threads),
        audio_layout{opts.audio_channels_first, opts.audio_native_dtype} {
    TC_CHECK(num_threads >= 0, "VideoReader: num_threads must be >= 0, but got ", num_threads);
    open_stream(opts.stream);
  }

  const std::string& name() const { return demux.name; }
  AVFormatContext* fmt() const { return demux.fmt.get(); }
  bool is_video() const { return stream->codecpar->codec_type == AVMEDIA_TYPE_VIDEO; }
  double time_base() const { return av_q2d(stream->time_base); }
  int64_t start_ticks() const {
    return stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
  }
  // Where a rewind seeks: a second before the start. Containers that seek by decode timestamp
  // (MPEG-TS) hold the first keyframe's packet before the stream's first pts, so a seek to the
  // start itself lands after that keyframe; the others go to their first keyframe either way.
  int64_t rewind_ticks() const {
    return start_ticks() - std::max<int64_t>(1, int64_t(1.0 / time_base()));
  }

  std::string stream_summary() const {
    int videos = 0, audios = 0;
    for (unsigned i = 0; i < fmt()->nb_streams; ++i) {
      const auto t = fmt()->streams[i]->codecpar->codec_type;
      videos += t == AVMEDIA_TYPE_VIDEO;
      audios += t == AVMEDIA_TYPE_AUDIO;
    }
    return concat(videos, " video and ", audios, " audio stream(s)");
  }

  void open_stream(const std::string& spec) {
    const StreamSpec want = parse_stream_spec(spec);
    AVStream* found = nullptr;
    int seen = 0;
    for (unsigned i = 0; i < fmt()->nb_streams && !found; ++i) {
      AVStream* st = fmt()->streams[i];
      if (st->codecpar->codec_type != want.type) continue;
      if (seen++ == want.index) found = st;
    }
    if (!found) {
      bool any = false;
      for (unsigned i = 0; i < fmt()->nb_streams; ++i) {
        const auto t = fmt()->streams[i]->codecpar->codec_type;
        any = any || t == AVMEDIA_TYPE_VIDEO || t == AVMEDIA_TYPE_AUDIO;
      }
      // Asking for a stream a valid file lacks is a usage error; no streams at all is bad data.
      if (!any)
        throw DecodeError(concat("VideoReader: no video or audio stream found in ", name()));
      throw ValueError(concat("VideoReader: no stream '", spec, "' in ", name(), " (it has ",
                              stream_summary(), ")"));
    }
    const AVCodec* decoder = avcodec_find_decoder(found->codecpar->codec_id);
    if (!decoder) {
      throw DecodeError(concat("VideoReader: unsupported codec '",
                               avcodec_get_name(found->codecpar->codec_id), "' for stream '", spec,
                               "' in ", name(), ": this FFmpeg build has no decoder for it"));
    }
    CodecContextPtr ctx(avcodec_alloc_context3(decoder));
    if (!ctx) throw std::bad_alloc();
    int err = avcodec_parameters_to_context(ctx.get(), found->codecpar);
    if (err < 0)
      throw_av_error(concat("invalid codec parameters for stream '", spec, "'"), name(), err);
    ctx->pkt_timebase = found->time_base;
    ctx->thread_count = num_threads;
    err = avcodec_open2(ctx.get(), decoder, nullptr);
    if (err < 0) throw_av_error(concat("cannot open the ", decoder->name, " decoder"), name(), err);

    // Only the current stream's packets are read.
    for (unsigned i = 0; i < fmt()->nb_streams; ++i) {
      fmt()->streams[i]->discard = fmt()->streams[i] == found ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
    }
    int type_index = 0;
    for (int i = 0; i < found->index; ++i) {
      type_index += fmt()->streams[i]->codecpar->codec_type == found->codecpar->codec_type;
    }
    codec = std::move(ctx);
    disposable = DisposablePackets(found->codecpar);
    stream = found;
    stream_spec = spec;
    info = describe_stream(fmt(), found, type_index);
    reset_decode_state();
    clear_lookahead();
    fallback_ts = start_ticks();
    packets_from_start = 0;
    counting_from_start = true;
  }

  void clear_lookahead() {
    lookahead.clear();
    lookahead_bytes = 0;
    demux_eof = false;
    last_output_ts = AV_NOPTS_VALUE;
  }

  void reset_decode_state() {
    input_done = false;
    finished = false;
    discard_before = std::numeric_limits<int64_t>::min();
    discard_before_sec = -std::numeric_limits<double>::infinity();
    check_landing = false;
  }

  // Moves the demuxer to the keyframe at or before `ts` and empties the decoder.
  // Returns false when the container cannot seek there.
  bool seek_demuxer(int64_t ts) {
    int err = av_seek_frame(fmt(), stream->index, ts, AVSEEK_FLAG_BACKWARD);
    if (err < 0)
      err =
          avformat_seek_file(fmt(), stream->index, std::numeric_limits<int64_t>::min(), ts, ts, 0);
    if (err < 0 && ts <= start_ticks()) {
      err = avformat_seek_file(fmt(), stream->index, std::numeric_limits<int64_t>::min(), ts,
                               std::numeric_limits<int64_t>::max(), 0);
    }
    if (err < 0) return false;
    ++demuxer_seeks;
    clear_lookahead();
    avcodec_flush_buffers(codec.get());
    input_done = false;
    finished = false;
    fallback_ts = ts;
    counting_from_start = false;
    return true;
  }

  // Lossy audio decoded from a seek point is wrong for its first frame or two (overlapping
  // transforms, Opus pre-roll), so exact audio seeks start decoding that much earlier.
  int64_t audio_preroll_ticks() const {
    const AVCodecParameters* par = stream->codecpar;
    if (par->codec_type != AVMEDIA_TYPE_AUDIO || par->sample_rate <= 0) return 0;
    const int64_t samples = std::max<int64_t>(par->seek_preroll, 2 * int64_t(par->frame_size));
    return av_rescale_q(samples, AVRational{1, par->sample_rate}, stream->time_base);
  }

  // Back to the start of the stream, giving the frames a fresh reader gives. The seek goes to
  // the pre-roll before the start (AAC's priming packet has a negative pts) and what decodes
  // before the start time is dropped here, as the decoder itself does only on a fresh open.
  void rewind() {
    if (!seek_demuxer(rewind_ticks() - audio_preroll_ticks())) {
      throw DecodeError(
          concat("VideoReader: cannot rewind ", name(), " to read stream '", stream_spec, "'"));
    }
    discard_before = start_ticks();
    discard_before_sec = double(start_ticks()) * time_base();
    packets_from_start = 0;
    counting_from_start = true;
  }

  // Whether the container's packet count is exact: the MP4/MOV sample tables index every
  // packet. Other headers (AVI's strh length, ASF's, MXF's) are advisory.
  bool packet_count_is_exact() const {
    const char* demuxer = fmt()->iformat ? fmt()->iformat->name : "";
    return std::strncmp(demuxer, "mov,", 4) == 0;
  }

  double end_seconds() const {
    if (std::isnan(info.duration)) return std::numeric_limits<double>::infinity();
    return info.start_time + info.duration;
  }

  int64_t seconds_to_ticks(double t) const {
    // The small slack makes a pts read back from a frame select that same frame.
    const double ticks = std::ceil(t / time_base() - 1e-3);
    constexpr double kLimit = 4.0e18;
    return int64_t(std::clamp(ticks, -kLimit, kLimit));
  }

  void seek(double t, bool keyframes_only) {
    TC_CHECK(!std::isnan(t), "VideoReader.seek: time must be a number, but got nan");
    const int64_t target = seconds_to_ticks(t);
    if (!keyframes_only && decoding_on_is_cheaper(target)) {
      // The decoder is already on its way to the target: keep its state, drop what precedes t.
      discard_before = target;
      discard_before_sec = t;
      check_landing = false;
      return;
    }
    reset_decode_state();
    if (keyframes_only) {
      if (t >= end_seconds() || !seek_demuxer(target)) {
        finished = true;
        return;
      }
      const int64_t kf = nearest_keyframe(t / time_base());
      if (!seek_demuxer(kf)) {
        finished = true;
        return;
      }
      // Leading frames of an open GOP come out before the keyframe: drop them.
      discard_before = kf;
      discard_before_sec = double(kf) * time_base();
      return;
    }
    discard_before = target;
    discard_before_sec = t;
    int64_t seek_pos = target - audio_preroll_ticks();
    // Targets at or before the start read from the very beginning.
    if (target <= start_ticks()) seek_pos = std::min(seek_pos, rewind_ticks());
    if (!seek_demuxer(seek_pos)) {
      // Containers without seek support: rewind and decode forward instead.
      rewind();
      discard_before = std::max(discard_before, target);
      discard_before_sec = std::max(discard_before_sec, t);
      return;
    }
    check_landing = seek_pos > rewind_ticks();
    landing_target = target;
    landing_pos = seek_pos;
    landing_retries = 0;
  }

  // Whether an exact seek to `target` (ticks) should decode on from the current position rather
  // than restart from the keyframe at or before the target: true when the target lies ahead of
  // the last returned frame and no keyframe lies between the packets not yet decoded and the
  // target. Reads the packets up to the target into the lookahead queue to find out (demuxing
  // only; they are decoded next either way when the answer is yes).
  bool decoding_on_is_cheaper(int64_t target) {
    if (!is_video() || finished || input_done || last_output_ts == AV_NOPTS_VALUE ||
        target <= last_output_ts) {
      return false;
    }
    // Beyond this much read-ahead without a keyframe the target is far away: let the demuxer's
    // index find the keyframe before it.
    constexpr size_t kMaxPackets = 1024;
    constexpr size_t kMaxBytes = size_t(64) << 20;
    for (size_t i = 0;; ++i) {
      if (i == lookahead.size()) {
        if (demux_eof) return true;  // the target is among the remaining frames or past the end
        if (lookahead.size() >= kMaxPackets || lookahead_bytes >= kMaxBytes) return false;
        PacketPtr p = make_packet();
        if (!read_stream_packet(p.get())) {
          demux_eof = true;
          return true;
        }
        lookahead_bytes += size_t(std::max(p->size, 0));
        lookahead.push_back(std::move(p));
      }
      const AVPacket* p = lookahead[i].get();
      // A keyframe shown at or before the target is a cheaper place to start decoding.
      if ((p->flags & AV_PKT_FLAG_KEY) && (p->pts == AV_NOPTS_VALUE || p->pts <= target)) {
        return false;
      }
      // Packets come in decode order and a frame is never shown before it is decoded, so once a
      // decode timestamp passes the target no later packet holds a keyframe shown before it.
      const int64_t order = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
      if (order != AV_NOPTS_VALUE && order > target) return true;
    }
  }

  // Reads the next packet of the current stream from the demuxer; false at the end of the input.
  bool read_stream_packet(AVPacket* pkt) {
    for (;;) {
      const int err = av_read_frame(fmt(), pkt);
      if (err == AVERROR_EOF) return false;
      if (err < 0) throw_av_error("cannot read a packet", name(), err);
      if (pkt->stream_index == stream->index) {
        ++packets_from_start;
        return true;
      }
      av_packet_unref(pkt);
    }
  }

  // With the demuxer just moved to the keyframe at or before `target`, reads packets (without
  // decoding) up to the next keyframe and returns the pts of whichever of the two lies nearer.
  // Index timestamps cannot be used for this: some containers (MP4) index decode timestamps.
  int64_t nearest_keyframe(double target) {
    std::optional<int64_t> first, second;
    while (!second) {
      if (av_read_frame(fmt(), packet.get()) < 0) break;
      const bool mine = packet->stream_index == stream->index;
      const int64_t ts = packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts;
      const bool key = (packet->flags & AV_PKT_FLAG_KEY) != 0;
      av_packet_unref(packet.get());
      if (!mine || ts == AV_NOPTS_VALUE) continue;
      if (key && !first) {
        first = ts;
      } else if (key && ts > *first) {
        second = ts;
      }
      // Past target + (target - first) no later keyframe can be nearer than the first.
      if (first && !second && ts > target && ts - target > target - double(*first)) break;
    }
    if (!first) return seconds_to_ticks(target * time_base());
    if (second && double(*second) - target < target - double(*first)) return *second;
    return *first;
  }

  // Sends the next packet of the current stream to the decoder (or the flush packet at EOF).
  void feed_decoder() {
    PacketPtr queued;
    AVPacket* pkt = packet.get();
    if (!lookahead.empty()) {
      queued = std::move(lookahead.front());
      lookahead.pop_front();
      lookahead_bytes -= std::min(lookahead_bytes, size_t(std::max(queued->size, 0)));
      pkt = queued.get();
    } else if (demux_eof || !read_stream_packet(pkt)) {
      demux_eof = true;
      // Video only: audio stream headers count samples or blocks rather than packets. Only the
      // MP4/MOV family's count is a promise (the sample table lists every packet); AVI's header
      // count and the like are advisory (ffmpeg's own AVI muxer may declare one frame more than
      // it writes), so those files are checked by their declared size alone.
      if (counting_from_start && is_video() && packet_count_is_exact() && stream->nb_frames > 0 &&
          packets_from_start < stream->nb_frames) {
        throw DecodeError(concat("VideoReader: ", name(), " is truncated: stream '", stream_spec,
                                 "' declares ", stream->nb_frames,
                                 " packets but the input ends after ", packets_from_start));
      }
      // The demuxer ends cleanly also where the input was cut: the container's own size fields
      // tell (MP4/MOV boxes, Matroska/WebM segment, RIFF chunks).
      if (!extent_checked) {
        extent = container_extent(source);
        extent_checked = true;
      }
      if (extent && extent->truncated()) {
        throw DecodeError(concat("VideoReader: ", name(), " is truncated: the ", extent->format,
                                 " container declares ", extent->declared,
                                 " bytes but the input ends after ", extent->actual));
      }
      input_done = true;
      const int err = avcodec_send_packet(codec.get(), nullptr);
      if (err < 0 && err != AVERROR_EOF) throw_av_error("cannot flush the decoder", name(), err);
      return;
    }
    if (pkt->flags & AV_PKT_FLAG_CORRUPT) {
      av_packet_unref(pkt);
      throw DecodeError(concat("VideoReader: truncated or corrupt ", info.type,
                               " packet in stream '", stream_spec, "' of ", name()));
    }
    // While catching up to an exact-seek target, frames that nothing references and that
    // would be dropped anyway need not be decoded at all: left out when the bitstream says so
    // (H.264), otherwise handed to the decoder to skip.
    const bool before_target =
        is_video() && pkt->pts != AV_NOPTS_VALUE && pkt->pts < discard_before;
    if (before_target && disposable.disposable(pkt->data, pkt->size)) {
      ++disposed_packets;
      av_packet_unref(pkt);
      return;
    }
    codec->skip_frame = before_target ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
    const int err = avcodec_send_packet(codec.get(), pkt);
    av_packet_unref(pkt);
    if (err < 0) {
      throw_av_error(concat("corrupt or unsupported ", info.type, " data in stream '", stream_spec,
                            "' (", info.codec, ")"),
                     name(), err);
    }
  }

  // The first frame after an exact seek came out after the target, or none came out at all
  // (a container seeking by decode timestamp, such as MPEG-TS, can land past the keyframe and
  // the decoder shows nothing until the next one): back off (1 s, 4 s, 16 s, then the start)
  // and seek again. False when there is nowhere further back to go.
  bool back_off_landing() {
    if (landing_pos <= rewind_ticks() || landing_retries >= 4) return false;
    const int64_t second = std::max<int64_t>(1, int64_t(1.0 / time_base()));
    const int64_t back =
        landing_retries == 3 ? rewind_ticks() : landing_pos - (second << (2 * landing_retries));
    landing_pos = std::max(rewind_ticks(), back);
    ++landing_retries;
    if (seek_demuxer(landing_pos)) check_landing = true;
    return true;
  }

  // Turns the frame just decoded into a MediaFrame, or returns nullopt when it is dropped.
  std::optional<MediaFrame> take_frame() {
    AVFrame* f = frame.get();
    int64_t ts = f->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE) ts = f->pts;
    if (ts == AV_NOPTS_VALUE) ts = fallback_ts;
    int64_t dur = frame_duration_ticks(f);
    if (!is_video() && f->sample_rate > 0) {
      dur = av_rescale_q(f->nb_samples, AVRational{1, f->sample_rate}, stream->time_base);
    } else if (dur <= 0 && !std::isnan(info.fps) && info.fps > 0) {
      dur = int64_t(std::llround(1.0 / (info.fps * time_base())));
    }
    fallback_ts = ts + std::max<int64_t>(dur, 0);

    if (check_landing) {
      check_landing = false;
      if (ts > landing_target && back_off_landing()) {
        av_frame_unref(f);
        return std::nullopt;
      }
    }

    MediaFrame out;
    out.timestamp = ts;
    out.pts = double(ts) * time_base();
    out.duration = double(std::max<int64_t>(dur, 0)) * time_base();
    if (is_video()) {
      if (ts < discard_before) {
        av_frame_unref(f);
        return std::nullopt;
      }
      last_output_ts = ts;
      if (layout != VideoLayout::None) {
        out.data = video_converter.convert(f, layout == VideoLayout::HWC, name(),
                                           frame_allocator ? &frame_allocator : nullptr);
      }
    } else {
      // Audio: keep only the samples from the seek target on.
      int64_t skip = 0;
      if (f->sample_rate > 0 && out.pts < discard_before_sec) {
        skip = int64_t(std::ceil((discard_before_sec - out.pts) * f->sample_rate - 1e-6));
        if (skip >= f->nb_samples) {
          av_frame_unref(f);
          return std::nullopt;
        }
        out.pts += double(skip) / f->sample_rate;
        out.timestamp = ts + av_rescale_q(skip, AVRational{1, f->sample_rate}, stream->time_base);
        out.duration = double(f->nb_samples - skip) / f->sample_rate;
      }
      out.data = audio_converter.convert(f, skip, name(), audio_layout);
    }
    av_frame_unref(f);
    return out;
  }

  std::optional<MediaFrame> next() {
    while (!finished) {
      const int err = avcodec_receive_frame(codec.get(), frame.get());
      if (err == 0) {
        if (auto out = take_frame()) return out;
        continue;
      }
      if (err != AVERROR_EOF && err != AVERROR(EAGAIN)) {
        throw_av_error(
            concat("cannot decode ", info.type, " stream '", stream_spec, "' (", info.codec, ")"),
            name(), err);
      }
      if (err == AVERROR_EOF || input_done) {
        // Nothing came out of an exact seek at all: it may have landed too late.
        if (check_landing) {
          check_landing = false;
          if (back_off_landing()) continue;
        }
        break;
      }
      feed_decoder();
    }
    finished = true;
    return std::nullopt;
  }
};

VideoReader::VideoReader(const std::string& path, VideoReaderOptions opts)
    : VideoReader(MediaSource::file(path), std::move(opts)) {}

VideoReader::VideoReader(MediaSource source, VideoReaderOptions opts)
    : impl_(std::make_unique<Impl>(std::move(source), opts)) {}

VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

std::optional<MediaFrame> VideoReader::next() { return impl_->next(); }

void VideoReader::seek(double t, bool keyframes_only) { impl_->seek(t, keyframes_only); }

void VideoReader::set_current_stream(const std::string& stream) {
  impl_->open_stream(stream);
  impl_->rewind();
}

const std::string& VideoReader::current_stream() const { return impl_->stream_spec; }
const StreamInfo& VideoReader::current_stream_info() const { return impl_->info; }

std::vector<StreamInfo> VideoReader::streams() const {
  std::vector<StreamInfo> out;
  const AVFormatContext* fmt = impl_->fmt();
  std::vector<int> per_type(AVMEDIA_TYPE_NB + 1, 0);
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    const AVStream* st = fmt->streams[i];
    const int type = std::clamp(int(st->codecpar->codec_type) + 1, 0, int(AVMEDIA_TYPE_NB));
    out.push_back(describe_stream(fmt, st, per_type[size_t(type)]++));
  }
  return out;
}

double VideoReader::container_duration() const {
  const AVFormatContext* fmt = impl_->fmt();
  if (fmt->duration == AV_NOPTS_VALUE || fmt->duration <= 0)
    return std::numeric_limits<double>::quiet_NaN();
  return double(fmt->duration) / AV_TIME_BASE;
}

double VideoReader::average_frame_rate(int stream_index) const {
  Impl& impl = *impl_;
  const int n = int(impl.fmt()->nb_streams);
  TC_CHECK_INDEX(stream_index >= 0 && stream_index < n, "VideoReader.average_frame_rate: stream ",
                 stream_index, " out of range for ", n, " streams");
  if (!impl.average_rates) {
    // A second demuxer, so the reader's own position and state are untouched.
    Demuxer scan = open_demuxer(impl.source);
    std::vector<std::vector<int64_t>> pts(size_t(scan.fmt->nb_streams));
    for (unsigned i = 0; i < scan.fmt->nb_streams; ++i) {
      const bool video = scan.fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO;
      scan.fmt->streams[i]->discard = video ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
    }
    PacketPtr pkt = make_packet();
    while (av_read_frame(scan.fmt.get(), pkt.get()) >= 0) {
      const size_t s = size_t(pkt->stream_index);
      if (s < pts.size() && pkt->pts != AV_NOPTS_VALUE) pts[s].push_back(pkt->pts);
      av_packet_unref(pkt.get());
    }
    std::vector<double> rates(pts.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t s = 0; s < pts.size() && s < size_t(n); ++s) {
      if (pts[s].size() < 2) continue;
      const auto [lo, hi] = std::minmax_element(pts[s].begin(), pts[s].end());
      const double span = double(*hi - *lo) * av_q2d(scan.fmt->streams[s]->time_base);
      if (span > 0) rates[s] = double(pts[s].size() - 1) / span;
    }
    impl.average_rates = std::move(rates);
  }
  return (*impl.average_rates)[size_t(stream_index)];
}

int64_t VideoReader::demuxer_seek_count() const { return impl_->demuxer_seeks; }

int64_t VideoReader::disposed_packet_count() const { return impl_->disposed_packets; }

void VideoReader::set_video_layout(VideoLayout layout) { impl_->layout = layout; }

void VideoReader::set_frame_allocator(FrameAllocator allocator) {
  impl_->frame_allocator = std::move(allocator);
}

}  // namespace tc::io
