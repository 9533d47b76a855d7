#pragma once
// Finds, from the bitstream alone, packets whose picture no other picture may reference, so an
// exact seek can leave them out while it decodes forward to its target instead of handing them
// to the decoder to skip. Leaving them out keeps a frame-threaded decoder's pipeline full of
// frames that matter (a skipped packet still takes a thread's turn; see docs/videoio.md).
#include <cstdint>

extern "C" {
#include <libavcodec/codec_par.h>
}

namespace tc::io::detail {

class DisposablePackets {
 public:
  DisposablePackets() = default;
  explicit DisposablePackets(const AVCodecParameters* par);

  // True only when the packet certainly holds nothing but a picture nobody references: H.264
  // slices with nal_ref_idc 0, access unit delimiters and filler, in a progressive stream.
  // Anything else (other codecs, interlaced or unknown field order, SEI, parameter sets,
  // malformed data) answers false and the decoder sees the packet.
  bool disposable(const uint8_t* data, int size) const;

 private:
  enum class Format { None, H264LengthPrefixed, H264AnnexB };
  Format format_ = Format::None;
  int length_size_ = 4;  // bytes of the NAL unit length prefix (avcC)
};

}  // namespace tc::io::detail
