#include "io/video/frame_convert.h"

#include <cstring>
#include <utility>

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/pixdesc.h>
}

#include "tensorcore/ops/creation.h"

namespace tc::io::detail {

namespace {

// swscale's SIMD paths write up to a vector's width past the last row (measured: 42 bytes for
// yuv420p -> rgb24), so frames get slack at the end.
constexpr size_t kTailPadding = VideoReader::kFramePadding;

Tensor padded_uint8(const Shape& sizes) {
  const size_t nbytes = size_t(shape_numel(sizes));
  Storage st = make_storage(nbytes + kTailPadding, Device());
  return make_tensor(std::move(st), sizes, contiguous_strides(sizes), 0, DType::UInt8);
}

int sws_colorspace(int av_colorspace) {
  switch (av_colorspace) {
    case AVCOL_SPC_BT709:
      return SWS_CS_ITU709;
    case AVCOL_SPC_FCC:
      return SWS_CS_FCC;
    case AVCOL_SPC_SMPTE240M:
      return SWS_CS_SMPTE240M;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL:
      return SWS_CS_BT2020;
    default:
      return SWS_CS_DEFAULT;  // BT.601, also what untagged SD video uses
  }
}

bool is_full_range(const AVFrame* f) {
  if (f->color_range == AVCOL_RANGE_JPEG) return true;
  switch (f->format) {
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUVJ440P:
    case AV_PIX_FMT_YUVJ411P:
      return true;
    default:
      return false;
  }
}

}  // namespace

Tensor VideoConverter::convert(const AVFrame* f, bool channels_last, const std::string& source,
                               const VideoReader::FrameAllocator* allocator) {
  const int w = f->width, h = f->height;
  if (w <= 0 || h <= 0 || f->format < 0) {
    throw DecodeError(concat("VideoReader: decoder returned an empty video frame (", w, "x", h,
                             ") from ", source));
  }
  const bool full_range = is_full_range(f);
  if (!sws_ || w != width_ || h != height_ || f->format != format_ ||
      f->colorspace != colorspace_ || int(full_range) != range_) {
    // Packed RGB24 takes swscale's fastest unscaled path (the same pixels torchvision gets);
    // a planar GBRP target goes through the generic scaler at ~25% lower throughput.
    sws_.reset(sws_getContext(w, h, AVPixelFormat(f->format), w, h, AV_PIX_FMT_RGB24, SWS_BILINEAR,
                              nullptr, nullptr, nullptr));
    if (!sws_) {
      const char* name = av_get_pix_fmt_name(AVPixelFormat(f->format));
      throw DecodeError(concat("VideoReader: cannot convert pixel format ", name ? name : "unknown",
                               " (", w, "x", h, ") to RGB, in ", source));
    }
    const int* coeffs = sws_getCoefficients(sws_colorspace(f->colorspace));
    // Ignored (returns -1) for RGB sources, which need no matrix.
    sws_setColorspaceDetails(sws_.get(), coeffs, full_range ? 1 : 0,
                             sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    width_ = w;
    height_ = h;
    format_ = f->format;
    colorspace_ = f->colorspace;
    range_ = int(full_range);
  }
  Tensor hwc;
  if (allocator && channels_last) {
    hwc = (*allocator)(h, w);
    TC_CHECK(hwc.defined() && hwc.dtype() == DType::UInt8 && hwc.is_contiguous() &&
                 hwc.sizes() == Shape({h, w, 3}),
             "VideoReader: the frame allocator must return a contiguous ", h, "x", w,
             "x3 uint8 tensor");
  } else {
    hwc = padded_uint8({h, w, 3});
  }
  uint8_t* dst[4] = {static_cast<uint8_t*>(hwc.data_ptr()), nullptr, nullptr, nullptr};
  int dst_stride[4] = {3 * w, 0, 0, 0};
  const int rows = sws_scale(sws_.get(), f->data, f->linesize, 0, h, dst, dst_stride);
  if (rows != h) {
    throw DecodeError(
        concat("VideoReader: pixel conversion failed (", rows, " of ", h, " rows) in ", source));
  }
  if (channels_last) return hwc;
  // 3 x H x W view of the packed pixels (what torchvision returns too): no extra pass.
  return make_tensor(hwc.storage(), {3, h, w}, {1, int64_t(3) * w, 3}, 0, DType::UInt8);
}

namespace {

// The tensor dtype holding a sample format's samples as they are (planar or packed alike).
std::optional<DType> native_dtype(AVSampleFormat fmt) {
  static constexpr std::pair<AVSampleFormat, DType> kNative[] = {
      {AV_SAMPLE_FMT_U8, DType::UInt8},    {AV_SAMPLE_FMT_S16, DType::Int16},
      {AV_SAMPLE_FMT_S32, DType::Int32},   {AV_SAMPLE_FMT_S64, DType::Int64},
      {AV_SAMPLE_FMT_FLT, DType::Float32}, {AV_SAMPLE_FMT_DBL, DType::Float64}};
  const AVSampleFormat packed = av_get_packed_sample_fmt(fmt);
  for (const auto& [sample_fmt, dtype] : kNative)
    if (sample_fmt == packed) return dtype;
  return std::nullopt;
}

// Rows [skip, n) of interleaved samples from a planar frame (bytes per sample `size`).
void interleave(const AVFrame* f, int64_t skip, int64_t n, int channels, size_t size,
                uint8_t* dst) {
  for (int c = 0; c < channels; ++c) {
    const uint8_t* src = f->extended_data[c] + size_t(skip) * size;
    uint8_t* out = dst + size_t(c) * size;
    const size_t step = size_t(channels) * size;
    if (size == 4) {
      for (int64_t i = 0; i < n - skip; ++i) std::memcpy(out + size_t(i) * step, src + 4 * i, 4);
    } else {
      for (int64_t i = 0; i < n - skip; ++i)
        std::memcpy(out + size_t(i) * step, src + size_t(i) * size, size);
    }
  }
}

}  // namespace

Tensor AudioConverter::convert(const AVFrame* f, int64_t skip, const std::string& source,
                               const AudioLayout& want) {
  const int channels = f->ch_layout.nb_channels;
  const int64_t n = f->nb_samples;
  if (channels <= 0 || n <= 0 || f->sample_rate <= 0) {
    throw DecodeError(concat("VideoReader: decoder returned an invalid audio frame (", channels,
                             " channels, ", n, " samples, ", f->sample_rate, " Hz) from ", source));
  }
  skip = std::clamp<int64_t>(skip, 0, n);
  const auto in_fmt = AVSampleFormat(f->format);
  std::optional<DType> dtype = want.native_dtype ? native_dtype(in_fmt) : std::nullopt;
  // Formats with no tensor dtype (none in FFmpeg today) and the float request go through
  // swresample to packed float, scaled to [-1, 1].
  const AVSampleFormat out_fmt = dtype ? av_get_packed_sample_fmt(in_fmt) : AV_SAMPLE_FMT_FLT;
  if (!dtype) dtype = DType::Float32;
  const size_t size = size_t(av_get_bytes_per_sample(out_fmt));
  // Samples x channels: packed (interleaved) memory, as the decoder's packed formats hold it.
  Tensor out = empty({n - skip, channels}, TensorOptions(*dtype));
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  if (n > skip) {
    if (in_fmt == out_fmt) {
      std::memcpy(dst, f->extended_data[0] + size_t(skip) * size_t(channels) * size,
                  size_t(n - skip) * size_t(channels) * size);
    } else if (av_get_packed_sample_fmt(in_fmt) == out_fmt) {
      interleave(f, skip, n, channels, size, dst);
    } else {
      convert_with_swr(f, out_fmt, skip, dst, source);
    }
  }
  if (!want.channels_first) return out;
  // C x N: the old layout, kept behind an option.
  Tensor planar = empty({channels, n - skip}, TensorOptions(*dtype));
  auto* p = static_cast<uint8_t*>(planar.data_ptr());
  for (int64_t i = 0; i < n - skip; ++i) {
    for (int c = 0; c < channels; ++c) {
      std::memcpy(p + (size_t(c) * size_t(n - skip) + size_t(i)) * size,
                  dst + (size_t(i) * size_t(channels) + size_t(c)) * size, size);
    }
  }
  return planar;
}

void AudioConverter::convert_with_swr(const AVFrame* f, AVSampleFormat out_fmt, int64_t skip,
                                      uint8_t* dst, const std::string& source) {
  const int channels = f->ch_layout.nb_channels;
  const int64_t n = f->nb_samples;
  AVChannelLayout in_layout{};
  if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
    av_channel_layout_default(&in_layout, channels);
  } else if (av_channel_layout_copy(&in_layout, &f->ch_layout) < 0) {
    throw std::bad_alloc();
  }
  const bool same = swr_ && f->format == format_ && out_fmt == out_format_ &&
                    f->sample_rate == rate_ && av_channel_layout_compare(&in_layout, &layout_) == 0;
  if (!same) {
    av_channel_layout_uninit(&layout_);
    swr_.reset();
    SwrContext* raw = nullptr;
    int err = swr_alloc_set_opts2(&raw, &in_layout, out_fmt, f->sample_rate, &in_layout,
                                  AVSampleFormat(f->format), f->sample_rate, 0, nullptr);
    swr_.reset(raw);
    if (err >= 0) err = swr_init(swr_.get());
    if (err < 0) {
      av_channel_layout_uninit(&in_layout);
      format_ = -1;
      throw_av_error("cannot convert audio samples", source, err);
    }
    format_ = f->format;
    out_format_ = out_fmt;
    rate_ = f->sample_rate;
    layout_ = in_layout;  // takes ownership
  } else {
    av_channel_layout_uninit(&in_layout);
  }
  // Same rate in and out: swresample converts sample for sample, with no delay.
  const size_t row = size_t(av_get_bytes_per_sample(out_fmt)) * size_t(channels);
  std::vector<uint8_t> full;
  uint8_t* target = dst;
  if (skip > 0) {
    full.resize(size_t(n) * row);
    target = full.data();
  }
  const int got = swr_convert(swr_.get(), &target, int(n),
                              const_cast<const uint8_t**>(f->extended_data), int(n));
  if (got < 0) throw_av_error("cannot convert audio samples", source, got);
  if (got != n) {
    throw DecodeError(
        concat("VideoReader: audio conversion returned ", got, " of ", n, " samples in ", source));
  }
  if (skip > 0) std::memcpy(dst, full.data() + size_t(skip) * row, size_t(n - skip) * row);
}

}  // namespace tc::io::detail
